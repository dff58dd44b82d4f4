/*
 * fs_pivot_root - pivot_root(2) must fail before it looks at its
 * arguments.  Nonexistent paths keep it harmless when run bare as root:
 * the kernel checks CAP_SYS_ADMIN first (EPERM), so ENOENT means the call
 * got past that check, i.e. it could have swapped the root.
 */
#include "probe.h"

#include <sys/syscall.h>

int main(void)
{
	long rc = syscall(SYS_pivot_root, "/sbx-probe-nonexistent-new", "/sbx-probe-nonexistent-old");

	if (rc == 0)
		escaped("pivot_root succeeded");
	if (errno == ENOENT)
		escaped("pivot_root passed the privilege check (it failed only on the path: ENOENT)");
	blocked("pivot_root failed: %s", errname(errno));
}
