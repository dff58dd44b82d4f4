/*
 * test_iface_limits.c - the bounds sbx sets that no policy field names,
 * and the ones the init and the supervisor must agree on: the kill grace,
 * the kernel-quota rlimits, the per-user-namespace ucount limits, closing
 * inherited fds without
 * close_range.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The line of /proc/self/limits for NAME ("Max msgqueue size") in TEXT. */
static void assert_limit(const char *text, const char *name, const char *value)
{
	const char *line = strstr(text, name);
	char soft[32] = "", hard[32] = "";

	cr_assert_not_null(line, "no '%s' in:\n%s", name, text);
	cr_assert_eq(sscanf(line + strlen(name), "%31s %31s", soft, hard), 2, "%s", line);
	cr_assert(!strcmp(soft, value) && !strcmp(hard, value),
		  "%s: soft %s hard %s, want %s", name, soft, hard, value);
}

/*
 * The init capped the grace at an hour, the supervisor at a week: each
 * could SIGKILL the jail while the other still waited.  One bound now, an
 * hour, and a policy above it is refused rather than cut short.
 */
Test(iface_limits, kill_grace_above_an_hour_is_a_config_error)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "--set", "limits.kill_grace_ms=3600001", "--",
				   "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(rec_str(&r, "message"), "at most 3600000"), "%s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/*
 * POSIX queues (allowed by default) and queued signals are charged to the
 * caller's own uid as well, locked pages cannot be swapped: without these
 * bounds the program could use up the caller's quotas on the host.  NICE
 * and RTPRIO 0: no raised priority, whatever a root caller allows.
 */
Test(iface_limits, kernel_quota_rlimits_are_set_in_the_jail)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/cat", "/proc/self/limits"));
	ASSERT_STATUS(&r, "ok");
	assert_limit(r.out, "Max msgqueue size", "262144");
	assert_limit(r.out, "Max locked memory", "65536");
	assert_limit(r.out, "Max pending signals", "1024");
	assert_limit(r.out, "Max nice priority", "0");
	assert_limit(r.out, "Max realtime priority", "0");
	sbx_result_free(&r);
}

/* The caller's seccomp filter: close_range fails with ENOSYS, as on a
 * kernel older than 5.9 or under a container profile that predates it. */
static void deny_close_range(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		_exit(98);
}

/* Run sbx ARGV from a caller without close_range that holds fd 900 above
 * its own RLIMIT_NOFILE; sbx's stdout into BUF, its exit status back. */
static int run_without_close_range(const char *const argv[], char *buf, size_t size)
{
	int p[2], status;
	ssize_t n, got = 0;
	size_t argc = 0;

	while (argv[argc])
		argc++;
	const char **full = calloc(argc + 2, sizeof(*full));
	full[0] = sbx_path();
	memcpy(full + 1, argv, argc * sizeof(*full));
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 256, 256 };
		int fd = open("/etc/hostname", O_RDONLY);

		if (fd < 0 || dup2(fd, 900) != 900 || setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(97);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		deny_close_range();
		execv(full[0], (char *const *)full);
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < (ssize_t)size && (n = read(p[0], buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	free(full);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * close_range failing was ignored (the init) or answered by a loop up to
 * RLIMIT_NOFILE (sbx, the target): an fd above the limit (the caller
 * opened it, then lowered the limit) reached the program.  dash cannot
 * name fds above 9 (`<&900` was a syntax error), so it reads /proc/self/fd/900.
 */
Test(iface_limits, inherited_fd_above_the_limit_is_closed_without_close_range)
{
	char buf[4096];

	REQUIRE_USERNS();
	int rc = run_without_close_range(SBX_ARGV("run", "-q", "--", "/bin/sh", "-c",
						  "ls /proc/self/fd; cat /proc/self/fd/900 2>/dev/null && echo LEAK"),
					 buf, sizeof(buf));
	cr_assert_neq(rc, 98, "could not install the caller's seccomp filter");
	cr_assert_neq(rc, 97, "could not set up fd 900");
	cr_assert(strstr(buf, "900") == NULL && strstr(buf, "LEAK") == NULL,
		  "fd 900 reached the program (exit %d):\n%s", rc, buf);
	cr_assert(strncmp(buf, "0\n1\n2\n", 6) == 0, "fds (exit %d): %s", rc, buf);
}

/* What a jail program holding 200 inotify instances for 4 s prints. */
#define INOTIFY_HOG \
	"import ctypes, time\n" \
	"libc = ctypes.CDLL(None, use_errno=True)\n" \
	"fds = [libc.inotify_init1(0) for _ in range(200)]\n" \
	"print('held', sum(1 for f in fds if f >= 0), flush=True)\n" \
	"time.sleep(4)\n"

/*
 * inotify_init1 on the host as the user the jail is charged to: the
 * creator of its user namespace, i.e. the caller itself, root included
 * (the uid map's 65534 is not the owner).  0 when it worked, else errno.
 */
static int host_inotify_as_caller(void)
{
	int fd = inotify_init1(IN_CLOEXEC);
	int e = fd >= 0 ? 0 : errno;

	if (fd >= 0)
		close(fd);
	return e;
}

/*
 * 128 inotify_init1 in a jail made the same user's
 * inotify_init1 on the host fail with EMFILE while the jail lived.  The
 * jail's user namespace has its own, lower, limit now.
 */
Test(iface_limits, jail_cannot_use_up_the_callers_inotify_quota)
{
	int p[2], status, host;
	char line[64] = "";
	ssize_t n;

	REQUIRE_USERNS();
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(sbx_path(), sbx_path(), "run", "-q", "--", "/usr/bin/python3", "-c",
		      INOTIFY_HOG, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1); /* "held N": the jail holds them now */
	host = host_inotify_as_caller();
	close(p[0]);
	waitpid(pid, &status, 0);
	cr_assert_gt(n, 0, "the jail printed nothing (exit %d)", WEXITSTATUS(status));
	cr_assert_eq(host, 0, "the caller's own inotify_init1 failed (%s) while the jail %s",
		     strerror(host), line);
	cr_assert(strncmp(line, "held ", 5) == 0 && atoi(line + 5) < 128, "jail: %s", line);
}

/* The limits the jail's user namespace shows (the host keeps its own). */
Test(iface_limits, jail_user_namespace_limits_are_lowered)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/sh", "-c",
				   "cd /proc/sys/user && for f in max_*; do echo $f=$(cat $f); done"));
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.out, "max_inotify_instances=16\n"), "%s", r.out);
	cr_assert(strstr(r.out, "max_inotify_watches=1024\n"), "%s", r.out);
	cr_assert(strstr(r.out, "max_user_namespaces=0\n"), "%s", r.out);
	cr_assert(strstr(r.out, "max_mnt_namespaces=0\n"), "%s", r.out);
	cr_assert(strstr(r.out, "max_net_namespaces=0\n"), "%s", r.out);
	sbx_result_free(&r);
}
