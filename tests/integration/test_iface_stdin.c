/*
 * test_iface_stdin.c - what may become the program's stdin.
 *
 * The caller controls --stdin FILE and sbx's own fd 0, and a service may
 * pass user-chosen values.  The jail must only ever get a pipe sbx made:
 * a host fd handed over lets the program walk a directory
 * (/proc/self/fd/0/..), or reopen a file for writing through
 * /proc/self/fd/0.  Byte streams (files, FIFOs, sockets, character devices)
 * are relayed byte-exact; anything else is a config error naming --stdin.
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the program tries when it gets a host fd as stdin. */
#define ESCAPE_SH "echo RAN; ls /proc/self/fd/0/../.. 2>/dev/null | head -3; cat /proc/self/fd/0/f 2>/dev/null"
#define WRITE_SH "cat; echo x >&0; echo y > /proc/self/fd/0; echo z >> /dev/stdin; true"

static void write_file(const char *path, const char *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert(fd >= 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	chmod(path, mode); /* past the umask */
}

static char *read_file(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert(n >= 0);
	buf[n] = '\0';
	return buf;
}

/* A directory holding a file f with a secret, the target of the escape. */
static char *make_secret_dir(void)
{
	char *dir = make_temp_dir();
	char *f = xasprintf("%s/f", dir);

	write_file(f, "SECRET\n", 7, 0644);
	free(f);
	return dir;
}

/* Refused as the contract says: 125, config-error naming --stdin, nothing ran. */
static void assert_refused(const struct sbx_result *r)
{
	const char *msg = rec_str(r, "message");

	ASSERT_STATUS(r, "config-error");
	cr_assert_eq(r->exit_status, 125, "exit %d", r->exit_status);
	cr_assert(msg && strstr(msg, "--stdin"), "message: %s", msg ? msg : "(none)");
	cr_assert(!strstr(r->out, "RAN") && !strstr(r->out, "SECRET"), "ran: %s", r->out);
}

static void run_with_fd0(struct sbx_result *r, int fd, const char *sh)
{
	sbx_run(r, &(struct sbx_opts){ .stdin_from_fd = fd },
		SBX_ARGV("run", "--stdin", "-", "--", "/bin/sh", "-c", sh));
}

/* The reported escape: `--stdin DIR` walked the host fs with the caller's uid. */
Test(iface_stdin, directory_given_by_path_is_refused_before_anything_runs)
{
	struct sbx_result r;
	char *dir = make_secret_dir();

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", dir, "--", "/bin/sh", "-c", ESCAPE_SH));
	assert_refused(&r);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
}

/* `sbx run --stdin - < DIR`: the same escape through sbx's own fd 0. */
Test(iface_stdin, directory_as_sbx_fd0_is_refused_before_anything_runs)
{
	struct sbx_result r;
	char *dir = make_secret_dir();
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	REQUIRE_USERNS();
	cr_assert(fd >= 0);
	run_with_fd0(&r, fd, ESCAPE_SH);
	assert_refused(&r);
	sbx_result_free(&r);
	close(fd);
	rm_tree(dir);
	free(dir);
}

/* A symlink must not smuggle a directory past the check. */
Test(iface_stdin, symlink_to_a_directory_is_refused)
{
	struct sbx_result r;
	char *dir = make_secret_dir();
	char *link = xasprintf("%s/link", dir);

	REQUIRE_USERNS();
	cr_assert_eq(symlink(dir, link), 0);
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", link, "--", "/bin/sh", "-c", ESCAPE_SH));
	assert_refused(&r);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(link);
}

/* An O_PATH fd reads nothing, and the jail could reopen what it names. */
Test(iface_stdin, o_path_fd0_is_refused)
{
	struct sbx_result r;
	char *dir = make_secret_dir();
	char *f = xasprintf("%s/f", dir);
	int fd = open(f, O_PATH | O_CLOEXEC);

	REQUIRE_USERNS();
	cr_assert(fd >= 0);
	chmod(f, 0666);
	run_with_fd0(&r, fd, "echo RAN; cat");
	assert_refused(&r);
	sbx_result_free(&r);
	close(fd);
	rm_tree(dir);
	free(dir);
	free(f);
}

/* A write-only fd 0 is a caller's mistake; handed over, the jail writes the file. */
Test(iface_stdin, write_only_fd0_is_refused_and_the_file_is_unchanged)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *f = xasprintf("%s/in", dir);
	int fd;

	REQUIRE_USERNS();
	write_file(f, "orig\n", 5, 0666);
	fd = open(f, O_WRONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	run_with_fd0(&r, fd, "echo RAN; " WRITE_SH);
	assert_refused(&r);
	cr_assert_str_eq(read_file(f), "orig\n");
	sbx_result_free(&r);
	close(fd);
	rm_tree(dir);
	free(dir);
	free(f);
}

/* An O_RDWR fd 0 (`<>FILE`) is read, never written: not via fd 0, not via a reopen. */
Test(iface_stdin, read_write_fd0_is_read_but_the_jail_cannot_write_the_file)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *f = xasprintf("%s/in", dir);
	int fd;

	REQUIRE_USERNS();
	write_file(f, "orig\n", 5, 0666);
	fd = open(f, O_RDWR | O_CLOEXEC);
	cr_assert(fd >= 0);
	run_with_fd0(&r, fd, WRITE_SH);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "orig\n");
	cr_assert_str_eq(read_file(f), "orig\n");
	sbx_result_free(&r);
	close(fd);
	rm_tree(dir);
	free(dir);
	free(f);
}

