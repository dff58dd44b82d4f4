/*
 * limits.c - nsjail's time_limit, rlimit_* and cgroup_*_max -> limits { }.
 *
 * nsjail's defaults apply when a field is absent (time_limit 600 s,
 * rlimit_as 4096 MiB, rlimit_cpu 600 s, rlimit_fsize 1 MiB, rlimit_nofile
 * 32; rlimit_nproc and rlimit_stack inherit nsjail's own soft limit).
 * sbx has one limit where nsjail may have two (rlimit_as and
 * cgroup_mem_max, rlimit_nproc and cgroup_pids_max): the smaller wins and
 * the other is noted.  Units: nsjail counts s and MiB (cgroup_mem_max:
 * bytes), sbx ms and MiB; bytes round up to whole MiB.
 */
#include "import/internal.h"

#include <stdlib.h>
#include <string.h>

#define MIB (1024ull * 1024)

struct rl_desc {
	const char *field, *type_field;
	uint64_t def;     /* nsjail's default value */
	int def_type;     /* nsjail's default RLimit type */
	enum limit_id id;
	uint64_t mul;     /* sbx units per nsjail unit */
	const char *unit; /* of the nsjail value */
	const char *remark;
};

static const struct rl_desc rlimits[] = {
	{ "rlimit_as", "rlimit_as_type", 4096, RL_VALUE, LIM_MEMORY_MB, 1, " MiB",
	  "each process's address space in nsjail, the memory the whole tree uses in sbx" },
	{ "rlimit_cpu", "rlimit_cpu_type", 600, RL_VALUE, LIM_CPU_TIME_MS, 1000, " s",
	  "per process in nsjail, the whole tree in sbx" },
	{ "rlimit_fsize", "rlimit_fsize_type", 1, RL_VALUE, LIM_FILE_SIZE_MB, 1, " MiB", NULL },
	{ "rlimit_nofile", "rlimit_nofile_type", 32, RL_VALUE, LIM_OPEN_FILES, 1, "", NULL },
	{ "rlimit_nproc", "rlimit_nproc_type", 1024, RL_SOFT, LIM_PROCESSES, 1, "",
	  "RLIMIT_NPROC counts every process of the uid, sbx the jail's" },
	{ "rlimit_stack", "rlimit_stack_type", 8, RL_SOFT, LIM_STACK_MB, 1, " MiB", NULL },
};

/* One limit being decided: the value in sbx's unit and where it came from. */
struct cand {
	uint64_t v; /* 0 = not set */
	struct ppos at;
	char *why;
};

static int set_cand(struct nj_xlate *x, struct cand *c, uint64_t v, const struct ppos *at,
		    char *why)
{
	if (!why)
		return nj_add(x, SECT_LIMITS, NULL, NULL, NULL); /* out of memory */
	if (c->v && c->v <= v) {
		int rc = nj_note(x, at, "%s: sbx has one limit here; the smaller one "
				 "is used (%s)", why, c->why);

		free(why);
		return rc;
	}
	if (c->v && nj_note(x, &c->at, "%s: sbx has one limit here; the smaller one is used "
			    "(%s)", c->why, why) < 0) {
		free(why);
		return -1;
	}
	free(c->why);
	*c = (struct cand){ v, *at, why };
	return 0;
}

/* The nsjail value V in sbx's unit, capped to sbx's range; a 0 that sbx
 * refuses becomes sbx's smallest value, noted. */
static uint64_t to_sbx(struct nj_xlate *x, const struct rl_desc *d, uint64_t v,
		       const struct ppos *at, int *rc)
{
	uint64_t max = limit_max[d->id];

	*rc = 0;
	if (v == 0) {
		*rc = nj_note(x, at, "%s: 0: sbx refuses a zero limit; its smallest, 1 %s, "
			      "is used", d->field, strstr(limit_names[d->id], "_ms") ? "ms"
			      : strstr(limit_names[d->id], "_mb") ? "MiB" : "");
		return 1;
	}
	if (v > max / d->mul) {
		*rc = nj_note(x, at, "%s: %llu%s is more than sbx allows; %s %llu is used",
			      d->field, (unsigned long long)v, d->unit, limit_names[d->id],
			      (unsigned long long)max);
		return max;
	}
	return v * d->mul;
}

