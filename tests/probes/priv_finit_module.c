/* priv_finit_module - finit_module(2) must fail; /dev/null as the image keeps it harmless bare (see priv_init_module). */
#include "probe.h"

#include <fcntl.h>
#include <sys/syscall.h>

int main(void)
{
	int fd = open("/dev/null", O_RDONLY);
	long rc = syscall(SYS_finit_module, fd, "", 0);

	if (rc == 0)
		escaped("finit_module loaded a module");
	if (errno != EPERM && errno != ENOSYS && errno != EACCES)
		escaped("finit_module reached the module loader: %s", errname(errno));
	blocked("finit_module failed: %s", errname(errno));
}
