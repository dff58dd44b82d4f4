/*
 * res_cpu_hider MODE [N] [MS] - ways to hide CPU from a whole-tree meter.
 * Each runs N children (default 100) that burn MS ms of CPU each (default
 * 100), one after another; a meter that charges them all stops the probe
 * long before the last, so reaching the end is ESCAPED.
 *   sigign   SIGCHLD set to SIG_IGN: children are auto-reaped, their time
 *            reaches nobody's cutime
 *   forkms   SIG_IGN, a new child every millisecond (MS each, in parallel
 *            up to 8 at a time)
 *   comm     SIG_IGN, each child renames itself to ") R 1 1 1" first
 *   zombie   children never reaped: they stay zombies until the parent ends
 *   nodump   SIG_IGN, the parent and each child PR_SET_DUMPABLE 0
 *   reaped   the honest way, each child reaped by waitpid (the control)
 */
#include "cpu_common.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int report_fd = -1; /* each child writes the CPU it used here */

static void child(const char *mode, double ms)
{
	if (!strcmp(mode, "comm"))
		prctl(PR_SET_NAME, ") R 1 1 1", 0, 0, 0);
	if (!strcmp(mode, "nodump"))
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	burn(ms / 1000);
	double used = cpu_s();
	(void)!write(report_fd, &used, sizeof(used));
	_exit(0);
}

static pid_t spawn(const char *mode, double ms)
{
	pid_t pid = fork();

	if (pid == 0)
		child(mode, ms);
	if (pid < 0 && errno != EAGAIN)
		probe_error("fork: %s", errname(errno));
	return pid;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sigign";
	int n = argc > 2 ? atoi(argv[2]) : 100;
	double ms = argc > 3 ? atof(argv[3]) : 100, t0 = mono_s();
	int forked = 0, p[2];
	double total = 0, used;

	if (pipe(p) != 0)
		probe_error("pipe: %s", errname(errno));
	report_fd = p[1];
	if (strcmp(mode, "zombie") != 0 && strcmp(mode, "reaped") != 0)
		signal(SIGCHLD, SIG_IGN);
	if (!strcmp(mode, "nodump"))
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (int i = 0; i < n; i++) {
		if (!strcmp(mode, "forkms")) {
			forked += spawn(mode, ms) > 0;
			usleep(1000);
			continue;
		}
		pid_t pid = spawn(mode, ms);
		forked += pid > 0;
		/* SIG_IGN: waitpid blocks until the child is gone, then ECHILD */
		if (pid > 0 && strcmp(mode, "zombie") != 0)
			waitpid(pid, NULL, 0);
		else if (pid > 0)
			while (kill(pid, 0) == 0 && waitid(P_PID, pid, &(siginfo_t){ 0 },
							   WEXITED | WNOWAIT) != 0)
				;
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	close(p[1]);
	while (read(p[0], &used, sizeof(used)) == (ssize_t)sizeof(used))
		total += used;
	escaped("%d children of %.0f ms CPU each (%s; %d forked, %.0f ms of CPU in all) ran to "
		"the end in %.1f s", n, ms, mode, forked, total * 1000, mono_s() - t0);
}
