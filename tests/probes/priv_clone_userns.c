/* priv_clone_userns - clone(CLONE_NEWUSER) (the other way into a nested userns) must fail. */
#include "child_common.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

static int attempt(void)
{
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	waitpid((pid_t)pid, NULL, 0);
	return 0;
}

int main(void)
{
	attempt_in_child(attempt, "clone(CLONE_NEWUSER)");
}
