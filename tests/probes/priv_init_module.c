/*
 * priv_init_module - init_module(2) must fail.  The image is garbage, so
 * even bare as root nothing loads: EPERM means refused, while ENOEXEC,
 * EINVAL or EFAULT mean the call got past the privilege check.
 */
#include "probe.h"

#include <sys/syscall.h>

int main(void)
{
	static char image[64] = "not an ELF module";
	long rc = syscall(SYS_init_module, image, sizeof(image), "");

	if (rc == 0)
		escaped("init_module loaded a module");
	if (errno != EPERM && errno != ENOSYS && errno != EACCES)
		escaped("init_module reached the module loader: %s", errname(errno));
	blocked("init_module failed: %s", errname(errno));
}
