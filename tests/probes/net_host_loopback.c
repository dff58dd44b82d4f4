/*
 * net_host_loopback PORT - a listener the test runs on the HOST's
 * 127.0.0.1:PORT must be unreachable; the test also counts what its
 * listener received, which the probe cannot fake.
 */
#include "net_connect_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd;

	if (argc != 2 || atoi(argv[1]) <= 0)
		probe_error("usage: net_host_loopback PORT");
	sa.sin_port = htons(atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		blocked("socket failed: %s", errname(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		blocked("connect to 127.0.0.1:%s failed: %s", argv[1], errname(errno));
	(void)!write(fd, "sbx-probe-was-here\n", 19);
	escaped("connected to the host's 127.0.0.1:%s", argv[1]);
}
