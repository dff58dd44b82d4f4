/*
 * test_probes_network.c - network isolation probes: with network NONE
 * nothing leaves the jail, not even to the host's
 * loopback or abstract unix sockets.  Judged from outside too: elapsed
 * time, and what the host listeners received.
 */
#include "test_probes_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

TestSuite(probes_network, .init = probes_require_jail);

/* A TCP listener on the host's 127.0.0.1 (non-blocking); returns the fd, *port set. */
static int host_listener(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 8) == 0,
		  "host listener: %s", strerror(errno));
	getsockname(fd, (struct sockaddr *)&sa, &len);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Nothing may have connected to a host listener. */
static void expect_no_connection(int fd, const char *what)
{
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	cr_assert(c < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
		  "the host %s received a connection from the jail", what);
	close(fd);
}

/* Attack: exfiltration or C2 over the internet from jailed code. */
Test(probes_network, tcp_connect_to_internet_fails_at_once)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_tcp_connect", NULL);
	expect_blocked(&r);
	expect_errno(&r, "ENETUNREACH", "EPERM");
	cr_expect(r.elapsed_s < 1.0, "took %.3f s: a connect that hangs is a route that exists", r.elapsed_s);
	sbx_result_free(&r);
}

/* Attack: the same over IPv6, which filters written for IPv4 forget. */
Test(probes_network, tcp6_connect_to_internet_fails_at_once)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_tcp6_connect", NULL);
	expect_blocked(&r);
	cr_expect(r.elapsed_s < 1.0, "took %.3f s", r.elapsed_s);
	sbx_result_free(&r);
}

/* Attack: exfiltration in a UDP datagram (DNS tunnelling). */
Test(probes_network, udp_sendto_internet_fails_at_once)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_udp_sendto", NULL);
	expect_blocked(&r);
	expect_errno(&r, "ENETUNREACH", "EPERM");
	cr_expect(r.elapsed_s < 1.0, "took %.3f s", r.elapsed_s);
	sbx_result_free(&r);
}

/* Attack: name resolution as a side channel (and a sign a resolver is reachable). */
Test(probes_network, dns_lookup_fails_at_once)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_dns.py", NULL);
	expect_blocked(&r);
	cr_expect(r.elapsed_s < 2.0, "took %.3f s", r.elapsed_s);
	sbx_result_free(&r);
}

/* Attack: using a host interface (eth0, docker0) directly: the namespace must hold only lo. */
Test(probes_network, only_lo_is_visible)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_ifaces", NULL);
	expect_blocked(&r);
	sbx_result_free(&r);
}

/* Attack: reaching a host service on 127.0.0.1 (databases, dev servers, metadata proxies). */
Test(probes_network, host_loopback_listener_is_unreachable)
{
	struct sbx_result r;
	int port, fd = host_listener(&port);
	char *p = xasprintf("%d", port);

	run_probe(&r, NULL, NULL, "net_host_loopback", SBX_ARGV(p));
	expect_blocked(&r);
	expect_no_connection(fd, "127.0.0.1 listener");
	free(p);
	sbx_result_free(&r);
}

/* Attack: the jail's own loopback (--net loopback) must still not be the host's. */
Test(probes_network, host_loopback_listener_is_unreachable_with_net_loopback)
{
	struct sbx_result r;
	int port, fd = host_listener(&port);
	char *p = xasprintf("%d", port);

	run_probe(&r, NULL, SBX_ARGV("--net", "loopback"), "net_host_loopback", SBX_ARGV(p));
	expect_blocked(&r);
	expect_errno(&r, "ECONNREFUSED", NULL);
	expect_no_connection(fd, "127.0.0.1 listener");
	free(p);
	sbx_result_free(&r);
}

/* Attack: host abstract unix sockets (X11 @/tmp/.X11-unix/X0, D-Bus) need no filesystem path. */
Test(probes_network, host_abstract_unix_socket_is_unreachable)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sbx_result r;
	char *name = xasprintf("sbx-probe-%d", (int)getpid());
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path + 1, name, strlen(name));
	cr_assert(bind(fd, (struct sockaddr *)&sa,
		       offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name)) == 0 &&
		  listen(fd, 8) == 0, "abstract listener: %s", strerror(errno));
	run_probe(&r, NULL, NULL, "net_abstract_unix", SBX_ARGV(name));
	expect_blocked(&r);
	expect_no_connection(fd, "abstract socket");
	free(name);
	sbx_result_free(&r);
}

/* Attack: forging packets or sniffing with a raw IP socket (CAP_NET_RAW). */
Test(probes_network, raw_socket_fails)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_raw_socket", NULL);
	expect_blocked(&r);
	sbx_result_free(&r);
}

/* Attack: link-layer sniffing and injection with AF_PACKET. */
Test(probes_network, packet_socket_fails)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "net_packet_socket", NULL);
	expect_blocked(&r);
	sbx_result_free(&r);
}
