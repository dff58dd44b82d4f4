/*
 * res_tmpfs_fill DIR MIB - files in a tmpfs live in RAM: filling DIR (a
 * tmpfs) with MIB MiB and holding them must count against memory_mb.  A
 * write error (ENOSPC at the tmpfs size) is BLOCKED; holding all of it for
 * two seconds unstopped is ESCAPED.
 */
#include "probe.h"

#include <fcntl.h>
#include <signal.h>

int main(int argc, char **argv)
{
	static char chunk[1 << 20];
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	long mib = argc > 2 ? atol(argv[2]) : 100, written = 0;
	char path[256];

	signal(SIGXFSZ, SIG_IGN);
	memset(chunk, 'x', sizeof(chunk));
	/* files of at most 32 MiB each: file_size_mb must not be what stops us */
	for (int f = 0; written < mib << 20; f++) {
		snprintf(path, sizeof(path), "%s/sbx-probe-fill-%d-%d", dir, (int)getpid(), f);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0)
			probe_error("create %s: %s", path, errname(errno));
		for (int i = 0; i < 32 && written < mib << 20; i++) {
			ssize_t n = write(fd, chunk, sizeof(chunk));
			if (n <= 0)
				blocked("write stopped after %ld MiB: %s", written >> 20,
					errname(n < 0 ? errno : ENOSPC));
			written += n;
		}
		close(fd);
	}
	sleep(2);
	escaped("held %ld MiB in %s for 2 s", written >> 20, dir);
}