/*
 * The judge case: `--stdin tests/1.in`.  sbx opens it read-only, but a
 * reopen of /proc/self/fd/0 checks only the inode's mode, so a handed-over
 * fd let the program overwrite the test input with the caller's uid.
 */
Test(iface_stdin, file_given_by_path_cannot_be_reopened_for_writing)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *f = xasprintf("%s/in", dir);

	REQUIRE_USERNS();
	write_file(f, "orig\n", 5, 0666);
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", f, "--", "/bin/sh", "-c", WRITE_SH));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "orig\n");
	cr_assert_str_eq(read_file(f), "orig\n");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(f);
}

/* A file larger than the pipe: relayed in full, byte-exact (the file path is not pollable). */
Test(iface_stdin, large_file_is_relayed_byte_exact)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *f = xasprintf("%s/in", dir);
	size_t len = 300 * 1024;
	char *data = malloc(len);

	REQUIRE_USERNS();
	for (size_t i = 0; i < len; i++)
		data[i] = (char)(i * 7 + i / 251);
	write_file(f, data, len, 0644);
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", f, "--", "/bin/cat"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.out_len, len);
	cr_assert_eq(memcmp(r.out, data, len), 0);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(f);
	free(data);
}

static void fill_all_bytes(char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
		data[i] = (char)i;
}

/* A pipe (an anonymous FIFO) as fd 0: relayed, every byte value intact. */
Test(iface_stdin, fifo_fd0_is_relayed_byte_exact)
{
	struct sbx_result r;
	char data[4096];
	int p[2];

	REQUIRE_USERNS();
	fill_all_bytes(data, sizeof(data));
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(write(p[1], data, sizeof(data)), (ssize_t)sizeof(data));
	close(p[1]);
	run_with_fd0(&r, p[0], "test -p /proc/self/fd/0 || echo NOT-A-PIPE; cat");
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.out_len, sizeof(data), "%zu bytes: %.100s", r.out_len, r.out);
	cr_assert_eq(memcmp(r.out, data, sizeof(data)), 0);
	sbx_result_free(&r);
	close(p[0]);
}