static int one_rlimit(struct nj_xlate *x, const struct rl_desc *d, struct cand *c)
{
	const struct pvalue *tv = nj_get(x->top, d->type_field);
	int type = nj_enum(x->top, d->type_field, nj_rlimit_types, d->def_type);
	uint64_t v = nj_uint(x->top, d->field, d->def);
	struct ppos at = nj_at(x, x->top, nj_get(x->top, d->field) || !tv ? d->field
									 : d->type_field);
	int rc = 0;

	if (type == RL_SOFT || type == RL_HARD) {
		return nj_note(x, &at, "%s_type: %s%s: nsjail kept its own %s limit; sbx's "
			       "default %s applies", d->field, nj_rlimit_types[type],
			       tv ? "" : " (nsjail's default)", nj_rlimit_types[type],
			       limit_names[d->id]);
	}
	if (type == RL_INF)
		return set_cand(x, &c[d->id], LIMIT_UNLIMITED, &at,
				nj_fmt(x, "%s_type: INF", d->field));
	v = to_sbx(x, d, v, &at, &rc);
	if (rc < 0)
		return -1;
	return set_cand(x, &c[d->id], v, &at,
			nj_fmt(x, "%s %llu%s%s%s%s", d->field,
			       (unsigned long long)nj_uint(x->top, d->field, d->def), d->unit,
			       nj_get(x->top, d->field) ? "" : " (nsjail's default)",
			       d->remark ? "; " : "", d->remark ? d->remark : ""));
}

static int cgroup_limits(struct nj_xlate *x, struct cand *c)
{
	uint64_t mem = nj_uint(x->top, "cgroup_mem_max", 0);
	uint64_t pids = nj_uint(x->top, "cgroup_pids_max", 0);
	struct ppos at;

	if (mem) {
		uint64_t mb = mem / MIB + (mem % MIB != 0);

		at = nj_at(x, x->top, "cgroup_mem_max");
		if (mb > limit_max[LIM_MEMORY_MB])
			mb = limit_max[LIM_MEMORY_MB];
		if (set_cand(x, &c[LIM_MEMORY_MB], mb, &at,
			     nj_fmt(x, "cgroup_mem_max %llu bytes", (unsigned long long)mem)) < 0)
			return -1;
	}
	if (pids) {
		at = nj_at(x, x->top, "cgroup_pids_max");
		if (pids > limit_max[LIM_PROCESSES])
			pids = limit_max[LIM_PROCESSES];
		if (set_cand(x, &c[LIM_PROCESSES], pids, &at,
			     nj_fmt(x, "cgroup_pids_max %llu", (unsigned long long)pids)) < 0)
			return -1;
	}
	return 0;
}

/* time_limit: seconds of wall time, 0 = none; nsjail's default is 600. */
static int time_limit(struct nj_xlate *x, struct cand *c)
{
	uint64_t s = nj_uint(x->top, "time_limit", 600);
	struct ppos at = nj_at(x, x->top, "time_limit");
	uint64_t max = limit_max[LIM_WALL_TIME_MS];

	if (s == 0)
		return set_cand(x, &c[LIM_WALL_TIME_MS], LIMIT_UNLIMITED, &at,
				nj_fmt(x, "time_limit 0: no wall-clock limit"));
	if (s > max / 1000 && nj_note(x, &at, "time_limit: %llu s is more than sbx allows; "
				      "wall_time_ms %llu is used", (unsigned long long)s,
				      (unsigned long long)max) < 0)
		return -1;
	return set_cand(x, &c[LIM_WALL_TIME_MS], s > max / 1000 ? max : s * 1000, &at,
			nj_fmt(x, "time_limit %llu s%s", (unsigned long long)s,
			       at.line ? "" : " (nsjail's default)"));
}

static int emit(struct nj_xlate *x, struct cand *c)
{
	int rc = 0;

	for (int i = 0; i < LIM_COUNT && rc == 0; i++) {
		if (!c[i].v)
			continue;
		rc = c[i].v == LIMIT_UNLIMITED
			? nj_add(x, SECT_LIMITS, &c[i].at,
				 nj_fmt(x, "%s: unlimited", limit_names[i]), "%s", c[i].why)
			: nj_add(x, SECT_LIMITS, &c[i].at,
				 nj_fmt(x, "%s: %llu", limit_names[i], (unsigned long long)c[i].v),
				 "%s", c[i].why);
	}
	return rc;
}

int nj_translate_limits(struct nj_xlate *x)
{
	struct cand c[LIM_COUNT] = { 0 };
	struct ppos at = nj_at(x, x->top, "disable_rl");
	bool no_rl = nj_bool(x->top, "disable_rl", false);
	int rc = time_limit(x, c);

	if (no_rl && rc == 0)
		rc = nj_note(x, &at, "disable_rl: nsjail left every rlimit as it found it; "
			     "sbx applies its own defaults");
	for (size_t i = 0; rc == 0 && !no_rl && i < sizeof(rlimits) / sizeof(rlimits[0]); i++)
		rc = one_rlimit(x, &rlimits[i], c);
	if (rc == 0)
		rc = cgroup_limits(x, c);
	if (rc == 0)
		rc = emit(x, c);
	if (rc == 0)
		rc = nj_note(x, NULL, "nsjail bounds no output: sbx's default output_bytes (1 MiB) "
			     "and kill_grace_ms (500) apply; raise them with --output or in limits");
	for (int i = 0; i < LIM_COUNT; i++)
		free(c[i].why);
	return rc;
}
