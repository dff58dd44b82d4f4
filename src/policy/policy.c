/*
 * policy.c - the struct policy itself: defaults, the limits tables,
 * string lists, interned origin strings, freeing and comparing.
 */
#include "policy/internal.h"
#include "base/ids.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define WEEK_MS (7ull * 24 * 3600 * 1000)

const char *const limit_names[LIM_COUNT] = {
	[LIM_WALL_TIME_MS] = "wall_time_ms",
	[LIM_CPU_TIME_MS] = "cpu_time_ms",
	[LIM_MEMORY_MB] = "memory_mb",
	[LIM_PROCESSES] = "processes",
	[LIM_FILE_SIZE_MB] = "file_size_mb",
	[LIM_OPEN_FILES] = "open_files",
	[LIM_OUTPUT_BYTES] = "output_bytes",
	[LIM_STACK_MB] = "stack_mb",
	[LIM_KILL_GRACE_MS] = "kill_grace_ms",
};

/*
 * Maxima: a week of time (wall + grace cannot overflow anything; the grace
 * itself an hour, policy.h), 16 TiB of
 * memory or file, the kernel's pid_max and nr_open ceilings, 1 TiB of
 * output and 16 GiB of stack.  Anything larger is a typo, not a need.
 */
const uint64_t limit_max[LIM_COUNT] = {
	[LIM_WALL_TIME_MS] = WEEK_MS,
	[LIM_CPU_TIME_MS] = WEEK_MS,
	[LIM_MEMORY_MB] = 16ull << 20,
	[LIM_PROCESSES] = 4194304,
	[LIM_FILE_SIZE_MB] = 16ull << 20,
	[LIM_OPEN_FILES] = 1048576,
	[LIM_OUTPUT_BYTES] = 1ull << 40,
	[LIM_STACK_MB] = 16384,
	[LIM_KILL_GRACE_MS] = KILL_GRACE_MAX_MS,
};

static const uint64_t limit_defaults[LIM_COUNT] = {
	[LIM_WALL_TIME_MS] = 10000,
	/* LIM_CPU_TIME_MS: derived from the wall limit, see policy_limit() */
	[LIM_MEMORY_MB] = 512,
	[LIM_PROCESSES] = 64,
	[LIM_FILE_SIZE_MB] = 64,
	[LIM_OPEN_FILES] = 256,
	[LIM_OUTPUT_BYTES] = 1048576,
	[LIM_STACK_MB] = 8,
	[LIM_KILL_GRACE_MS] = 500,
};

uint64_t limit_default(enum limit_id id)
{
	return (unsigned)id < LIM_COUNT ? limit_defaults[id] : 0;
}

unsigned policy_cpu_count(void)
{
	static unsigned n;
	cpu_set_t set;

	/* the CPUs this process (and so the jail) may run on, not the host's */
	if (n == 0)
		n = sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0
			? (unsigned)CPU_COUNT(&set) : 1;
	return n;
}

/*
 * No cpu_time_ms set: as much CPU as the tree could use in the wall time
 * on every CPU it may run on, so raising --time is never undone by a CPU
 * limit nobody asked for; within max_limits.cpu_time_ms when set.
 */
static uint64_t derived_cpu_ms(const struct policy *p)
{
	uint64_t wall = policy_limit(p, LIM_WALL_TIME_MS), cpu, max;

	if (wall == LIMIT_UNLIMITED || wall > limit_max[LIM_CPU_TIME_MS] / policy_cpu_count())
		cpu = wall == LIMIT_UNLIMITED ? LIMIT_UNLIMITED : limit_max[LIM_CPU_TIME_MS];
	else
		cpu = wall * policy_cpu_count();
	max = p->max_limits.v[LIM_CPU_TIME_MS];
	return max != 0 && cpu > max ? max : cpu;
}

uint64_t policy_limit(const struct policy *p, enum limit_id id)
{
	if ((unsigned)id >= LIM_COUNT)
		return 0;
	if (p->limits.v[id])
		return p->limits.v[id];
	return id == LIM_CPU_TIME_MS ? derived_cpu_ms(p) : limit_default(id);
}

uint64_t policy_kill_grace_ms(const struct policy *p)
{
	uint64_t grace = policy_limit(p, LIM_KILL_GRACE_MS);

	return grace > KILL_GRACE_MAX_MS ? KILL_GRACE_MAX_MS : grace;
}