/* A named FIFO by path: sbx must not block in open(), and must wait for the writer. */
Test(iface_stdin, named_fifo_given_by_path_is_relayed_byte_exact)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *fifo = xasprintf("%s/fifo", dir);
	char data[4096];
	int status;
	pid_t writer;

	REQUIRE_USERNS();
	fill_all_bytes(data, sizeof(data));
	cr_assert_eq(mkfifo(fifo, 0644), 0);
	writer = fork();
	cr_assert(writer >= 0);
	if (writer == 0) {
		int fd = open(fifo, O_WRONLY | O_CLOEXEC); /* waits for sbx */
		usleep(200 * 1000); /* the relay must wait, not see EOF */
		_exit(fd >= 0 && write(fd, data, sizeof(data)) == (ssize_t)sizeof(data) ? 0 : 1);
	}
	sbx_run(&r, &(struct sbx_opts){ .deadline_s = 10 },
		SBX_ARGV("run", "--stdin", fifo, "--", "/bin/cat"));
	kill(writer, SIGKILL);
	waitpid(writer, &status, 0);
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.out_len, sizeof(data), "%zu bytes", r.out_len);
	cr_assert_eq(memcmp(r.out, data, sizeof(data)), 0);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(fifo);
}

/*
 * A FIFO nobody writes: sbx blocked in open() before the wall timer existed,
 * with SIGTERM already blocked, so it hung until SIGKILL.  Now it is opened
 * non-blocking and the run ends at the wall limit.
 */
Test(iface_stdin, named_fifo_without_a_writer_ends_at_the_wall_limit)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *fifo = xasprintf("%s/fifo", dir);

	REQUIRE_USERNS();
	cr_assert_eq(mkfifo(fifo, 0644), 0);
	sbx_run(&r, &(struct sbx_opts){ .deadline_s = 8 },
		SBX_ARGV("run", "--time", "1s", "--stdin", fifo, "--", "/bin/cat"));
	cr_assert(!r.timed_out, "sbx hung on a FIFO without a writer");
	ASSERT_STATUS(&r, "timeout");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(fifo);
}

/* A socket as fd 0 (inetd style): relayed through a pipe, byte-exact. */
Test(iface_stdin, socket_fd0_is_relayed_byte_exact)
{
	struct sbx_result r;
	char data[4096];
	int sv[2];

	REQUIRE_USERNS();
	fill_all_bytes(data, sizeof(data));
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(write(sv[1], data, sizeof(data)), (ssize_t)sizeof(data));
	close(sv[1]);
	run_with_fd0(&r, sv[0], "test -S /proc/self/fd/0 && echo SOCKET; cat");
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.out_len, sizeof(data), "%zu bytes: %.100s", r.out_len, r.out);
	cr_assert_eq(memcmp(r.out, data, sizeof(data)), 0);
	sbx_result_free(&r);
	close(sv[0]);
}

/* /dev/null (not pollable) as fd 0 and by path: empty input, at once. */
Test(iface_stdin, dev_null_is_an_empty_input)
{
	struct sbx_result r;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	REQUIRE_USERNS();
	cr_assert(fd >= 0);
	run_with_fd0(&r, fd, "cat; echo END");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "END\n");
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", "/dev/null", "--", "/bin/sh", "-c",
				   "cat; echo END"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "END\n");
	sbx_result_free(&r);
	close(fd);
}

/* A terminal as fd 0 is relayed, never handed over (TIOCSTI, CVE-2017-5226). */
Test(iface_stdin, terminal_fd0_is_relayed_not_handed_over)
{
	struct sbx_result r;
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave;

	REQUIRE_USERNS();
	cr_assert(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(slave >= 0);
	/* one line, then VEOF (^D) at the start of a line: end of input */
	cr_assert_eq(write(master, "hello\n\x04", 7), 7);
	run_with_fd0(&r, slave, "test -t 0 && echo TTY; cat");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "hello\n");
	sbx_result_free(&r);
	close(slave);
	close(master);
}

