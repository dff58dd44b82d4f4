/*
 * sockmem.c - sum the queued memory of a network namespace's unix sockets
 * through sock_diag (UNIX_DIAG_MEMINFO: SK_MEMINFO_WMEM_ALLOC holds the
 * truesize of what a sender queued, whichever peer holds it), and of its
 * netlink sockets through its /proc/net/netlink.
 */
#include "supervise/sockmem.h"
#include "base/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/tcp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

bool sockmem_is_diag(int fd)
{
	int domain = 0, proto = 0;
	socklen_t len = sizeof(domain);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
		return false;
	len = sizeof(proto);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) != 0)
		return false;
	return domain == AF_NETLINK && proto == NETLINK_SOCK_DIAG;
}

static uint32_t dump_seq;

static int send_dump(int fd)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} msg;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	memset(&msg, 0, sizeof(msg));
	msg.nlh.nlmsg_len = sizeof(msg);
	msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	msg.nlh.nlmsg_seq = ++dump_seq;
	msg.req.sdiag_family = AF_UNIX;
	msg.req.udiag_states = ~0U;
	msg.req.udiag_show = UDIAG_SHOW_MEMINFO | UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN;
	return sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&nl, sizeof(nl)) ==
			       (ssize_t)sizeof(msg) ? 0 : -1;
}

/* The most a closed writer can have queued: SO_SNDBUF is capped at twice
 * net.core.wmem_max without CAP_NET_ADMIN (read once; the host's value). */
static uint64_t max_sndbuf(void)
{
	static uint64_t bytes;
	char text[32];
	ssize_t n;
	int fd cleanup_fd = -1;

	if (bytes)
		return bytes;
	bytes = 2 * 212992; /* the kernel's default wmem_max */
	fd = open("/proc/sys/net/core/wmem_max", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (n = read(fd, text, sizeof(text) - 1)) > 0) {
		text[n] = '\0';
		if (strtoull(text, NULL, 10) > 0 && strtoull(text, NULL, 10) < (1ULL << 40))
			bytes = 2 * strtoull(text, NULL, 10);
	}
	return bytes;
}

/* Bytes allocated by one socket's queues, from its diag message. */
static uint64_t one_socket(const struct nlmsghdr *h)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));
	const struct rtattr *a = (const struct rtattr *)(m + 1);
	uint64_t mem = 0, rqueue = 0;
	bool peer_gone = false, has_peer = false;

	for (; len > 0 && RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		const uint32_t *v = RTA_DATA(a);

		if (a->rta_type == UNIX_DIAG_MEMINFO &&
		    RTA_PAYLOAD(a) >= (int)((SK_MEMINFO_WMEM_ALLOC + 1) * sizeof(uint32_t)))
			mem = (uint64_t)v[SK_MEMINFO_WMEM_ALLOC] + v[SK_MEMINFO_RMEM_ALLOC];
		else if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= (int)sizeof(uint32_t))
			has_peer = true, peer_gone = v[0] == 0; /* a closed peer has no inode */
		else if (a->rta_type == UNIX_DIAG_RQLEN &&
			 RTA_PAYLOAD(a) >= (int)sizeof(struct unix_diag_rqlen))
			rqueue = ((const struct unix_diag_rqlen *)v)->udiag_rqueue;
	}
	/* What a writer queued is charged to the writer, and a closed writer
	 * is in no dump: 200 such queues held 400 MiB under --memory 64M.
	 * Its size (payload, not the kernel's larger truesize) is not known:
	 * charge the most a writer can queue. */
	if (peer_gone && rqueue > 0)
		mem += rqueue > max_sndbuf() ? rqueue : max_sndbuf();
	/* a listener's pending connections: the bytes their clients wrote sit
	 * in sockets no dump lists (100 held 784 MiB under --memory 64M);
	 * RQLEN's rqueue is their number; each counts as the most a writer
	 * can queue */
	else if (m->udiag_state == TCP_LISTEN)
		mem += rqueue * max_sndbuf();
	/* an unconnected datagram receiver: one datagram (net.c), whose
	 * senders may be closed; its length is the queue's */
	else if (!has_peer && m->udiag_type == SOCK_DGRAM)
		mem += rqueue;
	return mem;
}

int64_t sockmem_sockets_used(int fd)
{
	char text[128];
	long long used;
	ssize_t n = fd >= 0 ? pread(fd, text, sizeof(text) - 1, 0) : -1;

	if (n <= 0)
		return -1;
	text[n] = '\0';
	return sscanf(text, "sockets: used %lld", &used) == 1 && used >= 0 ? used : -1;
}

int64_t sockmem_unix_kib(int fd)
{
	static char buf[32768] __attribute__((aligned(4)));
	uint64_t bytes = 0;

	/* what an earlier, failed dump left queued is not this one's */
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	if (send_dump(fd) != 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != dump_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return (int64_t)(bytes / 1024);
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			bytes += one_socket(h);
		}
	}
}

int64_t sockmem_netlink_kib(int fd)
{
	static char buf[16384];
	unsigned long long rmem, wmem, bytes = 0;
	size_t have = 0;
	ssize_t n;

	/* a seq_file: read from the start in order (pread restarts the walk) */
	if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)n;
		buf[have] = '\0';
		/* "sk Eth Pid Groups Rmem Wmem ...": the header does not scan */
		for (; (nl = strchr(line, '\n')); line = nl + 1)
			if (sscanf(line, "%*s %*d %*u %*x %llu %llu", &rmem, &wmem) == 2)
				bytes += rmem + wmem;
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
	}
	return n < 0 ? -1 : (int64_t)(bytes / 1024);
}
