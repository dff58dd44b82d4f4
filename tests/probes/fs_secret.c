/*
 * fs_secret PATH... - host files the policy does not mount (a secret the
 * test plants in a temp dir or in $HOME) must not exist inside: ENOENT,
 * not merely EACCES.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;

	if (argc < 2)
		probe_error("usage: fs_secret PATH...");
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd >= 0) {
			char buf[64] = "";
			(void)!read(fd, buf, sizeof(buf) - 1);
			escaped("read %s: \"%.40s\"", argv[i], buf);
		}
		if (errno != ENOENT || lstat(argv[i], &st) == 0)
			escaped("%s exists inside (open: %s)", argv[i], errname(errno));
	}
	blocked("every path is absent: ENOENT");
}
