/*
 * priv_tioclinux - ioctl(TIOCLINUX) (console selection paste: the same
 * injection as TIOCSTI on a virtual console) must be filtered.  Off a VT
 * the kernel answers EINVAL/ENOTTY anyway, so only EPERM (the filter) is
 * BLOCKED; anything else means the request reached the tty layer.
 */
#include "probe.h"

#include <sys/ioctl.h>

int main(void)
{
	char sub[2] = { 2 /* TIOCL_SETSEL */, 0 };

	for (int fd = 0; fd <= 2; fd++) {
		if (ioctl(fd, TIOCLINUX, sub) == 0)
			escaped("TIOCLINUX on fd %d succeeded", fd);
		if (errno != EPERM && errno != EBADF)
			escaped("TIOCLINUX on fd %d reached the tty layer: %s", fd, errname(errno));
	}
	blocked("TIOCLINUX filtered: EPERM");
}
