/* net_tcp_connect - outbound TCP to 1.1.1.1:443 must fail locally at once. */
#include "net_connect_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>

int main(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(443) };

	inet_pton(AF_INET, "1.1.1.1", &sa.sin_addr);
	try_connect(AF_INET, (struct sockaddr *)&sa, sizeof(sa), "1.1.1.1:443");
}
