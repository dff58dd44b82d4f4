/*
 * res_tmpfs_fill DIR MIB [HOLD_MS [WAIT_MS]] - files in a tmpfs live in
 * RAM: filling DIR (a tmpfs) with MIB MiB and holding them must count
 * against memory_mb.  A write error (ENOSPC at the tmpfs size) is BLOCKED;
 * holding all of it for HOLD_MS (default 2000) unstopped is ESCAPED.
 * WAIT_MS (default 0) before writing: files written after the meter's first
 * look, just before the exit (the files stay), are held memory too.
 */
#include "probe.h"

#include <fcntl.h>
#include <signal.h>

int main(int argc, char **argv)
{
	static char chunk[1 << 20];
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	long mib = argc > 2 ? atol(argv[2]) : 100, written = 0;
	int hold_ms = argc > 3 ? atoi(argv[3]) : 2000, wait_ms = argc > 4 ? atoi(argv[4]) : 0;
	char path[256];

	signal(SIGXFSZ, SIG_IGN);
	memset(chunk, 'x', sizeof(chunk));
	usleep((useconds_t)wait_ms * 1000);
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
	usleep((useconds_t)hold_ms * 1000);
	escaped("held %ld MiB in %s for %d ms", written >> 20, dir, hold_ms);
}
