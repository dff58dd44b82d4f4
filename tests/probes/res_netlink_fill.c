/*
 * res_netlink_fill [PROCS] [SOCKETS] [HOLD_MS] - memory pinned in netlink
 * receive queues: PROCS processes (default 8) each open SOCKETS (default
 * 200) NETLINK_ROUTE sockets, the one netlink protocol the filter allows,
 * and ask the kernel for link 1 until each queue overflows, never reading
 * the replies.  Holding them HOLD_MS (default 2000) unstopped is ESCAPED.
 */
#include "hold_common.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

/* Replies queued in SOCKS new sockets, each asked until it overflows. */
static long fill(int socks)
{
	struct { struct nlmsghdr h; struct ifinfomsg i; } req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST },
		.i = { .ifi_index = 1 },
	};
	long n = 0;

	for (int k = 0; k < socks; k++) {
		int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), err = 0;
		socklen_t len = sizeof(err);

		if (s < 0)
			break;
		/* the first reply the queue drops sets ENOBUFS on the socket */
		for (int i = 0; i < 1000 && send(s, &req, sizeof(req), 0) == (ssize_t)sizeof(req) &&
				getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0; i++)
			n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 8, socks = argc > 2 ? atoi(argv[2]) : 200;
	int hold_ms = argc > 3 ? atoi(argv[3]) : 2000;
	pid_t kids[HOLD_MAX_PROCS];
	long total = hold_fork(procs, fill, socks, kids);

	if (total == 0)
		probe_error("no netlink reply was queued");
	hold_end(procs, kids, hold_ms);
	escaped("%d processes held %ld netlink replies unread for %d ms", procs, total, hold_ms);
}
