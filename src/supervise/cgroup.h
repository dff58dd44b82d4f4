/*
 * cgroup.h - the run's own cgroup v2, where one is delegated to sbx.
 *
 * The parent comes from --cgroup-parent DIR; else the caller's own cgroup
 * when it is delegated and holds nobody but sbx (`systemd-run --scope -p
 * Delegate=yes sbx ...`: sbx moves itself into a leaf sbx-supervisor and
 * enables the controllers); else, for root on a pure cgroup v2 host,
 * /sys/fs/cgroup/sbx.  Each run gets a child sbx-run.PID.N with memory.max,
 * memory.swap.max 0, memory.oom.group 1 and pids.max, which its sbx holds
 * flock(LOCK_EX) on until it is removed; the jail's init is cloned
 * straight into it (jail_spec.cgroup_fd).  When sbx dies first, its
 * watchdog (cgroup.c) removes it; a child nobody holds is one whose sbx
 * and watchdog both died: the next run in that parent kills what is in it
 * and removes it.  Without any, the run
 * goes on under rlimits and sbx's meter and `why` says what was missing.
 */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "policy/policy.h"

struct cgroup_run {
	bool active;            /* a run cgroup exists and bounds the jail */
	int dir_fd;             /* O_DIRECTORY fd of it, for CLONE_INTO_CGROUP */
	char path[PATH_MAX];    /* its absolute path */
	char why[1024];         /* !active: why there is none */
	bool moved_self;        /* sbx moved itself into PARENT/sbx-supervisor */
	char self_parent[PATH_MAX]; /* that PARENT, the caller's scope */
	unsigned added;         /* controllers sbx enabled there (bits of memory, pids, cpu) */
	pid_t watch_pid;        /* the watchdog (cgroup.c), 0 when none */
	int watch_fd;           /* the pipe sbx tells it "done" on */
	/* read by cgroup_finish(); -1 = unknown */
	int64_t peak_kib;       /* memory.peak */
	int64_t oom_kills;      /* memory.events oom_kill */
	int64_t pids_refused;   /* pids.events max: forks pids.max refused */
	int64_t user_us, sys_us;
};

/*
 * Find the parent and create the run's cgroup for policy P.  0 with
 * cg->active true, or with false and cg->why set when no cgroup can be
 * used (the run goes on without one).  -1 with ERR only when PARENT_OPT
 * (--cgroup-parent) was given and cannot be used.
 */
int cgroup_open(struct cgroup_run *cg, const struct policy *p, const char *parent_opt,
		struct sbx_err *err);

/* The tree's CPU (cpu.stat usage_usec) in ms, dead processes included; -1 unknown. */
int64_t cgroup_cpu_ms(const struct cgroup_run *cg);

/* The cgroup's memory.current in KiB; -1 unknown. */
int64_t cgroup_memory_kib(const struct cgroup_run *cg);

/* Kill every process in the run's cgroup at once (cgroup.kill, kernel >=
 * 5.14); false when the kernel has no cgroup.kill. */
bool cgroup_kill(const struct cgroup_run *cg);

/* Freeze (ON) or thaw the run's cgroup (cgroup.freeze, kernel >= 5.2);
 * false when it cannot. */
bool cgroup_freeze(const struct cgroup_run *cg, bool on);

/* Read the evidence: memory.peak, memory.events, cpu.stat. */
void cgroup_finish(struct cgroup_run *cg);

/* Kill what is left, wait until the cgroup is empty, remove it. */
void cgroup_close(struct cgroup_run *cg);

/* How a run would find its cgroup here, for `sbx doctor`: the parent it
 * would use in OUT, or -1 with WHY.  ALSO: a pid that counts as sbx when
 * the caller's cgroup must hold sbx alone (the doctor that forked the
 * asking probe), or -1. */
int cgroup_probe(char *out, size_t outlen, long also, char *why, size_t whylen);

#endif
