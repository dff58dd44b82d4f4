/*
 * fs_inotify_host - watch a directory every jail shares with the host
 * (/usr/bin, bound read-only).  A watch there sees the host's activity:
 * an IN_OPEN of /usr/bin/sudo each time the host runs it, an IN_ACCESS
 * when another jail runs python3, so it is a view of the host and a
 * channel between concurrent jails.  Any working watch is an escape.
 */
#include "probe.h"

#include <sys/inotify.h>

int main(void)
{
	int fd = inotify_init1(IN_CLOEXEC);

	if (fd < 0)
		blocked("inotify_init1: %s", errname(errno));
	if (inotify_add_watch(fd, "/usr/bin", IN_OPEN | IN_ACCESS) < 0)
		blocked("inotify_add_watch(/usr/bin): %s", errname(errno));
	escaped("a watch on the host's /usr/bin works");
}
