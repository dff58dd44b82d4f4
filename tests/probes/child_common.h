/*
 * child_common.h - run one attempt in a child, so that an attempt that
 * wrongly succeeds bare (sanity mode) changes nothing in the probe, and a
 * seccomp kill of the attempt is reported instead of ending the probe.
 */
#ifndef SBX_CHILD_COMMON_H
#define SBX_CHILD_COMMON_H

#include "probe.h"

#include <sys/wait.h>

/* FN returns 0 on success or an errno; never returns. */
__attribute__((noreturn))
static inline void attempt_in_child(int (*fn)(void), const char *what)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		probe_error("fork: %s", errname(errno));
	if (pid == 0)
		_exit(fn());
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		blocked("%s killed the caller (signal %s)", what, sigabbrev_np(WTERMSIG(status)));
	if (WEXITSTATUS(status) == 0)
		escaped("%s succeeded", what);
	blocked("%s failed: %s", what, errname(WEXITSTATUS(status)));
}

#endif
