/*
 * res_mem_shared [PROCS] [MIB] [SECS] - one region of MIB MiB (default 64)
 * touched once, then shared after fork() by PROCS children (default 30)
 * for SECS seconds (default 3): their resident sizes add up far past any
 * small memory limit while the memory is held once, so the meter must
 * read every child's smaps_rollup, a page-table walk, at every sample.
 * An attack on the supervisor's own CPU, not on the jail's limits: the
 * verdict is BLOCKED; the test judges what the supervisor spent.
 */
#include "probe.h"

#include <sys/mman.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 30;
	long mib = argc > 2 ? atol(argv[2]) : 64;
	int secs = argc > 3 ? atoi(argv[3]) : 3;
	char *p;

	if (procs > 64)
		procs = 64;
	p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		probe_error("mmap of %ld MiB: %s", mib, strerror(errno));
	memset(p, 1, mib << 20);
	for (int i = 0; i < procs; i++) {
		if (fork() == 0) {
			sleep(secs);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	blocked("%d processes shared %ld MiB for %d s", procs, mib, secs);
}
