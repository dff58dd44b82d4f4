/*
 * res_sock_orphan [PAIRS] [dgram] - PAIRS unix socketpairs (default 100)
 * in which one end fills the other's receive queue and is then closed:
 * the queued bytes stay, charged to a socket that no sock_diag dump lists
 * any more.  Holding them for two seconds unstopped is ESCAPED.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 100;
	int dgram = argc > 2 && !strcmp(argv[2], "dgram");
	static char buf[65536];
	long total = 0;

	for (int i = 0; i < pairs; i++) {
		int sv[2], sz = 1 << 20;
		ssize_t k;

		if (socketpair(AF_UNIX, dgram ? SOCK_DGRAM : SOCK_STREAM, 0, sv) != 0)
			probe_error("socketpair #%d: %s", i, strerror(errno));
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		fcntl(sv[1], F_SETFL, O_NONBLOCK);
		while ((k = write(sv[1], buf, dgram ? 4096 : sizeof(buf))) > 0)
			total += k;
		close(sv[1]); /* the writer goes; its bytes stay in sv[0]'s queue */
	}
	sleep(2);
	escaped("%d queues whose writer was closed held %ld MiB for 2 s", pairs, total >> 20);
}
