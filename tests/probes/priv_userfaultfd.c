/* priv_userfaultfd - userfaultfd(2) must fail: it stalls the kernel mid-copy, widening race exploits. */
#include "probe.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/syscall.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

int main(void)
{
	/* User-mode-only is what an unprivileged process may ask for bare. */
	expect_refused(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY), "userfaultfd");
}
