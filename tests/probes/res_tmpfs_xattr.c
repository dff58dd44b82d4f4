/*
 * res_tmpfs_xattr DIR MIB [HOLD_MS] - user.* extended attributes of tmpfs
 * files (Linux 6.6+) are kernel memory that takes no file block: MIB MiB
 * of them in DIR, held HOLD_MS (default 2000) unstopped, is ESCAPED;
 * ENOSPC (the tmpfs's inode space) before that is BLOCKED.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	static char value[60000];
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	long mib = argc > 2 ? atol(argv[2]) : 100, held = 0;
	int hold_ms = argc > 3 ? atoi(argv[3]) : 2000;
	char path[256], name[32];

	memset(value, 'x', sizeof(value));
	for (int f = 0; held < mib << 20; f++) {
		snprintf(path, sizeof(path), "%s/sbx-probe-xattr-%d-%d", dir, (int)getpid(), f);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0)
			blocked("create %s after %ld MiB: %s", path, held >> 20, errname(errno));
		for (int i = 0; i < 16 && held < mib << 20; i++) {
			snprintf(name, sizeof(name), "user.sbx%d", i);
			if (fsetxattr(fd, name, value, sizeof(value), 0) == 0) {
				held += (long)sizeof(value);
				continue;
			}
			if (errno == EOPNOTSUPP)
				probe_error("this tmpfs takes no user xattrs: %s", errname(errno));
			blocked("xattrs stopped after %ld MiB: %s", held >> 20, errname(errno));
		}
		close(fd);
	}
	usleep((useconds_t)hold_ms * 1000);
	escaped("held %ld MiB of xattrs in %s for %d ms", held >> 20, dir, hold_ms);
}