Test(iface_stdin, nonexistent_path_is_a_config_error)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", "/nonexistent/in", "--", "/bin/sh", "-c",
				   "echo RAN"));
	assert_refused(&r);
	cr_assert(strstr(rec_str(&r, "message"), "No such file"), "%s", rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* sbx opens FILE with the caller's rights, so it cannot read what the caller cannot. */
Test(iface_stdin, unreadable_file_is_a_config_error)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *f = xasprintf("%s/in", dir);

	REQUIRE_USERNS();
	if (geteuid() == 0)
		cr_skip_test("SKIP: root reads any file; run as an unprivileged user");
	write_file(f, "SECRET\n", 7, 0);
	sbx_run(&r, NULL, SBX_ARGV("run", "--stdin", f, "--", "/bin/sh", "-c", "echo RAN; cat"));
	assert_refused(&r);
	cr_assert(strstr(rec_str(&r, "message"), "Permission denied"), "%s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(f);
}

static int parent_of(int pid)
{
	char path[64];
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	if (fscanf(f, "%*d %*s %*c %d", &ppid) != 1)
		ppid = -1;
	fclose(f);
	return ppid;
}

/* Whether PID has started a child (the jail's init, once the program runs). */
static bool has_child(int pid)
{
	char path[64], buf[32];
	FILE *f;
	bool yes;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "re");
	yes = f && fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9';
	if (f)
		fclose(f);
	return yes;
}

/* Whether a grandchild of ANCESTOR (the jail's init, a child of sbx) that
 * already runs the program has an fd among 0-2 that resolves to DIR: 1 yes,
 * 0 no, -1 not found / unreadable.  Before the program starts, the init is
 * still setting up and may hold them: only the running jail matters (the
 * test failed under load by looking too early). */
static int init_holds(pid_t ancestor, const char *dir)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = -1;

	while (d && found < 0 && (e = readdir(d))) {
		int pid = atoi(e->d_name), ppid = pid > 0 ? parent_of(pid) : -1;

		if (ppid <= 0 || parent_of(ppid) != ancestor || !has_child(pid))
			continue;
		for (int fd = 0; fd <= 2 && found != 1; fd++) {
			char path[64], link[4096];
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
			n = readlink(path, link, sizeof(link) - 1);
			if (n < 0)
				continue;
			link[n] = '\0';
			found = strcmp(link, dir) == 0;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * fd 0-2 of sbx (here a directory; also the caller's terminal or files)
 * stayed open in the jail's pid 1, a process in the program's own user
 * namespace: once the init holds no capabilities, /proc/1/fd/0 is the
 * directory escape again.  The init points them at /dev/null.
 */
Test(iface_stdin, jail_init_holds_none_of_sbxs_own_stdio)
{
	struct sbx_result r;
	char *dir = make_secret_dir();
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), p[2], held = -1;
	pid_t test = getpid(), watcher;

	REQUIRE_USERNS();
	cr_assert(fd >= 0 && pipe2(p, O_CLOEXEC) == 0);
	watcher = fork();
	cr_assert(watcher >= 0);
	if (watcher == 0) {
		for (int i = 0; i < 60 && held < 0; i++) {
			usleep(50 * 1000);
			held = init_holds(test, dir);
		}
		_exit(write(p[1], &held, sizeof(held)) == sizeof(held) ? 0 : 1);
	}
	close(p[1]);
	sbx_run(&r, &(struct sbx_opts){ .stdin_from_fd = fd },
		SBX_ARGV("run", "--", "/bin/sleep", "2"));
	cr_assert_eq(read(p[0], &held, sizeof(held)), (ssize_t)sizeof(held));
	waitpid(watcher, NULL, 0);
	ASSERT_STATUS(&r, "ok");
	if (held < 0)
		cr_skip_test("SKIP: cannot read the jail init's fds from here");
	cr_assert_eq(held, 0, "the jail's init holds sbx's fd 0 (the directory %s)", dir);
	sbx_result_free(&r);
	close(p[0]);
	close(fd);
	rm_tree(dir);
	free(dir);
}
