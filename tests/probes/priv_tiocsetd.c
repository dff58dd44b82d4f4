/*
 * priv_tiocsetd - ioctl(TIOCSETD) (switch a tty's line discipline) must be
 * filtered: n_gsm and n_hdlc races were local root exploits, and with
 * dev.tty.ldisc_autoload=1 (the default) any caller loads their modules.
 * Off a tty the kernel answers ENOTTY anyway, so only EPERM (the filter)
 * is BLOCKED.  On a tty the probe asks for the discipline it already has
 * (TIOCGETD), which the kernel treats as a no-op.
 */
#include "probe.h"

#include <sys/ioctl.h>

int main(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int ldisc = 0; /* N_TTY */

		ioctl(fd, TIOCGETD, &ldisc);
		if (ioctl(fd, TIOCSETD, &ldisc) == 0)
			escaped("TIOCSETD on fd %d succeeded", fd);
		if (errno != EPERM && errno != EBADF)
			escaped("TIOCSETD on fd %d reached the tty layer: %s", fd, errname(errno));
	}
	blocked("TIOCSETD filtered: %s", errname(EPERM));
}
