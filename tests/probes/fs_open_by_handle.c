/*
 * fs_open_by_handle - open_by_handle_at(2) must fail: with a forged or
 * leaked handle it opens any inode of a mounted fs, ignoring the mount
 * view (the "shocker" Docker breakout, 2014).
 */
#include "probe.h"

#include <fcntl.h>

int main(void)
{
	struct {
		struct file_handle fh;
		unsigned char data[MAX_HANDLE_SZ];
	} h;
	int mount_id, mfd = open("/", O_RDONLY | O_DIRECTORY);

	if (mfd < 0)
		probe_error("open /: %s", errname(errno));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, "/", &h.fh, &mount_id, 0) != 0) {
		/* A forged handle: the shocker attack brute-forces these. */
		h.fh.handle_bytes = 8;
		h.fh.handle_type = 1;
		memset(h.data, 0, 8);
		h.data[0] = 2; /* inode 2: the root of ext4 */
	}
	int fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	if (fd >= 0)
		escaped("open_by_handle_at opened an inode by handle");
	blocked("open_by_handle_at failed: %s", errname(errno));
}
