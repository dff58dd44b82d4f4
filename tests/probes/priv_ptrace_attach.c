/*
 * priv_ptrace_attach - ptrace(PTRACE_ATTACH) must fail, on pid 1 (the
 * jail's init, which holds the setup) and even on the probe's own child
 * (which any process could trace bare): ptrace is the tool for stealing
 * secrets from, and injecting code into, neighbours.
 */
#include "probe.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int main(void)
{
	if (ptrace(PTRACE_ATTACH, 1, NULL, NULL) == 0)
		escaped("attached to pid 1");
	int e1 = errno;
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	long rc = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
	int e2 = errno;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (rc == 0)
		escaped("attached to our own child %d", (int)pid);
	blocked("PTRACE_ATTACH failed: pid 1: %s; own child: %s", errname(e1), strerrorname_np(e2));
}
