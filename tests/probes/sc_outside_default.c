/*
 * sc_outside_default - set_mempolicy(2), a call in no @group and outside
 * @default: the default policy refuses it (ENOSYS); a policy that allows
 * it by name, such as one `sbx learn` printed, lets it run.  For the learn
 * tests this is the call a trial run must discover.
 */
#include "probe.h"

#include <sys/syscall.h>

#define MPOL_DEFAULT 0

int main(void)
{
	if (syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0) == 0)
		escaped("set_mempolicy(MPOL_DEFAULT) ran");
	blocked("set_mempolicy refused: %s", strerror(errno));
}
