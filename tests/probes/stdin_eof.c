/* stdin_eof - stdin must be at EOF at once and not a terminal (no reading, or injecting into, the caller's tty). */
#include "probe.h"

#include <poll.h>

int main(void)
{
	struct pollfd p = { 0, POLLIN, 0 };
	char buf[64];

	if (isatty(0))
		escaped("stdin is a terminal");
	if (poll(&p, 1, 2000) == 0)
		escaped("stdin is not at EOF: a read would block");
	ssize_t n = read(0, buf, sizeof(buf));
	if (n > 0)
		escaped("stdin holds data: \"%.*s\"", (int)(n > 20 ? 20 : n), buf);
	if (n < 0)
		probe_error("read stdin: %s", errname(errno));
	blocked("stdin is at EOF");
}
