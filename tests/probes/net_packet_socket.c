/* net_packet_socket - AF_PACKET (link-layer sniffing and injection) must fail. */
#include "probe.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <sys/socket.h>

int main(void)
{
	expect_refused(socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)), "socket(AF_PACKET, SOCK_RAW)");
}
