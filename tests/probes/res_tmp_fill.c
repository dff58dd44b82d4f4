/* res_tmp_fill - writing 21 MiB to /tmp (a 20 MiB tmpfs) must fail with ENOSPC: /tmp is not a way to eat host RAM/disk. */
#include "probe.h"

#include <fcntl.h>
#include <signal.h>

int main(void)
{
	static char chunk[1 << 20];
	char path[64];
	long written = 0;

	signal(SIGXFSZ, SIG_IGN); /* so that a file-size limit shows as EFBIG, named in the verdict */
	snprintf(path, sizeof(path), "/tmp/sbx-probe-fill-%d", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		probe_error("create %s: %s", path, errname(errno));
	memset(chunk, 'x', sizeof(chunk));
	while (written < 21L << 20) {
		ssize_t n = write(fd, chunk, sizeof(chunk));
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;
			unlink(path);
			blocked("write stopped after %ld bytes: %s", written, errname(e));
		}
		written += n;
	}
	unlink(path);
	escaped("wrote %ld bytes to /tmp", written);
}
