/*
 * rlimit.c - the policy's per-process limits, applied in the target.
 *
 * Each limit is the strictest of the policy's value and the one sbx
 * inherited: sbx under a tight `ulimit` must still run (a hard limit
 * cannot be raised without privileges, so asking for more would fail with
 * EPERM), and the program never gets more than either allows.
 * RLIM_INFINITY means unlimited and is never compared as a number.
 * Besides the policy's limits, fixed bounds on kernel quotas no policy
 * field names (set_kernel_quotas).
 */
#include "jail/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "policy/policy.h"

#define MIB (1024ull * 1024ull)
/* RLIMIT_DATA per process, in multiples of memory_mb (see below). */
#define RLIMIT_DATA_FACTOR 2

/* Three POSIX queues of the default size (10 x 8 KiB) fit; SysV is off. */
#define JAIL_RLIMIT_MSGQUEUE (256 * 1024)
/* The historical default: enough for a crypto library's locked buffers. */
#define JAIL_RLIMIT_MEMLOCK (64 * 1024)
/* Queued signals of the whole jail (one user): plenty for any program. */
#define JAIL_RLIMIT_SIGPENDING 1024

static rlim_t strictest(rlim_t a, rlim_t b)
{
	if (a == RLIM_INFINITY)
		return b;
	if (b == RLIM_INFINITY)
		return a;
	return a < b ? a : b;
}

static int set_limit(int res, const char *name, rlim_t soft, rlim_t hard,
		     struct sbx_err *err)
{
	struct rlimit cur, want;

	if (getrlimit(res, &cur) < 0)
		return err_set(err, ERR_SETUP, errno, "getrlimit(%s): %s", name,
			       strerror(errno));
	want.rlim_max = strictest(hard, cur.rlim_max);
	want.rlim_cur = strictest(strictest(soft, cur.rlim_cur), want.rlim_max);
	if (setrlimit(res, &want) < 0)
		return err_set(err, ERR_SETUP, errno, "setrlimit(%s): %s", name,
			       strerror(errno));
	return 0;
}

/* Policy value times UNIT, or RLIM_INFINITY when unset/unlimited. */
static rlim_t policy_value(const struct policy *p, enum limit_id id, uint64_t unit)
{
	uint64_t v = policy_limit(p, id);

	if (v == 0 || v == LIMIT_UNLIMITED || v > (uint64_t)RLIM_INFINITY / unit / 2)
		return RLIM_INFINITY;
	return (rlim_t)(v * unit);
}

/*
 * CPU: soft = the budget rounded up to seconds, hard = soft + 1, so that
 * SIGXCPU (catchable, reported as cpu-limit) comes a second before the
 * SIGKILL.  Under a lower inherited hard limit, soft = hard - 1; under a
 * lower inherited soft limit, that one.  Never a soft limit of 0: the
 * kernel fires it at once (`ulimit -t 1`).  False when there is none.
 */
static bool cpu_limits(const struct policy *p, const struct rlimit *cur, rlim_t *soft,
		       rlim_t *hard)
{
	uint64_t ms = policy_limit(p, LIM_CPU_TIME_MS);

	if (ms == 0 || ms == LIMIT_UNLIMITED)
		return false;
	*soft = (ms + 999) / 1000;
	*hard = *soft + 1;
	if (cur->rlim_max != RLIM_INFINITY && cur->rlim_max < *hard) {
		*hard = cur->rlim_max;
		*soft = *hard > 1 ? *hard - 1 : *hard;
	}
	*soft = strictest(*soft, cur->rlim_cur);
	return true;
}

static int set_cpu(const struct policy *p, struct sbx_err *err)
{
	struct rlimit cur;
	rlim_t soft, hard;

	if (getrlimit(RLIMIT_CPU, &cur) < 0)
		return err_set(err, ERR_SETUP, errno, "getrlimit(RLIMIT_CPU): %s",
			       strerror(errno));
	if (!cpu_limits(p, &cur, &soft, &hard))
		return 0;
	return set_limit(RLIMIT_CPU, "RLIMIT_CPU", soft, hard, err);
}