/* Defaults of the scalars; strings are allocated so every field is owned. */
void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->hostname = strdup("sbx");
	p->workspace = strdup("/mnt/data");
	p->uid = SBX_NOBODY_ID;
	p->gid = SBX_NOBODY_ID;
	p->network = NET_NONE;
	/* fail closed: without a seccomp block, only what allow lists passes */
	p->seccomp.default_action = SC_ERRNO;
	p->seccomp.errno_value = ENOSYS;
	p->seccomp.deny_action = SC_ERRNO;
}

int strlist_push(struct strlist *l, const char *s, const struct origin *at)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		char **v = realloc(l->v, cap * sizeof(*v));
		struct origin *o;

		if (!v)
			return -1;
		l->v = v;
		o = realloc(l->at, cap * sizeof(*o));
		if (!o)
			return -1;
		l->at = o;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -1;
	memset(&l->at[l->n], 0, sizeof(l->at[0]));
	if (at)
		l->at[l->n] = *at;
	l->n++;
	return 0;
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->at);
	memset(l, 0, sizeof(*l));
}

const char *policy_intern(struct policy *p, const char *s, struct sbx_err *err)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < p->interned.n; i++)
		if (strcmp(p->interned.v[i], s) == 0)
			return p->interned.v[i];
	if (strlist_push(&p->interned, s, NULL) < 0) {
		err_set(err, ERR_INTERNAL, 0, "out of memory");
		return NULL;
	}
	return p->interned.v[p->interned.n - 1];
}

struct origin origin_at(const struct ppos *at)
{
	struct origin o = { at->file, at->line, at->col, NULL };

	return o;
}

static void lang_free(struct lang_spec *l)
{
	strlist_free(&l->extensions);
	strlist_free(&l->run);
	strlist_free(&l->compile);
	strlist_free(&l->version);
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->description);
	free(p->hostname);
	free(p->cwd);
	free(p->workspace);
	for (size_t i = 0; i < p->nmounts; i++) {
		free(p->mounts[i].dst);
		free(p->mounts[i].src);
	}
	free(p->mounts);
	strlist_free(&p->env);
	strlist_free(&p->env_keep);
	strlist_free(&p->includes);
	strlist_free(&p->seccomp.allow);
	strlist_free(&p->seccomp.deny);
	lang_free(&p->lang);
	free(p->source);
	strlist_free(&p->default_command);
	strlist_free(&p->interned);
	free(p->scratch_moved_for);
	memset(p, 0, sizeof(*p));
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool strlist_eq(const struct strlist *a, const struct strlist *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!str_eq(a->v[i], b->v[i]))
			return false;
	return true;
}

static bool limits_eq(const struct limits *a, const struct limits *b)
{
	return memcmp(a->v, b->v, sizeof(a->v)) == 0;
}

static bool mount_eq(const struct mount_entry *a, const struct mount_entry *b)
{
	return str_eq(a->dst, b->dst) && str_eq(a->src, b->src) && a->type == b->type &&
	       a->rw == b->rw && a->optional == b->optional && a->noexec == b->noexec &&
	       a->size_mb == b->size_mb;
}

static bool seccomp_eq(const struct seccomp_spec *a, const struct seccomp_spec *b)
{
	return a->default_action == b->default_action && a->errno_value == b->errno_value &&
	       a->deny_action == b->deny_action && strlist_eq(&a->allow, &b->allow) &&
	       strlist_eq(&a->deny, &b->deny);
}

static bool lang_eq(const struct lang_spec *a, const struct lang_spec *b)
{
	return a->present == b->present && strlist_eq(&a->extensions, &b->extensions) &&
	       strlist_eq(&a->run, &b->run) && strlist_eq(&a->compile, &b->compile) &&
	       strlist_eq(&a->version, &b->version) &&
	       limits_eq(&a->compile_limits, &b->compile_limits);
}

bool policy_equal(const struct policy *a, const struct policy *b)
{
	if (!str_eq(a->name, b->name) || !str_eq(a->description, b->description) ||
	    !str_eq(a->hostname, b->hostname) || a->uid != b->uid || a->gid != b->gid ||
	    !str_eq(a->cwd, b->cwd) || !str_eq(a->workspace, b->workspace) ||
	    a->network != b->network || a->sealed != b->sealed)
		return false;
	if (!limits_eq(&a->limits, &b->limits) || !limits_eq(&a->max_limits, &b->max_limits))
		return false;
	if (a->nmounts != b->nmounts)
		return false;
	for (size_t i = 0; i < a->nmounts; i++)
		if (!mount_eq(&a->mounts[i], &b->mounts[i]))
			return false;
	return strlist_eq(&a->env, &b->env) && strlist_eq(&a->env_keep, &b->env_keep) &&
	       seccomp_eq(&a->seccomp, &b->seccomp) && lang_eq(&a->lang, &b->lang);
}
