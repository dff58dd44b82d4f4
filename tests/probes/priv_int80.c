/*
 * priv_int80 - the i386 syscall ABI (int 0x80) must be unusable: a
 * filter written for x86_64 numbers would not match i386 numbers.  The
 * probe calls i386 getuid32 (199); a seccomp kill ends the probe (the
 * record then says seccomp), an error return is BLOCKED, a uid is ESCAPED.
 */
#include "probe.h"

#ifdef __x86_64__
int main(void)
{
	long rc = 199;

	fflush(stdout);
	__asm__ volatile("int $0x80" : "+a"(rc) : : "memory");
	if (rc >= 0)
		escaped("int 0x80 getuid32 returned %ld", rc);
	blocked("int 0x80 getuid32 failed: %s", errname((int)-rc));
}
#else
/* no i386 ABI here: probes_priv skips the test on this architecture */
int main(void)
{
	probe_error("int 0x80 is an x86_64 probe");
}
#endif
