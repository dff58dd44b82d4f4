/* fs_bind_mount - a bind mount (re-exposing a hidden path, or remounting a ro one rw) must fail. */
#include "mount_common.h"

int main(void)
{
	const char *dir = make_scratch();

	if (mount("/", dir, NULL, MS_BIND, NULL) == 0)
		mounted("bind mount of /");
	not_mounted("bind mount of /", errno);
}
