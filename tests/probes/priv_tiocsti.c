/*
 * priv_tiocsti - pushing characters into the caller's terminal input with
 * ioctl(TIOCSTI) must fail on fds 0-2 and on /dev/tty (CVE-2017-5226: a
 * jailed program types commands into the shell that started the jail).
 * The injected text is "sbx-tiocsti" + "-injected": the test looks for it
 * in its pty; this program never prints it whole.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/ioctl.h>

static const char inject[] = "sbx-tiocsti" "-injected\n";

static int try_fd(int fd, char *report, size_t n, const char *name)
{
	if (ioctl(fd, TIOCSTI, &inject[0]) == 0) {
		for (const char *c = inject + 1; *c; c++)
			ioctl(fd, TIOCSTI, c);
		return 1;
	}
	snprintf(report + strlen(report), n - strlen(report), "%s: %s; ", name, strerrorname_np(errno));
	return 0;
}

int main(void)
{
	char report[256] = "", name[8];

	for (int fd = 0; fd <= 2; fd++) {
		snprintf(name, sizeof(name), "fd %d", fd);
		if (try_fd(fd, report, sizeof(report), name))
			escaped("TIOCSTI on fd %d injected input", fd);
	}
	int tty = open("/dev/tty", O_RDWR);
	if (tty < 0)
		snprintf(report + strlen(report), sizeof(report) - strlen(report),
			 "/dev/tty: %s", strerrorname_np(errno));
	else if (try_fd(tty, report, sizeof(report), "/dev/tty"))
		escaped("TIOCSTI on /dev/tty injected input");
	blocked("%s", report);
}
