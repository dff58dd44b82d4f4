/*
 * fs_write_hostname - writing /proc/sys/kernel/hostname must fail
 * (EROFS/EACCES: /proc is read-only).  It writes back the CURRENT name,
 * so that running it bare as root changes nothing.
 */
#include "probe.h"

#include <fcntl.h>

int main(void)
{
	char name[256] = "";
	int fd = open("/proc/sys/kernel/hostname", O_RDONLY);

	if (fd < 0 || read(fd, name, sizeof(name) - 1) <= 0)
		probe_error("cannot read the current hostname: %s", errname(errno));
	close(fd);
	fd = open("/proc/sys/kernel/hostname", O_WRONLY);
	if (fd < 0)
		blocked("open /proc/sys/kernel/hostname for writing failed: %s", errname(errno));
	if (write(fd, name, strlen(name)) < 0)
		blocked("write /proc/sys/kernel/hostname failed: %s", errname(errno));
	escaped("wrote /proc/sys/kernel/hostname");
}
