/*
 * res_pagetables [PROCS] [MIB] - PROCS processes (default 8) that each make
 * MIB MiB (default 128) of page tables and no RSS: a read-only private
 * anonymous mapping, huge pages off, read once every 2 MiB.  Each read maps
 * the shared zero page (no RSS) and costs one 4 KiB page table, and
 * RLIMIT_DATA does not count read-only mappings.  Holding them all for two
 * seconds after the last child is done is ESCAPED: under a 64M limit that
 * is 1 GiB of the host's memory the record never saw.  A child whose
 * mapping is refused (an address-space limit) counts as refused.
 */
#include "probe.h"

#include <signal.h>
#include <sys/mman.h>

#define STRIDE (2ul << 20)
#define TABLE_KIB 4ul

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 8;
	long mib = argc > 2 ? atol(argv[2]) : 128;
	/* one 4 KiB table maps 2 MiB: MIB MiB of tables map this much */
	size_t span = (size_t)mib * 1024 / TABLE_KIB * STRIDE;
	pid_t kids[64];
	int ready[2], n = 0, refused = 0;
	char c;

	if (procs > 64)
		procs = 64;
	if (pipe(ready) != 0)
		probe_error("pipe: %s", errname(errno));
	for (int i = 0; i < procs; i++) {
		if ((kids[i] = fork()) == 0) {
			volatile char *p = mmap(NULL, span, PROT_READ,
						MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			unsigned long sum = 0;

			if (p == MAP_FAILED) {
				(void)!write(ready[1], "r", 1);
				pause();
				_exit(0);
			}
			madvise((void *)p, span, MADV_NOHUGEPAGE);
			for (size_t off = 0; off < span; off += STRIDE)
				sum += p[off];
			(void)!write(ready[1], sum ? "?" : "x", 1);
			pause();
			_exit(0);
		}
	}
	close(ready[1]);
	while (n + refused < procs && read(ready[0], &c, 1) == 1) {
		if (c == 'r')
			refused++;
		else
			n++;
	}
	if (n + refused == procs && n > 0)
		sleep(2);
	for (int i = 0; i < procs; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	if (n == 0 && refused == procs)
		blocked("every %ld MiB read-only mapping was refused: ENOMEM", (long)(span >> 20));
	if (n < procs)
		probe_error("only %d of %d children made their page tables", n, procs);
	escaped("%d processes held %ld MiB of page tables each for 2 s", procs, mib);
}
