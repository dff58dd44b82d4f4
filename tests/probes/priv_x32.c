/*
 * priv_x32 - the x32 syscall ABI (nr | 0x40000000) must be unusable: a
 * filter that ignores the x32 bit would let every denied call through.
 * A seccomp kill ends the probe; an error is BLOCKED; a uid is ESCAPED.
 */
#include "probe.h"

#include <sys/syscall.h>

#ifdef __x86_64__
int main(void)
{
	long rc = syscall(0x40000000L | SYS_getuid);

	if (rc >= 0)
		escaped("x32 getuid returned %ld", rc);
	blocked("x32 getuid failed: %s", errname(errno));
}
#else
/* no x32 ABI here: probes_priv skips the test on this architecture */
int main(void)
{
	probe_error("x32 is an x86_64 ABI");
}
#endif
