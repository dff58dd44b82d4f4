/* fd_inherited - only fds 0, 1, 2 may be open at exec: an inherited fd
 * (3<secret, a jobserver, sbx's own pipes) is a channel out, at any number. */
#include "probe.h"

#include <dirent.h>
#include <fcntl.h>

/* Every open fd above 2, listed in EXTRA; the count.  /proc/self/fd sees
 * every number, whatever this process's own nofile limit (an fd inherited
 * above it stays open); at EMFILE, where no directory opens, F_GETFD over
 * the whole range the kernel allows (fs.nr_open's default). */
static int extra_fds(char *extra, size_t len)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d) {
		for (long fd = 3; fd < (1L << 20); fd++)
			if (fcntl((int)fd, F_GETFD) >= 0) {
				n++;
				snprintf(extra + strlen(extra), len - strlen(extra), "%ld ", fd);
			}
		return n;
	}
	while ((e = readdir(d))) {
		long fd = strtol(e->d_name, NULL, 10);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd <= 2 || fd == dirfd(d))
			continue;
		n++;
		snprintf(extra + strlen(extra), len - strlen(extra), "%ld ", fd);
	}
	closedir(d);
	return n;
}

int main(void)
{
	char extra[512] = "";
	int n = extra_fds(extra, sizeof(extra));

	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			probe_error("fd %d is not open (stdio must be /dev/null or pipes, never closed)", fd);
	if (n)
		escaped("%d extra fds are open: %s", n, extra);
	blocked("only fds 0, 1, 2 are open");
}
