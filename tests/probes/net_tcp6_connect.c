/* net_tcp6_connect - outbound TCP over IPv6 to [2606:4700:4700::1111]:443 must fail locally. */
#include "net_connect_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>

int main(void)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(443) };

	inet_pton(AF_INET6, "2606:4700:4700::1111", &sa.sin6_addr);
	try_connect(AF_INET6, (struct sockaddr *)&sa, sizeof(sa), "[2606:4700:4700::1111]:443");
}
