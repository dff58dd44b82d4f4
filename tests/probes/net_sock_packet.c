/*
 * net_sock_packet - socket(AF_INET, SOCK_PACKET) must not become a packet
 * socket.  The kernel turns this obsolete pair into an AF_PACKET socket
 * after seccomp saw family AF_INET, past the family rule; the filter
 * refuses the type (ESOCKTNOSUPPORT, which the kernel itself never answers
 * here).  Success, or EPERM from AF_PACKET's CAP_NET_RAW check, means the
 * call reached AF_PACKET's create code.
 */
#include "probe.h"

#include <sys/socket.h>

int main(void)
{
	int s = socket(AF_INET, SOCK_PACKET, 0);

	if (s >= 0)
		escaped("socket(AF_INET, SOCK_PACKET) made a packet socket");
	if (errno != ESOCKTNOSUPPORT)
		escaped("socket(AF_INET, SOCK_PACKET) reached AF_PACKET: %s", errname(errno));
	blocked("socket(AF_INET, SOCK_PACKET): %s", errname(errno));
}
