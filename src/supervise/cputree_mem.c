/*
 * cputree_mem.c - the memory a jail holds, for memory_mb over the tree:
 * the files of its tmpfs mounts (by statfs of the mount fds the init
 * passed), the queues of its unix sockets (sock_diag in its network
 * namespace, skipped while its sockstat counts no socket but sbx's) and
 * what its live processes hold (RSS from the last sample, PSS from
 * smaps_rollup once RSS says the limit may be crossed, and their page
 * tables once their mappings could take the total past the limit).
 */
#include "supervise/cputree.h"
#include "base/cleanup.h"
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
	int held cleanup_fd = fd;

	for (size_t i = 0; fstat(held, &st) == 0 && i < t->ntmpfs; i++) {
		/* one file system counted once, however often it is mounted */
		if (fstat(t->tmpfs_fd[i], &other) == 0 && other.st_dev == st.st_dev)
			return;
	}
	if (t->ntmpfs == CPUTREE_MAX_TMPFS)
		return;
	t->tmpfs_fd[t->ntmpfs++] = steal_fd(&held);
}

/* KiB in use in the jail's tmpfs mounts: their files live in RAM (or swap). */
int64_t cputree_tmpfs_kib(const struct cputree *t)
{
	struct statfs sfs;
	int64_t kib = 0;

	for (size_t i = 0; i < t->ntmpfs; i++) {
		if (fstatfs(t->tmpfs_fd[i], &sfs) != 0)
			continue;
		if (sfs.f_blocks >= sfs.f_bfree)
			kib += (int64_t)((sfs.f_blocks - sfs.f_bfree) * (uint64_t)sfs.f_bsize / 1024);
		/* user xattrs take no block but inode space, counted in 1 KiB
		 * units (Linux 6.6+): 256 MiB of them passed a 32M limit */
		if (sfs.f_files >= sfs.f_ffree)
			kib += (int64_t)(sfs.f_files - sfs.f_ffree);
	}
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

void cputree_sockets_baseline(struct cputree *t)
{
	if (t->diag_fd < 0 || t->proc_fd < 0 || t->sockstat_fd >= 0)
		return;
	/* the init's: pid 1 of the jail's /proc is in the jail's netns */
	t->sockstat_fd = openat(t->proc_fd, "1/net/sockstat", O_RDONLY | O_CLOEXEC);
	t->netlink_fd = openat(t->proc_fd, "1/net/netlink", O_RDONLY | O_CLOEXEC);
	t->sockets_base = sockmem_sockets_used(t->sockstat_fd);
}

/*
 * Whether the jail's netns may hold socket queues.  The dump was a third
 * of a sample's cost, and the queues must be counted every
 * sample (a 100 ms cadence missed a 78 MiB burst): skip it only while the
 * netns has no socket but sbx's (and without a diag socket, always).
 */
static bool sockets_in_use(const struct cputree *t)
{
	return t->diag_fd >= 0 &&
	       !(t->sockets_base >= 0 && sockmem_sockets_used(t->sockstat_fd) == t->sockets_base);
}

/* KiB queued in the jail's unix and netlink sockets (0 without a diag
 * socket). */
static int64_t socket_kib(const struct cputree *t)
{
	int64_t kib, nl;

	if (!sockets_in_use(t))
		return 0;
	kib = sockmem_unix_kib(t->diag_fd);
	/* NETLINK_ROUTE replies left unread: 14,400 sockets held 650 MiB */
	nl = sockmem_netlink_kib(t->netlink_fd);
	return (kib > 0 ? kib : 0) + (nl > 0 ? nl : 0);
}

int64_t cputree_uncharged_kib(struct cputree *t)
{
	return sockets_in_use(t) ? sockmem_netlink_kib(t->netlink_fd) : 0;
}

/*
 * The KiB after "\nKEY" in /proc/PID/FILE (of task TID: a live thread of
 * a process whose main thread exited), or -1 with errno: EACCES for a
 * file the process's dumpable flag hides, anything else when it is gone.
 */
static int64_t proc_kib(int dirfd, pid_t pid, pid_t tid, const char *file, const char *key)
{
	char path[64], text[4096];
	long long kib = -1;
	ssize_t n;
	int fd cleanup_fd = -1;

	if (tid > 0 && tid != pid)
		snprintf(path, sizeof(path), "%d/task/%d/%s", (int)pid, (int)tid, file);
	else
		snprintf(path, sizeof(path), "%d/%s", (int)pid, file);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	if (n <= 0) {
		errno = n == 0 ? ESRCH : errno; /* an exiting process reads empty */
		return -1;
	}
	text[n] = '\0';
	const char *p = strstr(text, key);
	if (!p || sscanf(p + strlen(key), "%lld", &kib) != 1 || kib < 0)
		return -1;
	return kib;
}

/* "Pss:" of smaps_rollup: the init's, and a non-dumpable program's, refuse. */
static int64_t pss_kib(int dirfd, pid_t pid, pid_t tid)
{
	return proc_kib(dirfd, pid, tid, "smaps_rollup", "\nPss:");
}

/*
 * "VmPTE:" of status: the page tables at every level.  Page tables are in
 * no RSS: a read-only private mapping read once every 2 MiB maps the shared
 * zero page and costs a 4 KiB page table each time, so eight processes
 * held 1 GiB of page tables under a 64M limit with RSS flat.  status is
 * readable whether or not the process is dumpable.
 */
static int64_t pagetable_kib(int dirfd, pid_t pid, pid_t tid)
{
	return proc_kib(dirfd, pid, tid, "status", "\nVmPTE:");
}

/*
 * The most page tables PROC's mappings can need: every mapped 4 KiB page
 * may need a table of its own at each of up to four levels (a 4 KiB mapping
 * alone in its 2 MiB, 1 GiB and 512 GiB ranges), and a table covers only
 * ranges that hold a mapping.
 */
static int64_t pagetable_bound_kib(const struct cpu_proc *proc)
{
	return proc->vsize_kib > INT64_MAX / 8 ? INT64_MAX / 2 : 4 * proc->vsize_kib;
}

/*
 * KiB of page tables of the tree, exact, or 0 when the mappings' bound
 * says they cannot take the total past LIMIT_KIB from HELD: reading every
 * status costs about three reads of stat, so only when it can matter.
 */
static int64_t pagetables_kib(struct cputree *t, int64_t held, int64_t limit_kib)
{
	int64_t bound = held, kib = 0;

	for (size_t i = 0; i < t->n && bound <= limit_kib; i++)
		bound += pagetable_bound_kib(&t->procs[i]);
	t->tables_read = bound > limit_kib;
	if (!t->tables_read)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		int64_t k = pagetable_kib(t->proc_fd, t->procs[i].pid, t->procs[i].mem_tid);

		/* gone since the scan: its tables are freed with it */
		if (k > 0)
			kib += k;
	}
	return kib;
}

int64_t cputree_max_rss_kib(const struct cputree *t)
{
	int64_t page_kib = sysconf(_SC_PAGESIZE) / 1024;

	return t->max_rss_pages * (page_kib > 0 ? page_kib : 4);
}

int64_t cputree_memory_kib(struct cputree *t, int64_t limit_kib)
{
	int64_t page_kib = sysconf(_SC_PAGESIZE) / 1024;
	int64_t files = cputree_tmpfs_kib(t) + socket_kib(t);
	int64_t rss = files;
	int64_t pss = files;
	int64_t tables;

	if (t->proc_fd < 0)
		return -1;
	if (page_kib <= 0)
		page_kib = 4;
	for (size_t i = 0; i < t->n; i++)
		rss += t->procs[i].rss_pages * page_kib;
	tables = pagetables_kib(t, rss, limit_kib);
	rss += tables;
	pss += tables;
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
