/* priv_ptrace_traceme - PTRACE_TRACEME then PEEKDATA by the parent (ptrace the other way round) must fail. */
#include "probe.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static volatile long secret = 0x5b5b5b5bL;

int main(void)
{
	int p[2], status;
	char c = 'n';

	if (pipe(p) != 0)
		probe_error("pipe: %s", errname(errno));
	pid_t pid = fork();
	if (pid == 0) {
		c = ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 'y' : 'n';
		int e = errno;
		(void)!write(p[1], &c, 1);
		if (c == 'y')
			raise(SIGSTOP);
		_exit(c == 'y' ? 0 : e);
	}
	if (read(p[0], &c, 1) != 1)
		c = 'n';
	if (c != 'y') {
		waitpid(pid, &status, 0);
		if (WIFSIGNALED(status))
			blocked("PTRACE_TRACEME killed the caller (signal %s)", sigabbrev_np(WTERMSIG(status)));
		blocked("PTRACE_TRACEME failed: %s", errname(WEXITSTATUS(status)));
	}
	waitpid(pid, &status, 0);
	errno = 0;
	long v = ptrace(PTRACE_PEEKDATA, pid, (void *)&secret, NULL);
	int e = errno;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (e == 0 && v == secret)
		escaped("PTRACE_TRACEME worked and the parent read the child's memory");
	blocked("PTRACE_TRACEME worked but PEEKDATA failed: %s", errname(e));
}
