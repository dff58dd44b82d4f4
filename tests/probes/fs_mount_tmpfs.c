/* fs_mount_tmpfs - mount(2) of a fresh tmpfs must fail (mount is the first step of most breakouts). */
#include "mount_common.h"

int main(void)
{
	const char *dir = make_scratch();

	if (mount("none", dir, "tmpfs", 0, "size=1m") == 0)
		mounted("mount tmpfs");
	not_mounted("mount tmpfs", errno);
}
