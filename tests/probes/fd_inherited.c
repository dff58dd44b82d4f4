/* fd_inherited - only fds 0, 1, 2 may be open at exec: an inherited fd (3<secret, a jobserver, sbx's own pipes) is a channel out. */
#include "probe.h"

#include <fcntl.h>
#include <sys/resource.h>

int main(void)
{
	struct rlimit rl;
	char extra[512] = "";
	int n = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	long max = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536 ? 65536 : (long)rl.rlim_cur;
	/* F_GETFD needs no new fd and no /proc: it works at EMFILE too. */
	for (long fd = 0; fd < max; fd++) {
		if (fcntl((int)fd, F_GETFD) < 0)
			continue;
		if (fd > 2) {
			n++;
			snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), "%ld ", fd);
		}
	}
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			probe_error("fd %d is not open (stdio must be /dev/null or pipes, never closed)", fd);
	if (n)
		escaped("%d extra fds are open: %s", n, extra);
	blocked("only fds 0, 1, 2 are open");
}
