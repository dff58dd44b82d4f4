/*
 * cputree.h - CPU time and memory of a whole jail: every live descendant of
 * its init plus (for CPU) everything already reaped (private to supervise/).
 *
 * RLIMIT_CPU and RLIMIT_AS are per process and every child starts with a
 * fresh budget, so the supervisor meters the tree itself (requirements
 * items 11 and 16).
 */
#ifndef SBX_SUPERVISE_CPUTREE_H
#define SBX_SUPERVISE_CPUTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpu_proc {
	pid_t pid, ppid;
	int64_t ticks;  /* utime+stime+cutime+cstime */
	int64_t rss_pages;
	int state;      /* walk memo: 0 unknown, 1 in the tree, 2 not */
};

struct cputree {
	pid_t init_pid; /* host pid of the jail's init (alive, not reaped) */
	int proc_fd;    /* the jail's own /proc (from the init), -1 = none */
	long ticks_per_s;
	struct cpu_proc *procs; /* scratch for one sample, reused */
	size_t n, cap;
};

void cputree_init(struct cputree *t, pid_t init_pid);
/* Meter through the jail's own /proc: it lists exactly the jail's
 * processes, so no host-wide scan is needed.  Takes ownership of FD. */
void cputree_use_jail_proc(struct cputree *t, int fd);
void cputree_free(struct cputree *t);

/* CPU ms used by the tree so far, or -1 when /proc cannot say. */
int64_t cputree_sample_ms(struct cputree *t);

/*
 * Memory the jail's live processes hold, in KiB, from the last sample: the
 * sum of their RSS while that is within LIMIT_KIB, else the sum of their
 * PSS (smaps_rollup), so that pages shared after fork() count once.  -1
 * when there is no jail /proc to read.
 */
int64_t cputree_memory_kib(struct cputree *t, int64_t limit_kib);

/* Parse one /proc/PID/stat text: ppid, utime+stime+cutime+cstime ticks, rss pages. */
int cputree_parse_stat(const char *text, pid_t *ppid, int64_t *ticks, int64_t *rss_pages);

#endif
