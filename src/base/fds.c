/*
 * fds.c - fds_close_except() (fds.h).
 *
 * An fd can sit above every limit (opened before the caller lowered
 * RLIMIT_NOFILE), so a loop bounded by the limit alone is no proof: the
 * fallback ends with a scan of /proc/self/fd, repeated until a pass finds
 * nothing to close.
 */
#include "base/fds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOOP_CEILING (1u << 20) /* the kernel's default nr_open */

struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static bool kept(int fd, const int *keep, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/* KEEP, sorted and without duplicates or negatives, into OUT. */
static size_t sorted_keep(const int *keep, size_t n, int *out)
{
	size_t m = 0;

	for (size_t i = 0; i < n && m < FDS_KEEP_MAX; i++) {
		size_t j = m;

		if (keep[i] < 0 || kept(keep[i], out, m))
			continue;
		for (; j > 0 && out[j - 1] > keep[i]; j--)
			out[j] = out[j - 1];
		out[j] = keep[i];
		m++;
	}
	return m;
}

/* [lo, hi] by close_range; false when the kernel refused it. */
static bool close_span(unsigned lo, unsigned hi)
{
	return lo > hi || syscall(SYS_close_range, lo, hi, 0) == 0;
}

static void loop_span(unsigned lo, unsigned hi)
{
	struct rlimit rl;
	unsigned top = LOOP_CEILING - 1;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur - 1 < top)
		top = (unsigned)rl.rlim_cur - 1;
	for (unsigned fd = lo; fd <= hi && fd <= top; fd++)
		close((int)fd);
}

/* One pass over /proc/self/fd; the number closed, or -1. */
static int scan_pass(int dir, const int *keep, size_t n)
{
	char buf[4096] __attribute__((aligned(8)));
	int closed = 0;
	long len;

	if (lseek(dir, 0, SEEK_SET) < 0)
		return -1;
	while ((len = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < len;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
			long fd = 0;
			const char *p = d->d_name;

			off += d->d_reclen;
			for (; *p >= '0' && *p <= '9' && fd < INT32_MAX; p++)
				fd = fd * 10 + (*p - '0');
			if (p == d->d_name || *p || fd == dir || kept((int)fd, keep, n))
				continue;
			close((int)fd);
			closed++;
		}
	}
	return len < 0 ? -1 : closed;
}

/* What close_range could not do: the loop, then /proc/self/fd as proof. */
static int close_by_scan(const int *keep, size_t n)
{
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc, e;

	if (dir < 0)
		return -1;
	for (int pass = 0; pass < 64; pass++) {
		rc = scan_pass(dir, keep, n);
		if (rc <= 0)
			break;
	}
	e = errno;
	close(dir);
	errno = e;
	return rc == 0 ? 0 : -1;
}

int fds_close_except(const int *keep, size_t n)
{
	int k[FDS_KEEP_MAX];
	size_t m = sorted_keep(keep, n, k);
	unsigned lo = 0;
	bool all = true;

	for (size_t i = 0; i <= m; i++) {
		unsigned hi = i < m ? (unsigned)k[i] - 1 : ~0U;

		if (i < m && (unsigned)k[i] == 0) {
			lo = 1;
			continue;
		}
		if (!close_span(lo, hi)) {
			all = false;
			loop_span(lo, hi);
		}
		if (i < m)
			lo = (unsigned)k[i] + 1;
	}
	return all ? 0 : close_by_scan(k, m);
}

bool fds_same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
