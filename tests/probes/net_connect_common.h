/*
 * net_connect_common.h - "does a packet leave the jail?" for the connect
 * and sendto probes.  A refusal before any packet goes out (no route, no
 * socket) is BLOCKED; a connection, a reply, a refusal by the far end or a
 * timeout (the SYN left) is ESCAPED: a route to the outside existed.
 */
#ifndef SBX_NET_CONNECT_COMMON_H
#define SBX_NET_CONNECT_COMMON_H

#include "probe.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

/* errnos that mean "refused locally, nothing was sent". */
static inline int refused_locally(int e)
{
	return e == ENETUNREACH || e == EHOSTUNREACH || e == EPERM ||
	       e == EACCES || e == EAFNOSUPPORT || e == EADDRNOTAVAIL ||
	       e == ENETDOWN;
}

/* Non-blocking connect, bounded by 3 s; does not return. */
static inline void try_connect(int family, const struct sockaddr *sa, socklen_t len,
			       const char *what)
{
	double t0 = mono_s();
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0)
		blocked("socket for %s failed: %s", what, errname(errno));
	if (connect(fd, sa, len) == 0)
		escaped("connected to %s at once", what);
	if (errno != EINPROGRESS) {
		int e = errno;
		if (refused_locally(e))
			blocked("connect to %s failed locally after %.3f s: %s", what,
				mono_s() - t0, errname(e));
		escaped("connect to %s reached a peer: %s", what, errname(e));
	}
	struct pollfd p = { fd, POLLOUT, 0 };
	if (poll(&p, 1, 3000) == 0)
		escaped("connect to %s still in progress after 3 s: a SYN left the jail", what);
	int e = 0;
	socklen_t el = sizeof(e);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
	if (e == 0)
		escaped("connected to %s", what);
	if (refused_locally(e))
		blocked("connect to %s failed locally after %.3f s: %s", what,
			mono_s() - t0, errname(e));
	escaped("connect to %s reached a peer: %s", what, errname(e));
}

#endif
