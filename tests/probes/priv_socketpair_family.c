/*
 * priv_socketpair_family - socketpair() of any family but AF_UNIX must be
 * refused before the kernel looks at the family (EAFNOSUPPORT from the
 * filter).  socketpair() creates its two sockets with the family's create
 * code, the same code (and module autoload) that socket()'s family rule
 * closes: AF_VSOCK, AF_PACKET, AF_TIPC, AF_XDP...  Any other answer (even
 * EOPNOTSUPP, "this family has no pairs") means the call reached the
 * family.  A unix pair must still work.
 */
#include "probe.h"

#include <sys/socket.h>

int main(void)
{
	const int fams[] = { AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK,
			     AF_TIPC, AF_XDP, AF_ALG, AF_BLUETOOTH, AF_CAN, AF_KEY };
	const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		probe_error("socketpair(AF_UNIX) failed: %s", errname(errno));
	close(sv[0]);
	close(sv[1]);
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++)
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			if (socketpair(fams[f], types[t], 0, sv) == 0)
				escaped("socketpair(family %d, type %d) made a pair",
					fams[f], types[t]);
			if (errno != EAFNOSUPPORT)
				escaped("socketpair(family %d, type %d) reached the family: %s",
					fams[f], types[t], errname(errno));
		}
	blocked("socketpair of every non-unix family: %s", errname(EAFNOSUPPORT));
}