int64_t rlimit_cpu_soft_ns(const struct policy *p)
{
	struct rlimit cur;
	rlim_t soft, hard;

	if (getrlimit(RLIMIT_CPU, &cur) < 0 || !cpu_limits(p, &cur, &soft, &hard) ||
	    soft == RLIM_INFINITY)
		return 0;
	return (int64_t)soft * 1000000000;
}

/*
 * Kernel memory and scheduling no policy field names, bounded all the same.
 * MSGQUEUE and SIGPENDING are counted per user and charged to the caller's
 * own uid too (ucounts are hierarchical): unbounded, the jail could use up
 * the caller's quota on the host.  MSGQUEUE and MEMLOCK also hold memory
 * the meter does not see (queued messages; pinned, unswappable pages).
 * NICE and RTPRIO 0: a root caller's generous limits must not let the
 * program raise its priority or take a realtime policy (target.c drops
 * an inherited raised one).
 */
static int set_kernel_quotas(struct sbx_err *err)
{
	static const struct { int res; const char *name; rlim_t v; } q[] = {
		{ RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE", JAIL_RLIMIT_MSGQUEUE },
		{ RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", JAIL_RLIMIT_MEMLOCK },
		{ RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING", JAIL_RLIMIT_SIGPENDING },
		{ RLIMIT_NICE, "RLIMIT_NICE", 0 },
		{ RLIMIT_RTPRIO, "RLIMIT_RTPRIO", 0 },
	};

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (set_limit(q[i].res, q[i].name, q[i].v, q[i].v, err) < 0)
			return -1;
	return 0;
}

/*
 * memory_mb is the memory the whole tree holds, metered by the supervisor
 * (supervise/loop.c).  RLIMIT_AS is not used: it counts reservations
 * (glibc's 64 MiB arena per thread, V8's code range and cage) that hold no
 * memory, so 16 Python threads or one Node worker failed far below the
 * limit.  RLIMIT_DATA counts private writable mappings only (not PROT_NONE
 * reservations, not file text): a per-process backstop set at
 * RLIMIT_DATA_FACTOR x memory_mb, so that a program growing past memory_mb
 * meets the meter (memory-limit in the record) before its allocations fail,
 * while one process still cannot touch unbounded memory between samples.
 * Last before seccomp and exec: past this point nothing may map memory.
 */
uint64_t rlimit_data_bytes(const struct policy *p, bool cgroup)
{
	/* with a cgroup, memory.max counts what the tree holds, and a backstop
	 * would refuse a mapping before the kernel's OOM evidence could exist */
	rlim_t v = cgroup ? RLIM_INFINITY
			  : policy_value(p, LIM_MEMORY_MB, MIB * RLIMIT_DATA_FACTOR);

	return v == RLIM_INFINITY ? 0 : (uint64_t)v;
}

int rlimit_apply_memory(const struct policy *p, bool cgroup, struct sbx_err *err)
{
	uint64_t v = rlimit_data_bytes(p, cgroup);
	rlim_t lim = v ? (rlim_t)v : RLIM_INFINITY;

	return set_limit(RLIMIT_DATA, "RLIMIT_DATA", lim, lim, err);
}

int rlimit_apply(const struct policy *p, bool cgroup, struct sbx_err *err)
{
	/* pids.max counts this jail alone; RLIMIT_NPROC every jail of the uid */
	rlim_t nproc = cgroup ? RLIM_INFINITY : policy_value(p, LIM_PROCESSES, 1);
	rlim_t v;

	if (set_cpu(p, err) < 0)
		return -1;
	/* Counted per user namespace (kernel >= 5.14); +1 for the init. */
	if (nproc != RLIM_INFINITY)
		nproc += 1;
	if (set_limit(RLIMIT_NPROC, "RLIMIT_NPROC", nproc, nproc, err) < 0)
		return -1;
	v = policy_value(p, LIM_FILE_SIZE_MB, MIB);
	if (set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", v, v, err) < 0)
		return -1;
	v = policy_value(p, LIM_OPEN_FILES, 1);
	if (set_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", v, v, err) < 0)
		return -1;
	v = policy_value(p, LIM_STACK_MB, MIB);
	if (set_limit(RLIMIT_STACK, "RLIMIT_STACK", v, v, err) < 0)
		return -1;
	/* No core files: they would land in the workspace and leak memory. */
	if (set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, err) < 0)
		return -1;
	return set_kernel_quotas(err);
}
