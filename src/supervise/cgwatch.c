/*
 * cgwatch.c - the run cgroup's watchdog: a small process of its own,
 * forked once sbx has made a run cgroup, that removes that cgroup (and
 * puts a caller's scope back as sbx found it) when sbx dies without doing
 * so itself (kill -9).  The jail's init ends the jail when sbx dies, but
 * nobody was left to remove the empty cgroup: in a scope that outlives sbx
 * it stayed until another run in the same parent reclaimed it.
 *
 * sbx and the watchdog share a pipe.  sbx writes one byte before it cleans
 * up itself (the watchdog then exits at once); end of file without that
 * byte means sbx is gone.  The watchdog keeps nothing of sbx's but the
 * pipe and the run cgroup's locked descriptor: holding a copy of, say, the
 * jail's control socket would hide sbx's death from the jail's init.  It
 * is in a session of its own and ignores the job-control signals, so that
 * the Ctrl-C or the hang-up meant for sbx does not end it first.
 */
#include "supervise/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WATCH_DONE 'd'

/* Every descriptor but KEEP_A and KEEP_B (moved to 3 and 4), stdio on /dev/null. */
static int keep_only(int *keep_a, int *keep_b)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct rlimit rl;

	if (null < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (dup2(null, fd) < 0)
			return -1;
	if (dup2(*keep_a, 3) < 0 || (*keep_b >= 0 && dup2(*keep_b, 4) < 0))
		return -1;
	*keep_a = 3;
	*keep_b = *keep_b >= 0 ? 4 : -1;
	if (syscall(SYS_close_range, 5, ~0U, 0) == 0)
		return 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	for (rlim_t fd = 5; fd < rl.rlim_cur && fd < 1048576; fd++)
		close((int)fd);
	return 0;
}

/*
 * The watchdog's command line reads as what it is, not as the copy of
 * sbx's it was forked with, which names the jail's command (whoever looks
 * for the jail's processes by it would count the watchdog): the arguments
 * area, whose bounds are fields 48 and 49 of /proc/self/stat, rewritten
 * in place.
 */
static void retitle(void)
{
	static const char title[] = "sbx: run cgroup watchdog";
	char buf[2048], *p, *save = NULL;
	unsigned long start = 0, end = 0;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the comm before it may hold spaces */
	for (char *t = p ? strtok_r(p + 1, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save)) {
		if (++field == 48)
			start = strtoul(t, NULL, 10);
		else if (field == 49) {
			end = strtoul(t, NULL, 10);
			break;
		}
	}
	if (!start || end <= start)
		return;
	memset((void *)start, 0, end - start);
	memcpy((void *)start, title,
	       end - start - 1 < sizeof(title) - 1 ? end - start - 1 : sizeof(title) - 1);
}

__attribute__((noreturn)) static void watch(struct cgroup_run *cg, int rfd)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN,
				     SIGTTOU, SIGPIPE };
	char byte = 0;
	ssize_t n;

	setsid();
	retitle();
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	if (keep_only(&rfd, &cg->dir_fd) != 0)
		_exit(1);
	while ((n = read(rfd, &byte, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && byte == WATCH_DONE)
		_exit(0);
	/* sbx is gone: its cgroup_close, done here (the lock is this one's now) */
	cg->watch_fd = -1;
	cg->watch_pid = 0;
	cgroup_close(cg);
	_exit(0);
}

void cgwatch_start(struct cgroup_run *cg)
{
	int p[2];
	pid_t pid;

	cg->watch_fd = -1;
	cg->watch_pid = 0;
	if (pipe2(p, O_CLOEXEC) != 0)
		return; /* the next run in this parent reclaims what sbx's death leaves */
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		watch(cg, p[0]);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return;
	}
	cg->watch_fd = p[1];
	cg->watch_pid = pid;
}

void cgwatch_stop(struct cgroup_run *cg)
{
	const char done = WATCH_DONE;

	if (cg->watch_pid <= 0)
		return;
	while (write(cg->watch_fd, &done, 1) < 0 && errno == EINTR)
		;
	close(cg->watch_fd);
	cg->watch_fd = -1;
	while (cg->watch_pid > 0 && waitpid(cg->watch_pid, NULL, 0) < 0 && errno == EINTR)
		;
	cg->watch_pid = 0;
}
