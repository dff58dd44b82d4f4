/*
 * net_netlink_protocol - netlink sockets other than NETLINK_ROUTE must be
 * refused.  NETLINK_SOCK_DIAG loads *_diag modules, NETLINK_GENERIC any
 * genetlink family's module by name, NETLINK_NETFILTER nf_tables (the
 * source of many recent root exploits), all without a privilege check;
 * NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT, NETLINK_CONNECTOR and XFRM are
 * interfaces of host daemons and IPsec.  Any socket made is an escape.
 * NETLINK_ROUTE (getifaddrs) must still work.
 */
#include "probe.h"

#include <linux/netlink.h>
#include <sys/socket.h>

int main(void)
{
	const int protos[] = { NETLINK_USERSOCK, NETLINK_SOCK_DIAG, NETLINK_XFRM,
			       NETLINK_SELINUX, NETLINK_AUDIT, NETLINK_FIB_LOOKUP,
			       NETLINK_CONNECTOR, NETLINK_NETFILTER, NETLINK_KOBJECT_UEVENT,
			       NETLINK_GENERIC, NETLINK_SCSITRANSPORT, NETLINK_RDMA,
			       NETLINK_CRYPTO, NETLINK_SMC };
	int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	if (s < 0)
		probe_error("socket(AF_NETLINK, NETLINK_ROUTE) failed: %s", errname(errno));
	close(s);
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		s = socket(AF_NETLINK, SOCK_RAW, protos[i]);
		if (s >= 0)
			escaped("socket(AF_NETLINK, protocol %d) succeeded", protos[i]);
	}
	blocked("no netlink socket but NETLINK_ROUTE: %s", errname(errno));
}
