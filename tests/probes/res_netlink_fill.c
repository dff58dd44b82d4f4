/*
 * res_netlink_fill [PROCS] [SOCKETS] [HOLD_MS] - memory pinned in netlink
 * receive queues: PROCS processes (default 8) each open SOCKETS (default
 * 200) NETLINK_ROUTE sockets, the one netlink protocol the filter allows,
 * and ask the kernel for link 1 until each queue overflows, never reading
 * the replies.  Holding them HOLD_MS (default 2000) unstopped is ESCAPED.
 */
#include "probe.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* Replies queued in the unread socket S, asking until it overflows. */
static long fill(int s)
{
	struct { struct nlmsghdr h; struct ifinfomsg i; } req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST },
		.i = { .ifi_index = 1 },
	};
	int err = 0;
	socklen_t len = sizeof(err);
	long n = 0;

	/* the first reply the queue drops sets ENOBUFS on the socket */
	while (n < 1000 && send(s, &req, sizeof(req), 0) == (ssize_t)sizeof(req) &&
	       getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 8, socks = argc > 2 ? atoi(argv[2]) : 200;
	int hold_ms = argc > 3 ? atoi(argv[3]) : 2000;
	int p[2];
	long total = 0, got;
	pid_t kids[256];

	if (pipe(p) != 0)
		probe_error("pipe: %s", errname(errno));
	if (procs > 256)
		procs = 256;
	for (int i = 0; i < procs; i++) {
		if ((kids[i] = fork()) == 0) {
			got = 0;
			for (int k = 0; k < socks; k++) {
				int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
				if (s < 0)
					break;
				got += fill(s);
			}
			(void)!write(p[1], &got, sizeof(got));
			pause();
			_exit(0);
		}
	}
	for (int i = 0; i < procs && read(p[0], &got, sizeof(got)) == sizeof(got); i++)
		total += got;
	if (total == 0)
		probe_error("no netlink reply was queued");
	usleep((useconds_t)hold_ms * 1000);
	for (int i = 0; i < procs; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	escaped("%d processes held %ld netlink replies unread for %d ms", procs, total, hold_ms);
}
