/*
 * limits.c - the limits a run really had: the policy's value, or the
 * stricter one sbx inherited (`ulimit -n/-v/-u/-f/-s/-t`).
 *
 * jail/rlimit.c gives the program the stricter of the policy's value and
 * sbx's own inherited rlimit (a hard limit cannot be raised without
 * privileges).  The record must say the value that applied and why, not
 * the policy's: so "limits" shows the applied value and "clamped" has an
 * entry with "by": "ulimit" for each limit the caller's ulimit lowered.
 * sbx never changes its own rlimits, so reading them here at record time
 * reads what the program inherited.
 */
#include "record/internal.h"

#include <stdint.h>
#include <sys/resource.h>

#include <cjson/cJSON.h>

#define MIB (1024ull * 1024ull)

/* Which rlimit carries limit ID, in which unit; 0 when none. */
static int rlimit_of(enum limit_id id, uint64_t *unit)
{
	*unit = 1;
	switch (id) {
	case LIM_MEMORY_MB:
		*unit = MIB;
		return RLIMIT_AS;
	case LIM_PROCESSES:
		return RLIMIT_NPROC;
	case LIM_FILE_SIZE_MB:
		*unit = MIB;
		return RLIMIT_FSIZE;
	case LIM_OPEN_FILES:
		return RLIMIT_NOFILE;
	case LIM_STACK_MB:
		*unit = MIB;
		return RLIMIT_STACK;
	default:
		return -1;
	}
}

/* The inherited bound on ID in the policy's unit; LIMIT_UNLIMITED if none. */
static uint64_t inherited(enum limit_id id)
{
	uint64_t unit, v;
	struct rlimit rl;
	int res = rlimit_of(id, &unit);

	if (id == LIM_CPU_TIME_MS) {
		/* rlimit.c puts the soft limit a second under the hard one (never
		 * at 0), or keeps an inherited soft one that is lower */
		rlim_t soft;

		if (getrlimit(RLIMIT_CPU, &rl) < 0)
			return LIMIT_UNLIMITED;
		soft = rl.rlim_max == RLIM_INFINITY ? RLIM_INFINITY
		       : rl.rlim_max > 1 ? rl.rlim_max - 1 : rl.rlim_max;
		if (rl.rlim_cur < soft)
			soft = rl.rlim_cur;
		if (soft == RLIM_INFINITY)
			return LIMIT_UNLIMITED;
		return soft > 0 ? (uint64_t)soft * 1000 : 1;
	}
	if (res < 0 || getrlimit(res, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return LIMIT_UNLIMITED;
	v = (uint64_t)rl.rlim_cur / unit;
	/* RLIMIT_NPROC counts the jail's init too (rlimit.c adds one) */
	if (id == LIM_PROCESSES && v > 0)
		v--;
	/* a limit is at least 1 in the record's unit (less cannot start the
	 * program at all, and that run is a setup-error that says why) */
	return v > 0 ? v : 1;
}

uint64_t record_applied_limit(const struct policy *p, enum limit_id id)
{
	uint64_t want = policy_limit(p, id), have = inherited(id);

	if (have == LIMIT_UNLIMITED)
		return want;
	return want == LIMIT_UNLIMITED || have < want ? have : want;
}

bool record_add_ulimit_clamps(cJSON *arr, const struct policy *p)
{
	for (int id = 0; id < LIM_COUNT; id++) {
		uint64_t want = policy_limit(p, id), got = record_applied_limit(p, id);
		cJSON *o;

		if (got == want)
			continue;
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddStringToObject(o, "limit", limit_names[id]) ||
		    !record_add(o, "requested", record_limit_value(want)) ||
		    !record_add(o, "effective", record_limit_value(got)) ||
		    !cJSON_AddStringToObject(o, "by", "ulimit")) {
			cJSON_Delete(o);
			return false;
		}
		cJSON_AddItemToArray(arr, o);
	}
	return true;
}

uint64_t record_file_size_bytes(const struct policy *p)
{
	uint64_t mb = policy_limit(p, LIM_FILE_SIZE_MB), bytes;
	struct rlimit rl;

	bytes = mb == LIMIT_UNLIMITED ? 0 : mb * MIB;
	/* the inherited limit in bytes: its MiB figure in the record is rounded */
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (bytes == 0 || (uint64_t)rl.rlim_cur < bytes))
		bytes = rl.rlim_cur > 0 ? (uint64_t)rl.rlim_cur : 1;
	return bytes;
}
