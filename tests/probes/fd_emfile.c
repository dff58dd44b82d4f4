/*
 * fd_emfile [MAX] - opening files without end must stop with EMFILE
 * before MAX (default 4096) descriptors: the nofile limit holds, and the
 * verdict names where it stopped so the test can compare with --nofile.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	long max = argc > 1 ? atol(argv[1]) : 4096, n = 0;
	struct rlimit rl;
	int last = -1;

	getrlimit(RLIMIT_NOFILE, &rl);
	for (;;) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			break;
		last = fd;
		if (++n > max)
			escaped("opened %ld files without EMFILE", n);
	}
	int e = errno;
	if (e != EMFILE)
		probe_error("open failed with %s, not EMFILE, after %ld files", errname(e), n);
	blocked("EMFILE after %ld opens, highest fd %d, RLIMIT_NOFILE %ld", n, last, (long)rl.rlim_cur);
}
