/*
 * test_iface_out.c - `-o DIR` against hostile workspace and output-dir
 * content: sparse files, the total budget, links planted
 * in DIR, DIR itself a symlink, a host hard link in a -w workspace, names
 * that are not text, and a SIGKILL or SIGTERM of sbx in the middle of the
 * copy.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void sh_out(struct sbx_result *r, const char *out, const char *extra,
		   const char *extra_val, const char *script)
{
	const char *argv[12];
	size_t n = 0;

	argv[n++] = "run";
	argv[n++] = "--json";
	argv[n++] = "-o";
	argv[n++] = out;
	if (extra) {
		argv[n++] = extra;
		argv[n++] = extra_val;
	}
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	sbx_run(r, &(struct sbx_opts){ .record_on_stdout = true }, argv);
}

static double out_reason(const struct sbx_result *r, const char *reason)
{
	cJSON *t = cJSON_GetObjectItem(r->record, "artifact_truncation");
	cJSON *n = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "reasons"), reason);

	return cJSON_IsNumber(n) ? n->valuedouble : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "fopen %s", path);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/*
 * Three `truncate -s 60M` files take 4 KiB in the workspace; copied byte
 * by byte they took 181 MiB of the host's disk (the bound was files x
 * --fsize, ~125 GiB from an empty workspace).  Holes stay holes.
 */
Test(iface_out, sparse_files_are_copied_out_as_holes)
{
	struct sbx_result r;
	char *out = make_temp_dir();
	long long blocks = 0;

	REQUIRE_USERNS();
	sh_out(&r, out, NULL, NULL, "truncate -s 60M a b c; echo end >> c");
	ASSERT_STATUS(&r, "ok");
	for (const char *n = "abc"; *n; n++) {
		char *p = xasprintf("%s/%c", out, *n);
		struct stat st;

		cr_assert_eq(stat(p, &st), 0, "%c was not copied out", *n);
		cr_assert_eq(st.st_size, 60LL * 1024 * 1024 + (*n == 'c' ? 4 : 0));
		blocks += st.st_blocks;
		free(p);
	}
	char *c = xasprintf("%s/c", out);
	int fd = open(c, O_RDONLY);
	char tail[5] = "";
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, tail, 4, 60LL * 1024 * 1024), 4);
	cr_assert_str_eq(tail, "end\n", "the data after the hole was lost");
	close(fd);
	free(c);
	/* st_blocks is in 512-byte units: under 1 MiB for 180 MiB of holes */
	cr_assert_lt(blocks * 512, 1024 * 1024, "copy-out took %lld bytes of disk",
		     blocks * 512);
	sbx_result_free(&r);
	rm_tree(out);
	free(out);
}

/*
 * The copy-out has a total budget (4 x the file-size limit): dense files
 * past it are skipped and the record says so, instead of the host disk
 * filling with up to files x --fsize bytes.
 */
