/*
 * cputree.c - whole-tree CPU accounting by /proc.
 *
 * Sum over the init and every live descendant of utime + stime (its own
 * threads) + cutime + cstime (its reaped descendants).  A process's time
 * moves to its parent's cutime when reaped, and orphans are reaped by the
 * jail's init (or a subreaper inside the jail, itself a descendant), so
 * nothing is counted twice and nothing that ran is lost.
 *
 * The jail's init passes the supervisor a descriptor of the jail's own
 * /proc, which lists exactly the processes of the jail's pid namespace:
 * a sample reads a handful of files whatever the host runs.  Without it
 * (a policy with no PROC mount) the tree is found by parent links in the
 * host's /proc/PID/stat, which any user may read: /proc/PID/task/TID/
 * children is not built into every kernel (not this one), and
 * /proc/PID/ns/pid of the init needs ptrace access that an unprivileged sbx
 * does not have once the init changed credentials.
 */
#include "supervise/cputree.h"

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH 4096

void cputree_init(struct cputree *t, pid_t init_pid)
{
	memset(t, 0, sizeof(*t));
	t->init_pid = init_pid;
	t->proc_fd = -1;
	t->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (t->ticks_per_s <= 0)
		t->ticks_per_s = 100;
}

void cputree_use_jail_proc(struct cputree *t, int fd)
{
	if (t->proc_fd >= 0)
		close(t->proc_fd);
	t->proc_fd = fd;
}

void cputree_free(struct cputree *t)
{
	if (t->proc_fd >= 0)
		close(t->proc_fd);
	t->proc_fd = -1;
	free(t->procs);
	t->procs = NULL;
	t->n = t->cap = 0;
}

int cputree_parse_stat(const char *text, pid_t *ppid, int64_t *ticks, int64_t *rss_pages)
{
	/* comm may contain spaces and ')': the fields start after the last ')' */
	const char *p = strrchr(text, ')');
	unsigned long long ut, st;
	long long cut, cst, rss;
	int pp;

	if (!p)
		return -1;
	/* 3 state, 4 ppid, 5..13 skipped, 14 utime 15 stime 16 cutime 17 cstime,
	 * 18..23 skipped, 24 rss (pages) */
	if (sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld"
		   " %*d %*d %*d %*d %*u %*u %lld",
		   &pp, &ut, &st, &cut, &cst, &rss) != 6)
		return -1;
	if (cut < 0 || cst < 0 || rss < 0)
		return -1;
	*ppid = pp;
	*ticks = (int64_t)(ut + st + (unsigned long long)cut + (unsigned long long)cst);
	*rss_pages = rss;
	return 0;
}

static int read_proc(int dirfd, const char *pid, struct cpu_proc *out)
{
	char path[64], text[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", pid);
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1; /* vanished */
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	out->pid = (pid_t)atoi(pid);
	out->state = 0;
	return cputree_parse_stat(text, &out->ppid, &out->ticks, &out->rss_pages);
}

static int push(struct cputree *t, const struct cpu_proc *p)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 512;
		struct cpu_proc *v = realloc(t->procs, cap * sizeof(*v));
		if (!v)
			return -1;
		t->procs = v;
		t->cap = cap;
	}
	t->procs[t->n++] = *p;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct cpu_proc *)a)->pid, y = ((const struct cpu_proc *)b)->pid;

	return (x > y) - (x < y);
}

static struct cpu_proc *find(struct cputree *t, pid_t pid)
{
	struct cpu_proc key = { .pid = pid };

	return bsearch(&key, t->procs, t->n, sizeof(key), by_pid);
}

/* Is P the init or below it?  Walks parent links, memoizing the answer. */
static bool in_tree(struct cputree *t, struct cpu_proc *p)
{
	struct cpu_proc *q = p;
	int verdict = 2;

	for (int depth = 0; q && depth < MAX_DEPTH; depth++) {
		if (q->state) {
			verdict = q->state;
			break;
		}
		if (q->pid == t->init_pid) {
			verdict = 1;
			break;
		}
		if (q->ppid <= 1)
			break;
		q = find(t, q->ppid);
	}
	/* memoize along the path walked */
	for (q = p; q && q->state == 0; q = q->ppid > 1 ? find(t, q->ppid) : NULL) {
		q->state = verdict;
		if (q->pid == t->init_pid)
			break;
	}
	return verdict == 1;
}

/* Read every /proc/PID/stat under DIRFD (the host's or the jail's /proc). */
static int scan(struct cputree *t, int dirfd)
{
	struct cpu_proc p;
	struct dirent *d;
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* the dup shares DIRFD's offset: start from the top every time */
	rewinddir(dir);
	t->n = 0;
	while ((d = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]) || read_proc(dirfd, d->d_name, &p) != 0)
			continue;
		if (push(t, &p) != 0) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	qsort(t->procs, t->n, sizeof(*t->procs), by_pid);
	return 0;
}

/* Through the jail's /proc: every process listed is the jail's; its pid 1
 * is the init. */
static int64_t sample_jail(struct cputree *t)
{
	int64_t ticks = 0;
	bool saw_init = false;

	if (scan(t, t->proc_fd) != 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		ticks += t->procs[i].ticks;
		saw_init |= t->procs[i].pid == 1;
	}
	if (!saw_init)
		return -1; /* the init is gone: the final rusage will say */
	return ticks * 1000 / t->ticks_per_s;
}

int64_t cputree_sample_ms(struct cputree *t)
{
	int64_t ticks = 0;
	bool saw_init = false;
	int host_proc;

	if (t->init_pid <= 0)
		return -1;
	if (t->proc_fd >= 0)
		return sample_jail(t);
	host_proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (host_proc < 0)
		return -1;
	int rc = scan(t, host_proc);
	close(host_proc);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (in_tree(t, &t->procs[i])) {
			ticks += t->procs[i].ticks;
			saw_init |= t->procs[i].pid == t->init_pid;
		}
	}
	if (!saw_init)
		return -1; /* the init is gone: the final rusage will say */
	return ticks * 1000 / t->ticks_per_s;
}

/* "Pss:" of /proc/PID/smaps_rollup in KiB, or -1 with errno: EACCES for a
 * process that is not dumpable (the init), anything else when it is gone. */
static int64_t pss_kib(int dirfd, pid_t pid)
{
	char path[64], text[4096];
	long long kib = -1;
	ssize_t n;
	int fd;

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

int64_t cputree_memory_kib(struct cputree *t, int64_t limit_kib)
{
	int64_t page_kib = sysconf(_SC_PAGESIZE) / 1024, rss = 0, pss = 0;

	if (t->proc_fd < 0)
		return -1;
	if (page_kib <= 0)
		page_kib = 4;
	for (size_t i = 0; i < t->n; i++)
		rss += t->procs[i].rss_pages * page_kib;
	/* RSS counts a page shared by N processes N times (fork's copy-on-
	 * write): only a total over the limit is worth the exact, dearer sum */
	if (rss <= limit_kib)
		return rss;
	for (size_t i = 0; i < t->n; i++) {
		int64_t k = pss_kib(t->proc_fd, t->procs[i].pid);

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
