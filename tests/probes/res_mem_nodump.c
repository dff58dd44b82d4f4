/*
 * res_mem_nodump [PROCS] [MIB] - PROCS processes (default 5) that make
 * themselves non-dumpable (so that ptrace-guarded /proc files such as
 * smaps_rollup refuse a reader) and each touch MIB MiB (default 20).
 * Holding it all for two seconds unstopped is ESCAPED (the two seconds
 * start when every child has written all of its memory: under emulation
 * the writes alone took longer than that).
 */
#include "probe.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 5;
	long mib = argc > 2 ? atol(argv[2]) : 20;
	pid_t kids[64];
	int ready[2], n = 0;
	char c;

	if (procs > 64)
		procs = 64;
	if (pipe(ready) != 0)
		probe_error("pipe: %s", errname(errno));
	for (int i = 0; i < procs; i++) {
		if ((kids[i] = fork()) == 0) {
			char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
			if (p == MAP_FAILED)
				_exit(1);
			memset(p, i + 1, mib << 20);
			(void)!write(ready[1], "x", 1);
			pause();
			_exit(0);
		}
	}
	close(ready[1]);
	while (n < procs && read(ready[0], &c, 1) == 1)
		n++;
	sleep(2);
	for (int i = 0; i < procs; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	if (n < procs)
		probe_error("only %d of %d children wrote their memory", n, procs);
	escaped("%d non-dumpable processes held %ld MiB each for 2 s", procs, mib);
}
