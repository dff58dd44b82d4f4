/*
 * priv_kexec_load - kexec_load(2) (boot another kernel) must fail.  Bad
 * flags keep it harmless bare: the kernel checks CAP_SYS_BOOT first
 * (EPERM), so EINVAL means the call passed the privilege check.
 */
#include "probe.h"

#include <sys/syscall.h>

int main(void)
{
	long rc = syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0x7fff0000UL);

	if (rc == 0)
		escaped("kexec_load succeeded");
	if (errno == EINVAL || errno == EBUSY)
		escaped("kexec_load passed the privilege check: %s", errname(errno));
	blocked("kexec_load failed: %s", errname(errno));
}