Test(iface_out, copy_out_stops_at_its_total_budget_and_says_so)
{
	struct sbx_result r;
	char *out = make_temp_dir();
	long long total = 0;
	int copied = 0;

	REQUIRE_USERNS();
	/* --fsize 1M: budget 4 MiB; six files of 900,000 bytes do not fit */
	sh_out(&r, out, "--fsize", "1M",
	       "for f in a b c d e f; do head -c 900000 /dev/urandom > $f; done");
	ASSERT_STATUS(&r, "ok");
	for (const char *n = "abcdef"; *n; n++) {
		char *p = xasprintf("%s/%c", out, *n);
		struct stat st;

		if (stat(p, &st) == 0) {
			copied++;
			total += st.st_size;
		}
		free(p);
	}
	cr_assert_eq(copied, 4, "%d files copied", copied);
	cr_assert_leq(total, 4LL << 20);
	cr_assert_eq(out_reason(&r, "out_budget"), 2, "record: %s", r.out);
	cr_assert_not_null(strstr(r.err, "budget"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(out);
	free(out);
}

/*
 * A hard link planted in DIR under the name of an output (to a file the
 * caller can write, /etc/passwd when sbx is root) was opened O_TRUNC and
 * written through.  The copy goes to a fresh file renamed over the name.
 */
Test(iface_out, a_hard_link_planted_in_the_out_dir_is_replaced_not_written_through)
{
	struct sbx_result r;
	char *out = make_temp_dir(), *side = make_temp_dir();
	char *victim = xasprintf("%s/victim", side), *planted = xasprintf("%s/a", out);
	struct stat st;

	REQUIRE_USERNS();
	write_file(victim, "precious\n");
	cr_assert_eq(link(victim, planted), 0);
	sh_out(&r, out, NULL, NULL, "echo from-jail > a");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(slurp(victim), "precious\n", "the copy-out wrote through a hard link");
	cr_assert_str_eq(slurp(planted), "from-jail\n");
	cr_assert_eq(stat(victim, &st), 0);
	cr_assert_eq(st.st_nlink, 1);
	sbx_result_free(&r);
	rm_tree(out);
	rm_tree(side);
	free(out);
	free(side);
	free(victim);
	free(planted);
}

/* A symlink planted in DIR (file or directory) is replaced or refused, never followed. */
Test(iface_out, symlinks_planted_in_the_out_dir_are_never_followed)
{
	struct sbx_result r;
	char *out = make_temp_dir(), *side = make_temp_dir();
	char *victim = xasprintf("%s/victim", side), *planted = xasprintf("%s/a", out);
	char *dirlink = xasprintf("%s/d", out), *through = xasprintf("%s/f", side);
	struct stat st;

	REQUIRE_USERNS();
	write_file(victim, "precious\n");
	cr_assert_eq(symlink(victim, planted), 0);
	cr_assert_eq(symlink(side, dirlink), 0);
	sh_out(&r, out, NULL, NULL, "echo from-jail > a; mkdir d; echo x > d/f");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(slurp(victim), "precious\n");
	cr_assert_eq(lstat(planted, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the output did not replace the planted symlink");
	cr_assert_neq(lstat(through, &st), 0, "d/f was written through the d symlink");
	cr_assert_eq(out_reason(&r, "out_failed"), 1, "record: %s", r.out);
	sbx_result_free(&r);
	rm_tree(out);
	rm_tree(side);
	free(out);
	free(side);
	free(victim);
	free(planted);
	free(dirlink);
	free(through);
}

/*
 * -o DIR that is a symlink (a caller-supplied path, or one a user swapped
 * in for a directory root copies into) is refused: sbx would create the
 * program's files wherever it points, with sbx's rights.
 */
Test(iface_out, an_out_dir_that_is_a_symlink_is_refused)
{
	struct sbx_result r;
	char *side = make_temp_dir(), *base = make_temp_dir();
	char *link_path = xasprintf("%s/out", base), *through = xasprintf("%s/a", side);
	struct stat st;

	REQUIRE_USERNS();
	cr_assert_eq(symlink(side, link_path), 0);
	sh_out(&r, link_path, NULL, NULL, "echo x > a");
	cr_assert_eq(r.exit_status, 125, "stderr: %s", r.err);
	ASSERT_STATUS(&r, "config-error");
	cr_assert_not_null(strstr(r.err, "symbolic link"), "stderr: %s", r.err);
	cr_assert_neq(lstat(through, &st), 0, "a file was created through the symlink");
	sbx_result_free(&r);
	rm_tree(side);
	rm_tree(base);
	free(side);
	free(base);
	free(link_path);
	free(through);
}

/*
 * A -w workspace is the host's: while the program runs, a host user hard
 * links a file only root can read into it.  Run by root, the copy-out
 * must not hand that file to -o DIR (the program, uid 65534, could not
 * read it itself).
 */
Test(iface_out, a_host_hard_link_in_a_workdir_is_not_copied_out_by_root)
{
	struct sbx_result r;
	char *wd, *out, *side, *secret, *ln_path, *go, *ready, *got;
	struct stat st;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (sbx run by root reads what uid 65534 cannot)");
	REQUIRE_USERNS();
	wd = make_temp_dir();
	out = make_temp_dir();
	side = xasprintf("%s.side", wd);
	cr_assert_eq(mkdir(side, 0700), 0);
	cr_assert_eq(chown(wd, 65534, 65534), 0);
	secret = xasprintf("%s/secret", side);
	write_file(secret, "root-only\n");
	cr_assert_eq(chmod(secret, 0600), 0);
	ln_path = xasprintf("%s/l", wd);
	go = xasprintf("%s/go", wd);
	ready = xasprintf("%s/ready", wd);
	got = xasprintf("%s/l", out);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) { /* the host user: link the secret in during the run */
		for (int i = 0; i < 1000 && access(ready, F_OK) != 0; i++)
			usleep(10000);
		_exit(link(secret, ln_path) == 0 && close(open(go, O_CREAT | O_WRONLY, 0644)) == 0
			      ? 0 : 1);
	}
	sh_out(&r, out, "-w", wd,
	       "touch ready; i=0; while [ ! -e go ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done");
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the linker failed");
	ASSERT_STATUS(&r, "ok");
	cr_assert_neq(stat(got, &st), 0, "root copied a host hard link out");
	cr_assert_eq(out_reason(&r, "out_refused"), 1, "record: %s", r.out);
	sbx_result_free(&r);
	rm_tree(wd);
	rm_tree(out);
	rm_tree(side);
	free(wd);
	free(out);
	free(side);
	free(secret);
	free(ln_path);
	free(go);
	free(ready);
	free(got);
}

/* Names are bytes: a newline or invalid UTF-8 in one is copied exactly. */
Test(iface_out, names_with_newlines_and_invalid_utf8_are_copied_exactly)
{
	struct sbx_result r;
	char *out = make_temp_dir();
	char *nl = xasprintf("%s/a\nb", out), *bad = xasprintf("%s/x\xff" "y", out);
	struct stat st;

	REQUIRE_USERNS();
	sh_out(&r, out, NULL, NULL, "printf 1 > \"$(printf 'a\\nb')\"; printf 2 > \"$(printf 'x\\377y')\"");
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(stat(nl, &st), 0, "the newline name was not copied");
	cr_assert_eq(stat(bad, &st), 0, "the non-UTF-8 name was not copied");
	sbx_result_free(&r);
	rm_tree(out);
	free(out);
	free(nl);
	free(bad);
}

/* Names in DIR that start with PREFIX (".sbx-out-": sbx's temporary files). */
static int count_named(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d, "opendir %s", dir);
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

static int count_temp_files(const char *dir)
{
	return count_named(dir, ".sbx-out-");
}

/*
 * SIGKILL of sbx in the middle of -o's copy: the file being copied was a
 * named .sbx-out-PID-N in DIR for the whole copy, and stayed there.  Now it
 * is unnamed (O_TMPFILE) until the instant of its rename.  Killed at
 * delays across the copy of 48 MiB (~50 ms here) after the program ended.
 */
Test(iface_out, sigkill_during_the_copy_leaves_no_temporary_file)
{
	char *dir = make_temp_dir(), *out = xasprintf("%s/out", dir);
	int left;

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(out, 0755), 0);
	for (int delay_ms = 0; delay_ms <= 40; delay_ms += 4) {
		int up[2], status;
		char line[8] = "";

		cr_assert_eq(pipe(up), 0);
		pid_t pid = fork();
		cr_assert(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(up[1], 1);
			dup2(null, 2);
			execl(sbx_path(), "sbx", "run", "-q", "-o", out, "--", "/bin/sh", "-c",
			      "head -c 48M /dev/urandom > f; echo done", (char *)NULL);
			_exit(127);
		}
		close(up[1]);
		cr_assert(read(up[0], line, 4) == 4, "the program never ended its write");
		usleep((useconds_t)delay_ms * 1000);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(up[0]);
	}
	left = count_temp_files(out);
	cr_assert_eq(left, 0, "%d .sbx-out-* files left in the out dir", left);
	rm_tree(dir);
	free(out);
	free(dir);
}

/* Start `sbx ARGV...` with stdout on /dev/null; *ERR reads its stderr. */
static pid_t start_sbx_err(int *err, const char *const argv[])
{
	int fds[2];
	size_t n = 0;

	while (argv[n])
		n++;
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		const char **args = calloc(n + 2, sizeof(*args));
		int null = open("/dev/null", O_WRONLY);

		if (!args)
			_exit(127);
		args[0] = "sbx";
		memcpy(args + 1, argv, n * sizeof(*args));
		dup2(null, 1);
		dup2(fds[1], 2);
		execv(sbx_path(), (char *const *)args);
		_exit(127);
	}
	close(fds[1]);
	*err = fds[0];
	return pid;
}

/* SIGTERM to sbx PID; its stderr (from ERR) into REC; exit 143 and aborted. */
static void sigterm_is_aborted(pid_t pid, int err, char *rec, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	int status;

	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	while (len + 1 < cap && (n = read(err, rec + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	rec[len] = '\0';
	close(err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 143,
		  "status 0x%x, want exit 143; stderr: %s", status, rec);
	cr_assert(strstr(rec, "\"status\":\"aborted\"") && strstr(rec, "\"out_failed\""),
		  "stderr: %s", rec);
}

/*
 * SIGTERM of sbx during -o's copy: sbx went on to the end of the copy and
 * then exited 0, as if never asked to stop.  Now the copy stops, the run
 * is `aborted` (143), the file in progress and the rest count as
 * out_failed, and no partial or temporary file is left.  The signal goes
 * once the first of four 60 MiB files is out.
 */
Test(iface_out, sigterm_during_the_copy_stops_it_and_is_aborted)
{
	char *dir = make_temp_dir(), *out = xasprintf("%s/out", dir), rec[65536];
	int err, copied;

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(out, 0755), 0);
	pid_t pid = start_sbx_err(&err, SBX_ARGV("run", "-o", out, "--", "/bin/sh", "-c",
				  "for i in 1 2 3 4; do head -c 60M /dev/zero > f$i; done"));
	for (int i = 0; i < 60000 && count_named(out, "f") < 1; i++)
		usleep(500);
	cr_assert(count_named(out, "f") >= 1, "no file was copied out in 30 s");
	sigterm_is_aborted(pid, err, rec, sizeof(rec));
	copied = count_named(out, "f");
	cr_assert(copied >= 1 && copied < 4, "%d of 4 files copied out", copied);
	cr_assert_eq(count_temp_files(out), 0, "a temporary file was left in the out dir");
	for (int i = 1; i <= 4; i++) {
		char *f = xasprintf("%s/f%d", out, i);
		struct stat st;

		cr_assert(stat(f, &st) != 0 || st.st_size == 60 << 20,
			  "%s: a partial file of %lld bytes", f, (long long)st.st_size);
		free(f);
	}
	rm_tree(dir);
	free(out);
	free(dir);
}

/* Whether sbx PID holds -o's unnamed temporary file in OUT: a copy is on. */
static bool copying_into(pid_t pid, const char *out)
{
	char *fds = xasprintf("/proc/%d/fd", (int)pid), *want = xasprintf("%s/#", out);
	char link[PATH_MAX];
	DIR *d = opendir(fds);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);

		link[n > 0 ? n : 0] = '\0';
		found = strncmp(link, want, strlen(want)) == 0;
	}
	if (d)
		closedir(d);
	free(fds);
	free(want);
	return found;
}

/*
 * The same for one file of 32768 data extents of 4 KiB: the check for a
 * request to stop counted reads per extent, never came to 16, and the file
 * was copied whole (2 s more for 512 MiB).  SIGTERM goes once the
 * copy is seen under way; nothing of the file may come out.
 */
#define EXTENTS_PY                                                             \
	"import os\n"                                                          \
	"fd = os.open('f', os.O_WRONLY | os.O_CREAT, 0o644)\n"                 \
	"for i in range(32768):\n"                                             \
	"    os.pwrite(fd, b'x' * 4096, i * 8192)\n"

Test(iface_out, sigterm_stops_the_copy_of_a_file_of_small_extents)
{
	char *dir = make_temp_dir(), *out = xasprintf("%s/out", dir), *real, rec[65536];
	bool seen = false;
	int err;

	REQUIRE_USERNS();
	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: no /usr/bin/python3 for the writer");
	cr_assert_eq(mkdir(out, 0755), 0);
	real = realpath(out, NULL);
	cr_assert_not_null(real);
	pid_t pid = start_sbx_err(&err, SBX_ARGV("run", "-o", out, "--fsize", "256M", "--",
						"/usr/bin/python3", "-c", EXTENTS_PY));
	for (int i = 0; i < 30000 && !(seen = copying_into(pid, real)); i++)
		usleep(1000);
	cr_assert(seen, "no copy into %s seen under way in 30 s", real);
	sigterm_is_aborted(pid, err, rec, sizeof(rec));
	cr_assert_eq(count_entries(out), 0, "the file came out whole (or a temporary one)");
	rm_tree(dir);
	free(real);
	free(out);
	free(dir);
}

/* SIGTERM while the program runs: the run is aborted and sbx leaves at
 * once, copying nothing (it copied all of -o first, the program's
 * half-written files too).  The files are still listed. */
Test(iface_out, an_aborted_run_copies_nothing_out)
{
	char *dir = make_temp_dir(), *out = xasprintf("%s/out", dir), rec[65536], c;
	int err;

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(out, 0755), 0);
	pid_t pid = start_sbx_err(&err, SBX_ARGV("run", "-o", out, "--", "/bin/sh", "-c",
				  "echo half > f; echo u >&2; exec sleep 60"));
	cr_assert_eq(read(err, &c, 1), 1, "the program never started");
	sigterm_is_aborted(pid, err, rec, sizeof(rec));
	cr_assert(strstr(rec, "\"out_failed\"") && strstr(rec, "\"path\":\"f\""), "stderr: %s", rec);
	cr_assert_eq(count_entries(out), 0, "an aborted run's file was copied out");
	rm_tree(dir);
	free(out);
	free(dir);
}
