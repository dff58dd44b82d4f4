/* fs_chroot - chroot(2) (the classic chroot-escape building block) must fail. */
#include "probe.h"

#include <sys/wait.h>

int main(void)
{
	/* Done in a child, so that a chroot that wrongly works bare changes nothing here. */
	pid_t pid = fork();
	int status;

	if (pid < 0)
		probe_error("fork: %s", errname(errno));
	if (pid == 0)
		_exit(chroot("/") == 0 ? 0 : errno);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		escaped("chroot(\"/\") succeeded");
	if (!WIFEXITED(status))
		blocked("chroot killed the caller (signal %d)", WTERMSIG(status));
	blocked("chroot failed: %s", errname(WEXITSTATUS(status)));
}
