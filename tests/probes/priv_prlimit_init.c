/*
 * priv_prlimit_init - pid 1's limits must stay out of reach: the kernel
 * lets a process of the same uid change another's (dumpable or not), and
 * a lowered hard RLIMIT_CPU gets the jail's init killed mid-run.  The probe
 * writes init's current CPU limit back unchanged, harmless wherever it runs.
 */
#include "probe.h"

#include <sys/resource.h>

int main(void)
{
	struct rlimit cur;

	if (prlimit(1, RLIMIT_CPU, NULL, &cur) != 0)
		blocked("reading pid 1's RLIMIT_CPU: %s", errname(errno));
	if (prlimit(1, RLIMIT_CPU, &cur, NULL) == 0)
		escaped("prlimit(1, RLIMIT_CPU) set pid 1's limit");
	blocked("prlimit(1, RLIMIT_CPU): %s", errname(errno));
}
