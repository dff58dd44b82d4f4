/* fs_write_usr - creating a file under /usr (planting a binary for the host) must fail: EROFS/EACCES. */
#include "probe.h"

#include <fcntl.h>

int main(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/usr/sbx-probe-%d", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		blocked("create %s failed: %s", path, errname(errno));
	close(fd);
	unlink(path);
	escaped("created %s", path);
}
