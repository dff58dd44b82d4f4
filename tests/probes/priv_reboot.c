/*
 * priv_reboot - reboot(2) must fail.  A wrong magic number keeps it
 * harmless bare: the kernel checks CAP_SYS_BOOT first (EPERM), so EINVAL
 * means the call passed the privilege check.
 */
#include "probe.h"

#include <linux/reboot.h>
#include <sys/syscall.h>

int main(void)
{
	long rc = syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0x12345678, LINUX_REBOOT_CMD_CAD_OFF, NULL);

	if (rc == 0)
		escaped("reboot(CAD_OFF) succeeded");
	if (errno == EINVAL)
		escaped("reboot passed the privilege check (EINVAL for the bad magic)");
	blocked("reboot failed: %s", errname(errno));
}
