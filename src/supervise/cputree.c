/*
 * cputree.c - whole-tree CPU accounting by /proc, for every process the
 * jail ever had.
 *
 * A live process shows its own time (utime+stime) and that of the
 * descendants it reaped (cutime+cstime).  Summing the live processes is not
 * enough: a child auto-reaped (its parent set SIGCHLD to SIG_IGN) reaches
 * nobody's cutime, and its time would vanish with it.  So the
 * meter charges, sample by sample, what each process gained since the last
 * sample: the growth of its own time, plus the growth of its cutime minus
 * what the meter already charged to the children that died since (their
 * last own+cutime, credited to their nearest live ancestor; what a direct
 * parent did not take, an orphan's, goes to the init, which reaps orphans).
 * A child the parent auto-reaped leaves no cutime growth: its charge stays.
 * Processes are named by (pid, start time), so a reused pid is a new one.
 *
 * What no sample sees: a process born and auto-reaped between two samples
 * (the supervisor samples every 10 ms while the tree changes).  Its time
 * reaches no cutime and no sample: only a cgroup would count it.
 *
 * The jail's init passes the supervisor a descriptor of the jail's own
 * /proc, which lists exactly the processes of the jail's pid namespace:
 * a sample reads a handful of files whatever the host runs.  Without it
 * (a policy with no PROC mount) the tree is found by parent links in the
 * host's /proc/PID/stat, which any user may read: /proc/PID/task/TID/
 * children is not built into every kernel (not this one), and
 * /proc/PID/ns/pid of the init needs ptrace access that an unprivileged sbx
 * does not have once the init changed credentials.
 *
 * One process's files are read by cputree_proc.c; the tree's memory is
 * cputree_mem.c's.
 */
#include "supervise/cputree.h"
#include "base/cleanup.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH 4096

void cputree_init(struct cputree *t, pid_t init_pid)
{
	struct rlimit nofile;

	memset(t, 0, sizeof(*t));
	t->init_pid = init_pid;
	t->proc_fd = -1;
	t->diag_fd = -1;
	t->sockstat_fd = -1;
	t->netlink_fd = -1;
	t->sockets_base = -1;
	t->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (t->ticks_per_s <= 0)
		t->ticks_per_s = 100;
	/* the cache's fds must not starve the rest of sbx of its own */
	t->fds_ok = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur >= 256;
}

static void close_proc(struct cputree *t)
{
	cputree_fds_close(t);
	if (t->dir)
		closedir(t->dir);
	t->dir = NULL;
	if (t->proc_fd >= 0)
		close(t->proc_fd);
	t->proc_fd = -1;
}

void cputree_use_jail_proc(struct cputree *t, int fd)
{
	close_proc(t);
	t->proc_fd = fd;
}

void cputree_free(struct cputree *t)
{
	if (t->diag_fd >= 0)
		close(t->diag_fd);
	t->diag_fd = -1;
	if (t->sockstat_fd >= 0)
		close(t->sockstat_fd);
	t->sockstat_fd = -1;
	if (t->netlink_fd >= 0)
		close(t->netlink_fd);
	t->netlink_fd = -1;
	for (size_t i = 0; i < t->ntmpfs; i++)
		close(t->tmpfs_fd[i]);
	t->ntmpfs = 0;
	close_proc(t);
	free(t->procs);
	free(t->prev);
	free(t->credit);
	t->procs = t->prev = NULL;
	t->credit = NULL;
	t->n = t->cap = t->pn = t->pcap = t->ccap = 0;
}

static int64_t tick_ns_of(const struct cputree *t)
{
	return 1000000000 / t->ticks_per_s;
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

static struct cpu_proc *find_in(struct cpu_proc *v, size_t n, pid_t pid)
{
	struct cpu_proc key = { .pid = pid };

	return v ? bsearch(&key, v, n, sizeof(key), by_pid) : NULL;
}

static struct cpu_proc *find(struct cputree *t, pid_t pid)
{
	return find_in(t->procs, t->n, pid);
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
/* A directory stream of DIRFD: the jail's /proc's is kept for every scan. */
static DIR *open_dir(struct cputree *t, int dirfd)
{
	int fd cleanup_fd = -1;
	DIR *dir;

	if (dirfd == t->proc_fd && t->dir)
		return t->dir;
	fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir)
		return NULL;
	steal_fd(&fd); /* the stream's now */
	if (dirfd == t->proc_fd)
		t->dir = dir;
	return dir;
}

static int scan(struct cputree *t, int dirfd)
{
	struct cpu_proc p;
	struct dirent *d;
	DIR *dir = open_dir(t, dirfd);
	int rc = 0;

	if (!dir)
		return -1;
	/* the dup shares DIRFD's offset: start from the top every time */
	rewinddir(dir);
	t->n = 0;
	while (rc == 0 && (d = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]) ||
		    cputree_read_stat_cached(t, dirfd, (pid_t)atoi(d->d_name), &p) != 0)
			continue;
		rc = push(t, &p);
	}
	if (dir != t->dir)
		closedir(dir);
	cputree_fds_sweep(t); /* the processes this scan did not list are gone */
	if (rc != 0)
		return -1;
	qsort(t->procs, t->n, sizeof(*t->procs), by_pid);
	return 0;
}

