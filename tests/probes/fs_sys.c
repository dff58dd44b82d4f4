/* fs_sys - /sys (kernel knobs, host devices) must be absent or mounted read-only. */
#include "probe.h"

#include <sys/statvfs.h>

int main(void)
{
	struct statvfs sv;

	if (statvfs("/sys", &sv) != 0)
		blocked("/sys is absent: %s", errname(errno));
	if (!(sv.f_flag & ST_RDONLY))
		escaped("/sys is mounted read-write");
	if (access("/sys/kernel", F_OK) == 0 && statvfs("/sys/kernel", &sv) == 0 &&
	    !(sv.f_flag & ST_RDONLY))
		escaped("/sys/kernel is mounted read-write");
	blocked("/sys is read-only");
}
