/*
 * cputree.h - CPU time and memory of a whole jail: every process it ever
 * had, alive, reaped or auto-reaped (private to supervise/).
 *
 * RLIMIT_CPU and RLIMIT_AS are per process and every child starts with a
 * fresh budget, so the supervisor meters the tree itself: the budget is
 * the whole run's.
 */
#ifndef SBX_SUPERVISE_CPUTREE_H
#define SBX_SUPERVISE_CPUTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* One process in one sample; [0] user, [1] system, in ns (clock ticks from
 * cputree_parse_stat). */
struct cpu_proc {
	pid_t pid, ppid;
	uint64_t start;    /* start time: (pid, start) names one process */
	int64_t own[2];    /* utime, stime: its own threads */
	int64_t cc[2];     /* cutime, cstime: the descendants it reaped */
	int64_t rss_pages;
	int64_t vsize_kib; /* its mappings, which bound its page tables */
	pid_t mem_tid;     /* the task whose stat/smaps show its memory: pid, or a
			    * live thread once the main thread exited */
	char run;          /* stat's state letter (Z: the main thread is dead) */
	int state;         /* walk memo: 0 unknown, 1 in the tree, 2 not */
};

#define CPUTREE_MAX_TMPFS 16
/* Processes whose stat and schedstat stay open between samples. */
#define CPUTREE_FD_CACHE 16

/* PID's /proc/PID/stat and schedstat in the jail's /proc, kept open: a
 * pread costs a third of open+read+close, and the meter reads them every
 * 10 ms.  An fd names the process it was opened for: once that
 * one is reaped its reads fail (ESRCH), never another's with the pid. */
struct cpu_fds {
	pid_t pid;
	int stat, sched; /* -1 = not open */
	bool seen;       /* read by the current sample */
};

struct cputree {
	pid_t init_pid; /* host pid of the jail's init (alive, not reaped) */
	int proc_fd;    /* the jail's own /proc (from the init), -1 = none */
	int tmpfs_fd[CPUTREE_MAX_TMPFS]; /* the jail's tmpfs roots (from the init) */
	size_t ntmpfs;
	int diag_fd;    /* sock_diag in the jail's own netns (from the init), -1 = none */
	int sockstat_fd; /* that netns's sockstat (the init's /proc/1/net), -1 = none */
	int netlink_fd; /* and its netlink sockets' list, -1 = none */
	int64_t sockets_base; /* its socket count before GO (sbx's own), -1 = unknown */
	long ticks_per_s;
	struct cpu_proc *procs; /* the last sample (sorted by pid) */
	size_t n, cap;
	struct cpu_proc *prev;  /* the sample before it */
	size_t pn, pcap;
	int64_t (*credit)[2];   /* scratch, per live process: dead ones' time, [0]
				 * from its children, [1] from deeper ones */
	size_t ccap;
	int64_t total[2];       /* ns charged so far, user and system */
	bool sampled;           /* total holds at least one sample */
	size_t churn;           /* births + deaths seen by the last sample */
	int64_t max_rss_pages;  /* the largest RSS of one process in any sample */
	size_t max_procs;       /* the most processes of one sample, the init's too */
	bool tables_read;       /* the last memory figure had to read the page
				 * tables: the mappings could cross the limit */
	struct cpu_fds fds[CPUTREE_FD_CACHE];
	size_t nfds;
	bool fds_ok;            /* room for the cache under RLIMIT_NOFILE */
	void *dir;              /* DIR * of proc_fd, rewound by each scan */
};

void cputree_init(struct cputree *t, pid_t init_pid);
/* Meter through the jail's own /proc: it lists exactly the jail's
 * processes, so no host-wide scan is needed.  Takes ownership of FD. */
void cputree_use_jail_proc(struct cputree *t, int fd);
/* Charge the files of the tmpfs whose root FD is to the jail's memory.
 * Takes ownership of FD; a file system already held is dropped. */
void cputree_use_tmpfs(struct cputree *t, int fd);
/* Charge the queues of the unix sockets of the network namespace that the
 * sock_diag socket FD belongs to.  Takes ownership of FD. */
void cputree_use_sock_diag(struct cputree *t, int fd);
/* Before GO: count the sockets of the jail's network namespace, which are
 * sbx's own, so that a sample with no more than these skips the dump. */
void cputree_sockets_baseline(struct cputree *t);
void cputree_free(struct cputree *t);

/* CPU ms used by every process the tree ever had, as far as the samples
 * saw them, or -1 when /proc cannot say (the init is gone). */
int64_t cputree_sample_ms(struct cputree *t);

/*
 * The tree's final CPU once the init was reaped with rusage RU (its own and
 * its reaped descendants'): the samples' total plus what RU gained since
 * the last sample, and never less than RU.  USER_MS and SYS_MS.
 */
void cputree_final_ms(const struct cputree *t, const struct rusage *ru, double *user_ms,
		      double *sys_ms);

/*
 * Memory the jail holds, in KiB: the files in its tmpfs mounts and the
 * queues of its unix sockets (now, every sample: a burst held between two
 * counts 100 ms apart went unseen) plus what its live processes hold (from
 * the last sample): the sum of their RSS while the total is within
 * LIMIT_KIB, else the sum of their PSS (smaps_rollup), so that pages shared
 * after fork() count once.  -1 when there is no jail /proc to read.
 */
int64_t cputree_memory_kib(struct cputree *t, int64_t limit_kib);

/* KiB queued in the jail's netlink sockets, which no memory cgroup is
 * charged for; 0 while the netns has no socket but sbx's, -1 unknown. */
int64_t cputree_uncharged_kib(struct cputree *t);

/* KiB of files in the jail's tmpfs mounts now: what outlives its processes. */
int64_t cputree_tmpfs_kib(const struct cputree *t);

/* The largest resident set of one process the samples saw, in KiB (0
 * before a sample): the processes the kernel kills with the init are never
 * reaped by it, so its rusage cannot say what they held. */
int64_t cputree_max_rss_kib(const struct cputree *t);

/* Parse one /proc/PID/stat text into P (pid excepted). */
int cputree_parse_stat(const char *text, struct cpu_proc *p);
/* cputree_proc.c: PID's record from /proc at DIRFD, times in ns (TICK_NS
 * a clock tick), or -1 when it is gone. */
int cputree_read_stat(int dirfd, pid_t pid, int64_t tick_ns, struct cpu_proc *out);
/* The same through T's fd cache when DIRFD is the jail's /proc. */
int cputree_read_stat_cached(struct cputree *t, int dirfd, pid_t pid, struct cpu_proc *out);
/* After a scan: close what the scan did not read (those processes are gone). */
void cputree_fds_sweep(struct cputree *t);
void cputree_fds_close(struct cputree *t);

#endif