/* Keep only the init and its descendants (the host's /proc lists all). */
static void keep_tree(struct cputree *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		(void)in_tree(t, &t->procs[i]);
	for (size_t i = 0; i < t->n; i++)
		if (t->procs[i].state == 1)
			t->procs[k++] = t->procs[i];
	t->n = k;
}

/* This sample's record of P: the same pid and start time, or NULL (dead). */
static struct cpu_proc *alive(struct cputree *t, const struct cpu_proc *p)
{
	struct cpu_proc *q = find(t, p->pid);

	return q && q->start == p->start ? q : NULL;
}

/*
 * Credit the dead process D's charged time (its last own + cutime) to its
 * nearest live ancestor in this sample: [0] direct, when that is its
 * parent, else [1] (indirect: an orphan may have been reaped by the init
 * instead).  Parent links are the last sample's.  INIT: the init's index.
 */
static void credit_dead(struct cputree *t, const struct cpu_proc *d, size_t init)
{
	const struct cpu_proc *q = d;
	size_t to = init;
	int slot = 1;

	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		const struct cpu_proc *parent = find_in(t->prev, t->pn, q->ppid);
		const struct cpu_proc *a = parent ? alive(t, parent) : NULL;

		if (!parent)
			break; /* left the tree: the init reaps what is left */
		if (a) {
			to = (size_t)(a - t->procs);
			slot = q == d ? 0 : 1;
			break;
		}
		q = parent;
	}
	t->credit[to][slot] += d->own[0] + d->own[1] + d->cc[0] + d->cc[1];
}

/* Re-read the processes credited above: a child reaped after the scan read
 * its parent would else be charged twice (once now, once as cutime). */
static void reread_credited(struct cputree *t, int dirfd)
{
	for (size_t i = 0; i < t->n; i++) {
		struct cpu_proc fresh, *p = &t->procs[i];
		if ((t->credit[i][0] | t->credit[i][1]) == 0)
			continue;
		if (cputree_read_stat(dirfd, p->pid, tick_ns_of(t), &fresh) == 0 &&
		    fresh.start == p->start) {
			memcpy(p->own, fresh.own, sizeof(p->own));
			memcpy(p->cc, fresh.cc, sizeof(p->cc));
		}
	}
}

static int64_t grown(int64_t now, int64_t before)
{
	return now > before ? now - before : 0;
}

/*
 * Charge what live process I gained since the last sample; returns the
 * indirect credit it did not use (for the init).  Credits are matched
 * against cutime+cstime together (a child's user/system split as the
 * kernel moves it into cutime is not the one the samples saw).
 */
static int64_t charge(struct cputree *t, size_t i, int64_t extra_indirect)
{
	struct cpu_proc *p = &t->procs[i];
	const struct cpu_proc *was = find_in(t->prev, t->pn, p->pid);
	int64_t direct = t->credit[i][0], indirect = t->credit[i][1] + extra_indirect;
	int64_t g_own[2], g_cc[2], gcc, used, share0;

	if (was && was->start != p->start)
		was = NULL; /* a reused pid: a new process */
	for (int k = 0; k < 2; k++) {
		g_own[k] = was ? grown(p->own[k], was->own[k]) : p->own[k];
		g_cc[k] = was ? grown(p->cc[k], was->cc[k]) : p->cc[k];
		/* the highest seen stays: stat and schedstat may take turns at the top */
		if (was && was->own[k] > p->own[k])
			p->own[k] = was->own[k];
	}
	gcc = g_cc[0] + g_cc[1];
	/* cutime growth up to the credited time is the dead children, already charged */
	used = gcc < direct + indirect ? gcc : direct + indirect;
	share0 = gcc ? (int64_t)((__int128)used * g_cc[0] / gcc) : 0;
	t->total[0] += g_own[0] + g_cc[0] - share0;
	t->total[1] += g_own[1] + g_cc[1] - (used - share0);
	used -= used < direct ? used : direct;
	return indirect - used;
}

