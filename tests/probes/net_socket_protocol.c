/*
 * net_socket_protocol - inet sockets of a protocol other than the default,
 * TCP, UDP and ping must be refused.  For a protocol the kernel does not
 * have loaded it runs modprobe (net-pf-2-proto-132 = sctp, dccp, l2tp_ip)
 * for any caller, and the module is then there for every process on the
 * host; built-in ones (UDP-Lite, MPTCP) are attack surface no sandboxed
 * program needs.  Any socket made is an escape.  TCP must still work.
 */
#include "probe.h"

#include <netinet/in.h>
#include <sys/socket.h>

int main(void)
{
	const struct { int type, proto; const char *name; } tries[] = {
		{ SOCK_STREAM, IPPROTO_SCTP, "sctp" },
		{ SOCK_SEQPACKET, IPPROTO_SCTP, "sctp seqpacket" },
		{ 6 /* SOCK_DCCP */, IPPROTO_DCCP, "dccp" },
		{ SOCK_DGRAM, IPPROTO_UDPLITE, "udplite" },
		{ SOCK_STREAM, IPPROTO_MPTCP, "mptcp" },
		{ SOCK_DGRAM, 115 /* IPPROTO_L2TP */, "l2tp" },
	};
	const int fams[] = { AF_INET, AF_INET6 };
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0)
		probe_error("socket(AF_INET, SOCK_STREAM, 0) failed: %s", errname(errno));
	close(s);
	for (size_t f = 0; f < 2; f++)
		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
			s = socket(fams[f], tries[i].type, tries[i].proto);
			if (s >= 0)
				escaped("socket(family %d, %s) succeeded", fams[f], tries[i].name);
		}
	blocked("no inet socket of sctp, dccp, udplite, mptcp or l2tp: %s", errname(errno));
}
