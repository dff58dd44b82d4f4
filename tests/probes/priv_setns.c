/*
 * priv_setns - setns(2) must fail.  The probe tries to join a user
 * namespace its own child made (which works bare as any user); when no
 * such child can exist (unshare is refused too) it tries to join its own
 * user namespace: then EINVAL means the call reached the kernel, i.e. the
 * seccomp rule for setns is missing.
 */
#include "probe.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

static pid_t child_in_new_userns(void)
{
	int p[2];
	char c;

	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		c = unshare(CLONE_NEWUSER) == 0 ? 'y' : 'n';
		(void)!write(p[1], &c, 1);
		pause();
		_exit(0);
	}
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	return pid;
}

int main(void)
{
	char path[64];
	pid_t pid = child_in_new_userns();

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/user");
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		blocked("open %s failed: %s", path, errname(errno));
	int rc = setns(fd, CLONE_NEWUSER), e = errno;
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (rc == 0)
		escaped("setns into %s succeeded", path);
	if (pid < 0 && e == EINVAL)
		escaped("setns reached the kernel (EINVAL for our own userns): not filtered");
	blocked("setns(%s) failed: %s", path, errname(e));
}
