/*
 * cputree_mem.c - the memory a jail holds, for memory_mb over the tree:
 * the files of its tmpfs mounts (by statfs of the mount fds the init
 * passed), the queues of its unix sockets (sock_diag in its network
 * namespace) and what its live processes hold (RSS from the last sample,
 * PSS from smaps_rollup once RSS says the limit may be crossed).
 */
#include "supervise/cputree.h"
#include "supervise/sockmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <unistd.h>

void cputree_use_tmpfs(struct cputree *t, int fd)
{
	struct stat st, other;

	for (size_t i = 0; fstat(fd, &st) == 0 && i < t->ntmpfs; i++) {
		/* one file system counted once, however often it is mounted */
		if (fstat(t->tmpfs_fd[i], &other) == 0 && other.st_dev == st.st_dev) {
			close(fd);
			return;
		}
	}
	if (t->ntmpfs == CPUTREE_MAX_TMPFS) {
		close(fd);
		return;
	}
	t->tmpfs_fd[t->ntmpfs++] = fd;
}

/* KiB in use in the jail's tmpfs mounts: their files live in RAM (or swap). */
static int64_t tmpfs_kib(const struct cputree *t)
{
	struct statfs sfs;
	int64_t kib = 0;

	for (size_t i = 0; i < t->ntmpfs; i++)
		if (fstatfs(t->tmpfs_fd[i], &sfs) == 0 && sfs.f_blocks >= sfs.f_bfree)
			kib += (int64_t)((sfs.f_blocks - sfs.f_bfree) * (uint64_t)sfs.f_bsize / 1024);
	return kib;
}

void cputree_use_sock_diag(struct cputree *t, int fd)
{
	/* a dump that stalls must not stall the supervisor's loop */
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };

	if (t->diag_fd >= 0)
		close(t->diag_fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t->diag_fd = fd;
}

/* KiB queued in the jail's unix sockets (0 without a diag socket). */
static int64_t socket_kib(const struct cputree *t)
{
	int64_t kib = t->diag_fd >= 0 ? sockmem_unix_kib(t->diag_fd) : 0;

	return kib > 0 ? kib : 0;
}

/* "Pss:" of /proc/PID/smaps_rollup in KiB, or -1 with errno: EACCES for a
 * process that is not dumpable (the init), anything else when it is gone. */
static int64_t pss_kib(int dirfd, pid_t pid, pid_t tid)
{
	char path[64], text[4096];
	long long kib = -1;
	ssize_t n;
	int fd;

	/* TID: a live thread of a process whose main thread exited */
	if (tid > 0 && tid != pid)
		snprintf(path, sizeof(path), "%d/task/%d/smaps_rollup", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "%d/smaps_rollup", (int)pid);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0) {
		errno = n == 0 ? ESRCH : errno; /* an exiting process reads empty */
		return -1;
	}
	text[n] = '\0';
	const char *p = strstr(text, "\nPss:");
	if (!p || sscanf(p + 5, "%lld", &kib) != 1 || kib < 0)
		return -1;
	return kib;
}

int64_t cputree_max_rss_kib(const struct cputree *t)
{
	int64_t page_kib = sysconf(_SC_PAGESIZE) / 1024;

	return t->max_rss_pages * (page_kib > 0 ? page_kib : 4);
}

int64_t cputree_memory_kib(struct cputree *t, int64_t limit_kib, bool files_due)
{
	int64_t page_kib = sysconf(_SC_PAGESIZE) / 1024, rss, pss;

	if (t->proc_fd < 0)
		return -1;
	/* the sock_diag dump and the statfs calls were a third of a sample's
	 * cost: counted on the slow cadence, or every sample near the limit */
	if (files_due || t->files_kib < 0)
		t->files_kib = tmpfs_kib(t) + socket_kib(t);
	rss = pss = t->files_kib;
	if (page_kib <= 0)
		page_kib = 4;
	for (size_t i = 0; i < t->n; i++)
		rss += t->procs[i].rss_pages * page_kib;
	/* RSS counts a page shared by N processes N times (fork's copy-on-
	 * write): only a total over the limit is worth the exact, dearer sum */
	if (rss <= limit_kib)
		return rss;
	for (size_t i = 0; i < t->n; i++) {
		int64_t k = pss_kib(t->proc_fd, t->procs[i].pid, t->procs[i].mem_tid);

		if (k >= 0)
			pss += k;
		else if (errno == EACCES)
			/* not dumpable (the init; or a program that made itself so):
			 * its RSS, an upper bound, so hiding memory never pays */
			pss += t->procs[i].rss_pages * page_kib;
		/* else it exited since the scan: its memory is free again */
	}
	return pss;
}
