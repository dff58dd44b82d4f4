/* net_udp_sendto - a UDP datagram to 8.8.8.8:53 must not be sent. */
#include "net_connect_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(53) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		blocked("socket(AF_INET, SOCK_DGRAM) failed: %s", errname(errno));
	inet_pton(AF_INET, "8.8.8.8", &sa.sin_addr);
	if (sendto(fd, "sbx-probe", 9, 0, (struct sockaddr *)&sa, sizeof(sa)) == 9)
		escaped("sent a UDP datagram to 8.8.8.8:53");
	blocked("sendto 8.8.8.8:53 failed: %s", errname(errno));
}
