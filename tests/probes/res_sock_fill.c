/*
 * res_sock_fill [PROCS] [PAIRS] [HOLD_MS [WAIT_MS]] - memory pinned in
 * AF_UNIX socket buffers: PROCS processes (default 30) each open PAIRS
 * socketpairs (default 100), grow each send buffer to the most allowed and
 * fill it without reading.  The bytes queued live in kernel memory that no
 * process's RSS shows.  Holding them HOLD_MS (default 2000) unstopped is
 * ESCAPED (with the total queued).  WAIT_MS (default 0) before starting: a
 * burst after the meter's first look, held briefly, is one that a meter
 * counting the queues only now and then misses.
 */
#include "hold_common.h"

#include <fcntl.h>
#include <sys/socket.h>

static long fill(int pairs)
{
	static char chunk[65536];
	long queued = 0;

	for (int i = 0; i < pairs; i++) {
		int sv[2], big = 1 << 30;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			break;
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
		for (;;) {
			ssize_t n = write(sv[0], chunk, sizeof(chunk));
			if (n <= 0)
				break;
			queued += n;
		}
	}
	return queued;
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 30, pairs = argc > 2 ? atoi(argv[2]) : 100;
	int hold_ms = argc > 3 ? atoi(argv[3]) : 2000, wait_ms = argc > 4 ? atoi(argv[4]) : 0;
	pid_t kids[HOLD_MAX_PROCS];
	long total;

	usleep((useconds_t)wait_ms * 1000);
	total = hold_fork(procs, fill, pairs, kids);
	hold_end(procs, kids, hold_ms);
	escaped("%d processes held %ld MiB in unix socket buffers for %d ms", procs, total >> 20,
		hold_ms);
}
