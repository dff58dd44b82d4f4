/*
 * res_sock_orphan [PAIRS] [dgram|bound] - PAIRS unix socketpairs (default
 * 100) in which one end fills the other's receive queue and is then
 * closed: the queued bytes stay, charged to a socket that no sock_diag
 * dump lists any more.  bound: PAIRS bound datagram receivers, each sent
 * ten 4 MB datagrams by ten senders that close at once.  Holding them for
 * two seconds unstopped is ESCAPED.  listen: PAIRS clients connect to
 * one listener, fill their pending connection and close.
 */
#include "probe.h"

#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

/* N receivers bound to abstract names; 10 closed senders each. */
static long bound(int n)
{
	static char big[4000000];
	long total = 0;

	for (int i = 0; i < n; i++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int r = socket(AF_UNIX, SOCK_DGRAM, 0);
		socklen_t len;

		snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "sbx-orphan-%d", i);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
		if (r < 0 || bind(r, (struct sockaddr *)&a, len) != 0)
			probe_error("bound receiver #%d: %s", i, strerror(errno));
		for (int k = 0; k < 10; k++) {
			int w = socket(AF_UNIX, SOCK_DGRAM, 0), sz = 8 << 20;
			ssize_t sent;

			setsockopt(w, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
			sent = sendto(w, big, sizeof(big), MSG_DONTWAIT, (struct sockaddr *)&a, len);
			if (sent > 0)
				total += sent;
			close(w);
		}
	}
	return total;
}

/* N clients of one listener that never accepts; each fills and closes. */
static long pending(int n)
{
	static char buf[65536];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + 14);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	long total = 0;

	memcpy(a.sun_path + 1, "sbx-orphan-lsn", 14);
	if (l < 0 || bind(l, (struct sockaddr *)&a, len) != 0 || listen(l, 4096) != 0)
		probe_error("listener: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		int w = socket(AF_UNIX, SOCK_STREAM, 0), sz = 8 << 20;
		ssize_t k;

		setsockopt(w, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		if (w < 0 || connect(w, (struct sockaddr *)&a, len) != 0)
			probe_error("client #%d: %s", i, strerror(errno));
		fcntl(w, F_SETFL, O_NONBLOCK);
		while ((k = write(w, buf, sizeof(buf))) > 0)
			total += k;
		close(w);
	}
	return total;
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 100;
	int dgram = argc > 2 && !strcmp(argv[2], "dgram");
	static char buf[65536];
	long total = 0;

	if (argc > 2 && !strcmp(argv[2], "bound")) {
		total = bound(pairs);
		sleep(2);
		escaped("%d bound receivers held %ld MiB from closed senders for 2 s", pairs,
			total >> 20);
	}
	if (argc > 2 && !strcmp(argv[2], "listen")) {
		total = pending(pairs);
		sleep(2);
		escaped("%d pending connections of closed clients held %ld MiB for 2 s", pairs,
			total >> 20);
	}
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
