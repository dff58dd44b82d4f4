/*
 * net_abstract_unix NAME - a host abstract unix socket (@NAME, as X11 and
 * D-Bus use) must be unreachable: abstract names live in the network
 * namespace, not in the filesystem.
 */
#include "probe.h"

#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n;
	int fd;

	if (argc != 2 || (n = strlen(argv[1])) == 0 || n + 1 > sizeof(sa.sun_path))
		probe_error("usage: net_abstract_unix NAME (without the @)");
	memcpy(sa.sun_path + 1, argv[1], n);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		blocked("socket(AF_UNIX) failed: %s", errname(errno));
	if (connect(fd, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + 1 + n) != 0)
		blocked("connect to @%s failed: %s", argv[1], errname(errno));
	(void)!write(fd, "sbx-probe-was-here\n", 19);
	escaped("connected to the host's abstract socket @%s", argv[1]);
}