static int grow_credit(struct cputree *t)
{
	if (t->n > t->ccap) {
		size_t cap = t->n * 2;
		void *v = realloc(t->credit, cap * sizeof(*t->credit));
		if (!v)
			return -1;
		t->credit = v;
		t->ccap = cap;
	}
	memset(t->credit, 0, t->n * sizeof(*t->credit));
	return 0;
}

/* Fold this sample (t->procs) against the last (t->prev) into t->total. */
static int account(struct cputree *t, int dirfd, size_t init)
{
	size_t births = 0, deaths = 0;

	if (grow_credit(t) != 0)
		return -1;
	for (size_t i = 0; i < t->pn; i++) {
		if (!alive(t, &t->prev[i])) {
			credit_dead(t, &t->prev[i], init);
			deaths++;
		}
	}
	if (deaths)
		reread_credited(t, dirfd);
	int64_t left = 0;

	for (size_t i = 0; i < t->n; i++)
		if (i != init)
			left += charge(t, i, 0);
	(void)charge(t, init, left);
	for (size_t i = 0; i < t->n; i++) {
		const struct cpu_proc *was = find_in(t->prev, t->pn, t->procs[i].pid);
		births += !was || was->start != t->procs[i].start;
	}
	t->churn = t->sampled ? births + deaths : 0;
	t->sampled = true;
	return 0;
}

static int64_t total_ms(const struct cputree *t)
{
	return (t->total[0] + t->total[1]) / 1000000;
}

int64_t cputree_sample_ms(struct cputree *t)
{
	struct cpu_proc *swap_v;
	size_t swap_n, init = 0;
	bool saw_init = false;
	int dirfd = t->proc_fd, host_proc cleanup_fd = -1;
	pid_t init_pid = t->proc_fd >= 0 ? 1 : t->init_pid; /* the jail's /proc: pid 1 */
	int rc;

	if (t->init_pid <= 0)
		return -1;
	if (dirfd < 0 && (dirfd = host_proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	/* this sample goes into the older buffer; the last one becomes prev */
	swap_v = t->prev, swap_n = t->pcap;
	t->prev = t->procs, t->pn = t->n, t->pcap = t->cap;
	t->procs = swap_v, t->cap = swap_n, t->n = 0;
	rc = scan(t, dirfd);
	if (rc == 0 && t->proc_fd < 0)
		keep_tree(t);
	if (rc == 0 && t->n > t->max_procs)
		t->max_procs = t->n;
	for (size_t i = 0; rc == 0 && i < t->n; i++) {
		if (t->procs[i].rss_pages > t->max_rss_pages)
			t->max_rss_pages = t->procs[i].rss_pages;
		if (t->procs[i].pid == init_pid) {
			saw_init = true;
			init = i;
		}
	}
	/* the init is gone: keep the last sample for cputree_final_ms */
	if (rc != 0 || !saw_init || account(t, dirfd, init) != 0) {
		swap_v = t->procs, swap_n = t->cap;
		t->procs = t->prev, t->n = t->pn, t->cap = t->pcap;
		t->prev = swap_v, t->pcap = swap_n, t->pn = 0;
		rc = -1;
	}
	return rc == 0 ? total_ms(t) : -1;
}

void cputree_final_ms(const struct cputree *t, const struct rusage *ru, double *user_ms,
		      double *sys_ms)
{
	double r[2] = {
		(double)ru->ru_utime.tv_sec * 1000.0 + (double)ru->ru_utime.tv_usec / 1000.0,
		(double)ru->ru_stime.tv_sec * 1000.0 + (double)ru->ru_stime.tv_usec / 1000.0,
	};
	const double ns_ms = 1e-6;
	double out[2];
	pid_t init_pid = t->proc_fd >= 0 ? 1 : t->init_pid;

	for (int k = 0; k < 2; k++) {
		double init_seen = 0, others = 0;

		out[k] = r[k];
		if (!t->sampled)
			continue;
		/* every process of the last sample is dead now; what the init's
		 * rusage gained beyond their charged time ran after that sample */
		for (size_t i = 0; i < t->n; i++) {
			double v = (double)(t->procs[i].own[k] + t->procs[i].cc[k]) * ns_ms;
			if (t->procs[i].pid == init_pid)
				init_seen = v;
			else
				others += v;
		}
		double after = r[k] - init_seen - others;
		double sum = (double)t->total[k] * ns_ms + (after > 0 ? after : 0);
		out[k] = sum > r[k] ? sum : r[k];
	}
	*user_ms = out[0];
	*sys_ms = out[1];
}
