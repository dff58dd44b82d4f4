/*
 * priv_clone3 - clone3(2) must return ENOSYS: its flags sit in memory
 * where seccomp cannot look, so the filter cannot stop CLONE_NEWUSER in
 * it; ENOSYS makes libc fall back to clone(2), whose flags it can check.
 */
#include "probe.h"

#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(void)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid((pid_t)pid, NULL, 0);
		escaped("clone3 created a process: not filtered");
	}
	if (errno != ENOSYS)
		escaped("clone3 failed with %s, not ENOSYS: libc will not fall back to clone", errname(errno));
	blocked("clone3 failed: %s", errname(errno));
}
