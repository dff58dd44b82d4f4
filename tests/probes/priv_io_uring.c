/* priv_io_uring - io_uring_setup(2) must fail: its operations bypass seccomp and it is a rich bug source. */
#include "probe.h"

#include <linux/io_uring.h>
#include <sys/syscall.h>

int main(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	expect_refused(syscall(SYS_io_uring_setup, 4, &p), "io_uring_setup");
}
