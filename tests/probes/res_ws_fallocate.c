/*
 * res_ws_fallocate - reserving 10 GiB in the workspace (the cwd) must fail
 * (EFBIG from the file-size limit, ENOSPC from a bounded backing, or
 * SIGXFSZ, left at its default so that it kills).  Host disk is at stake.
 */
#include "probe.h"

#include <fcntl.h>

int main(void)
{
	char path[64];

	snprintf(path, sizeof(path), "sbx-probe-falloc-%d", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		probe_error("create %s in the workspace: %s", path, errname(errno));
	fflush(stdout);
	int rc = fallocate(fd, 0, 0, 10L << 30);
	int e = errno;
	unlink(path);
	if (rc == 0)
		escaped("fallocate reserved 10 GiB in the workspace");
	blocked("fallocate 10 GiB failed: %s", errname(e));
}
