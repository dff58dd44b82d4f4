/* net_raw_socket - AF_INET SOCK_RAW (needs CAP_NET_RAW: packet forging, sniffing) must fail. */
#include "probe.h"

#include <netinet/in.h>
#include <sys/socket.h>

int main(void)
{
	expect_refused(socket(AF_INET, SOCK_RAW, IPPROTO_ICMP), "socket(AF_INET, SOCK_RAW)");
}
