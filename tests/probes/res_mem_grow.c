/*
 * res_mem_grow [MIB] - one process writing MIB MiB (default 8) of its own
 * memory, 1 MiB at a time, then holding it two seconds: ESCAPED only once
 * the last page is written (a verdict that waits for the writes, unlike a
 * parent's fixed sleep, holds on a slow emulated machine too).  Under a
 * cgroup's memory.max the kernel's OOM killer ends it first.
 */
#include "probe.h"

#include <sys/mman.h>

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 8;

	for (long i = 0; i < mib; i++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			blocked("mmap failed after %ld MiB: %s", i, errname(errno));
		memset(p, 0x5a, 1 << 20);
	}
	sleep(2);
	escaped("wrote and held %ld MiB", mib);
}
