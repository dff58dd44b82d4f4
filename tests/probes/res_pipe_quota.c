/*
 * res_pipe_quota - the jail's pipes are charged to the caller's per-user
 * pipe quota (fs.pipe-user-pages-soft, 64 MiB by default): 120 pipes
 * raised to 1 MiB with F_SETPIPE_SZ took all of it, and every new pipe of
 * the caller on the host got one 8 KiB buffer while the jail held them.
 * The probe raises what it can, says "holding N" on stdout and keeps the
 * pipes until its stdin ends, so the test can make a pipe on the host
 * meanwhile; then its verdict: any pipe past 64 KiB is an escape.
 */
#include "probe.h"

#include <fcntl.h>

#define PIPES 120
#define BIG (1 << 20)
#define DEFAULT_SIZE (64 * 1024)

int main(void)
{
	int raised = 0, first_errno = 0, p[2];
	char c;

	for (int i = 0; i < PIPES; i++) {
		if (pipe(p) != 0)
			probe_error("pipe %d: %s", i, errname(errno));
		close(p[1]); /* the read end alone keeps the pipe and its buffer */
		if (fcntl(p[0], F_SETPIPE_SZ, BIG) > DEFAULT_SIZE)
			raised++;
		else if (!first_errno)
			first_errno = errno;
	}
	printf("holding %d pipes, %d raised to 1 MiB\n", PIPES, raised);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	if (raised > 0)
		escaped("F_SETPIPE_SZ raised %d of %d pipes to 1 MiB", raised, PIPES);
	blocked("F_SETPIPE_SZ to 1 MiB failed on all %d pipes: %s", PIPES, errname(first_errno));
}
