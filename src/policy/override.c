/*
 * override.c - the command line's overrides applied to a loaded policy;
 * see override.h.
 *
 * Overrides apply in command-line order, each recorded with origin
 * "<command line>" and its option.  Limits are clamped to max_limits (and
 * the clamp noted for the record); a sealed policy accepts only what
 * tightens it.
 */
#include "base/cleanup.h"
#include "policy/override.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/units.h"

#define CMDLINE "<command line>"

/* ---- the checks the command line shares with policy files ------------- */

int policy_check_limit_value(const char *opt, const char *text, enum limit_id id,
			     uint64_t value, struct sbx_err *err)
{
	char buf[96];
	const char *why = policy_limit_problem(id, value, buf, sizeof(buf));

	if (why)
		return err_set(err, ERR_USAGE, 0, "%s: '%s': %s %s", opt, text,
			       limit_names[id], why);
	return 0;
}

/* ---- one override at a time ------------------------------------------- */

static const char *policy_label(const struct policy *p)
{
	if (p->name)
		return p->name;
	return p->source ? p->source : "?";
}

static int refuse_sealed(const struct policy *p, const struct policy_override *ov,
			 struct sbx_err *err)
{
	return err_set(err, ERR_CONFIG, 0,
		       "policy '%s' is sealed: %s %s would loosen it (a sealed policy only accepts lower limits, --net none and --seccomp-deny)",
		       policy_label(p), ov->option, ov->value);
}

static void note_clamp(struct policy *p, enum limit_id id, uint64_t requested,
		       uint64_t effective)
{
	size_t i;

	for (i = 0; i < p->nclamped && p->clamped[i].id != id; i++)
		;
	if (requested == effective) {
		/* a later override lifted the clamp: forget the old entry */
		if (i < p->nclamped)
			p->clamped[i] = p->clamped[--p->nclamped];
		return;
	}
	if (i == p->nclamped) {
		if (p->nclamped >= LIM_COUNT)
			return;
		p->nclamped++;
	}
	p->clamped[i] = (struct clamp){ id, requested, effective };
}

/* BASE holds the policy's effective limits before any override. */
static int apply_limit(struct policy *p, const uint64_t *base,
		       const struct policy_override *ov, enum limit_id id,
		       uint64_t value, const struct origin *at,
		       struct sbx_err *err)
{
	uint64_t max = p->max_limits.v[id], effective = value;

	/* sealed: the author's limits are ceilings the caller cannot raise */
	if (p->sealed && value > base[id])
		return refuse_sealed(p, ov, err);
	/* max_limits: an override above the ceiling is clamped, and said so */
	if (max != 0 && value > max)
		effective = max;
	note_clamp(p, id, value, effective);
	p->limits.v[id] = effective;
	p->limits.at[id] = *at;
	return 0;
}

static int apply_net(struct policy *p, const struct policy_override *ov,
		     const struct origin *at, struct sbx_err *err)
{
	enum net_mode mode = NET_NONE;

	if (strcmp(ov->value, "loopback") == 0)
		mode = NET_LOOPBACK;
	else if (strcmp(ov->value, "host") == 0)
		mode = NET_HOST;
	/* sealed: a network the author did not grant is never added */
	if (p->sealed && mode != NET_NONE)
		return refuse_sealed(p, ov, err);
	p->network = mode;
	p->at[F_NETWORK] = *at;
	return 0;
}

/* CWD (an absolute path of LEN bytes) cut to its parent; "/" stays "/". */
static size_t parent_len(const char *cwd, size_t len)
{
	while (len > 1 && cwd[len - 1] != '/')
		len--;
	return len > 1 ? len - 1 : 1;
}

/*
 * PATH made absolute against the cwd.  Its leading "." and ".." components
 * are taken off the cwd: getcwd() names the directory without symlinks, so
 * the parent of that text is the real parent, and "-B .." binds the
 * directory the caller means at the path a reader expects.  A ".." after a
 * name stays (that name may be a symlink), and the destination check
 * refuses it.
 */
static char *absolute_path(const char *path, struct sbx_err *err)
{
	char cwd[PATH_MAX], *out;
	size_t len;

	if (path[0] == '/') {
		out = strdup(path);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			err_set(err, ERR_USAGE, errno,
				"getcwd: %s (use an absolute path)",
				strerror(errno));
			return NULL;
		}
		len = strlen(cwd);
		for (;;) {
			size_t n = strcspn(path, "/");

			if (n == 1 && path[0] == '.')
				path += 1;
			else if (n == 2 && path[0] == '.' && path[1] == '.')
				path += 2, len = parent_len(cwd, len);
			else if (n == 0 && *path == '/')
				path += 1;
			else
				break;
		}
		cwd[len] = '\0';
		if (asprintf(&out, "%s%s%s", cwd, *path && len > 1 ? "/" : "", path) < 0)
			out = NULL;
	}
	if (!out)
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return out;
}

/*
 * The entry for DST: a mount with the same destination (the policy's
 * /tmp under --tmpfs /tmp:1G) is replaced, as an included file's is by
 * the file that includes it; otherwise a new one.  DST becomes P's.
 */
static struct mount_entry *new_mount(struct policy *p, char *dst,
				     const struct origin *at, struct sbx_err *err)
{
	struct mount_entry *m = NULL;

	for (size_t i = 0; i < p->nmounts && !m; i++)
		if (strcmp(p->mounts[i].dst, dst) == 0)
			m = &p->mounts[i];
	if (m) {
		free(m->dst);
		free(m->src);
	} else {
		m = realloc(p->mounts, (p->nmounts + 1) * sizeof(*m));
		if (!m) {
			err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
			return NULL;
		}
		p->mounts = m;
		m = &p->mounts[p->nmounts++];
	}
	memset(m, 0, sizeof(*m));
	m->dst = dst;
	m->at = *at;
	return m;
}

/* The entry for *DST (a new one, or the one with that destination), which
 * takes *DST; NULL on error, *DST NULL meaning out of memory. */
static struct mount_entry *add_mount(struct policy *p, char **dst, const struct origin *at,
				     struct sbx_err *err)
{
	struct mount_entry *m;

	if (!*dst) {
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	policy_path_clean(*dst);
	m = new_mount(p, *dst, at, err);
	if (m)
		steal_ptr(dst);
	return m;
}

static int apply_bind(struct policy *p, const struct policy_override *ov,
		      const struct origin *at, struct sbx_err *err)
{
	const char *colon = strchr(ov->value, ':');
	char *src cleanup_free = strndup(ov->value, colon ? (size_t)(colon - ov->value)
							  : strlen(ov->value));
	char *abs_src cleanup_free = NULL, *dst cleanup_free = NULL;
	struct mount_entry *m;

	/* sealed: no new host path is ever exposed to the program */
	if (p->sealed)
		return refuse_sealed(p, ov, err);
	if (!src || !*src || (colon && colon[1] != '/'))
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is not SRC[:DST] with an absolute DST",
			       ov->option, ov->value);
	abs_src = absolute_path(src, err);
	if (!abs_src)
		return -1;
	/* "/proc/" is /proc: one spelling, checked by the policy's rules */
	policy_path_clean(abs_src);
	dst = strdup(colon ? colon + 1 : abs_src);
	if (!(m = add_mount(p, &dst, at, err)))
		return -1;
	m->src = steal_ptr(&abs_src);
	m->type = MNT_BIND;
	m->rw = ov->kind == OV_BIND_RW;
	return 0;
}

static int apply_tmpfs(struct policy *p, const struct policy_override *ov,
		       const struct origin *at, struct sbx_err *err)
{
	const char *colon = strrchr(ov->value, ':');
	uint64_t mib = 0;
	struct mount_entry *m;
	char *dst cleanup_free = NULL;

	if (p->sealed)
		return refuse_sealed(p, ov, err);
	if (ov->value[0] != '/')
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is not DST[:SIZE] with an absolute DST",
			       ov->option, ov->value);
	if (colon && units_size_mib(ov->option, colon + 1, &mib, err) < 0)
		return -1;
	dst = strndup(ov->value, colon ? (size_t)(colon - ov->value)
				       : strlen(ov->value));
	if (!(m = add_mount(p, &dst, at, err)))
		return -1;
	m->type = MNT_TMPFS;
	m->rw = true;
	m->size_mb = mib;
	return 0;
}

static int apply_chdir(struct policy *p, const struct policy_override *ov,
		       const struct origin *at, struct sbx_err *err)
{
	const char *ws = p->workspace ? p->workspace : "/mnt/data";
	char *dir;

	/* a relative -C is relative to the workspace, where the program starts */
	if (ov->value[0] == '/')
		dir = strdup(ov->value);
	else if (asprintf(&dir, "%s/%s", ws, ov->value) < 0)
		dir = NULL;
	if (!dir)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	free(p->cwd);
	p->cwd = dir;
	p->at[F_CWD] = *at;
	return 0;
}

/* --set limits.NAME=VALUE goes through apply_limit (clamp, sealed rule). */
static int set_limit_field(const char *field, size_t len)
{
	if (len <= 7 || strncmp(field, "limits.", 7) != 0)
		return -1;
	for (int i = 0; i < LIM_COUNT; i++)
		if (strlen(limit_names[i]) == len - 7 &&
		    strncmp(field + 7, limit_names[i], len - 7) == 0)
			return i;
	return -1;
}

static int apply_set(struct policy *p, const uint64_t *base,
		     const struct policy_override *ov, const struct origin *at,
		     struct sbx_err *err)
{
	const char *eq = strchr(ov->value, '=');
	int id = set_limit_field(ov->value, (size_t)(eq - ov->value));
	uint64_t value;

	if (id < 0) {
		/* sealed: only limits may change, and only downwards */
		if (p->sealed)
			return refuse_sealed(p, ov, err);
		return policy_set_field(p, ov->value, at, err);
	}
	if (strcmp(eq + 1, "unlimited") == 0)
		value = LIMIT_UNLIMITED;
	else if (units_count(ov->option, eq + 1, &value, err) < 0)
		return -1;
	if (value != LIMIT_UNLIMITED && value > limit_max[id])
		return err_set(err, ERR_USAGE, 0,
			       "%s: %s is too large (at most %llu)", ov->option,
			       ov->value, (unsigned long long)limit_max[id]);
	if (policy_check_limit_value(ov->option, ov->value, (enum limit_id)id, value, err) < 0)
		return -1;
	return apply_limit(p, base, ov, (enum limit_id)id, value, at, err);
}

static int apply_list(struct policy *p, struct strlist *l, bool loosens,
		      const struct policy_override *ov, const struct origin *at,
		      struct sbx_err *err)
{
	/* sealed: no host environment and no syscall the author denied */
	if (p->sealed && loosens)
		return refuse_sealed(p, ov, err);
	if (strlist_push(l, ov->value, at) < 0)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return 0;
}

static int apply_one(struct policy *p, const uint64_t *base,
		     const struct policy_override *ov, struct sbx_err *err)
{
	const struct origin at = { .file = CMDLINE, .option = ov->option };

	switch (ov->kind) {
	case OV_LIMIT:
		return apply_limit(p, base, ov, ov->limit, ov->number, &at, err);
	case OV_NET: return apply_net(p, ov, &at, err);
	case OV_BIND: /* fall through */
	case OV_BIND_RW: return apply_bind(p, ov, &at, err);
	case OV_TMPFS: return apply_tmpfs(p, ov, &at, err);
	case OV_CHDIR: return apply_chdir(p, ov, &at, err);
	case OV_SET: return apply_set(p, base, ov, &at, err);
	case OV_ENV: return apply_list(p, &p->env, true, ov, &at, err);
	case OV_ENV_KEEP: return apply_list(p, &p->env_keep, true, ov, &at, err);
	case OV_SECCOMP_ALLOW:
		return apply_list(p, &p->seccomp.allow, true, ov, &at, err);
	case OV_SECCOMP_DENY:
		return apply_list(p, &p->seccomp.deny, false, ov, &at, err);
	}
	return err_set(err, ERR_INTERNAL, 0, "option %s has no policy effect",
		       ov->option);
}

/* ---- the caller's directory ------------------------------------------- */

static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strcmp(dir, "/") == 0 ||
	       (strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0'));
}

/* The caller's directory as getcwd() has it, or as $PWD spells it when
 * that names the same directory (a path through a symlink, as -B $PWD). */
static bool caller_dir(char *buf, size_t size, bool logical)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (!logical)
		return getcwd(buf, size) != NULL;
	if (!pwd || pwd[0] != '/' || strlen(pwd) >= size || stat(pwd, &a) != 0 ||
	    stat(".", &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return false;
	strcpy(buf, pwd);
	policy_path_clean(buf);
	return true;
}

/* The mount whose dst holds DIR most closely, or NULL. */
static const struct mount_entry *covering_mount(const struct policy *p, const char *dir)
{
	const struct mount_entry *best = NULL;

	for (size_t i = 0; i < p->nmounts; i++)
		if (path_within(dir, p->mounts[i].dst) &&
		    (!best || strlen(p->mounts[i].dst) > strlen(best->dst)))
			best = &p->mounts[i];
	return best;
}

/*
 * Neither the policy nor -C chose the directory: when the caller's own is
 * visible in the jail at the same path through a bind of the command line
 * (-B .), the program starts there, as a CI step expects; otherwise in
 * the workspace.  Only command-line binds: a policy's /usr is no reason
 * to leave the workspace.
 */
static int follow_caller_dir(struct policy *p, struct sbx_err *err)
{
	char dir[PATH_MAX];

	if (p->cwd)
		return 0;
	for (int logical = 0; logical < 2; logical++) {
		const struct mount_entry *m;

		if (!caller_dir(dir, sizeof(dir), logical))
			continue;
		m = covering_mount(p, dir);
		if (!m || m->type != MNT_BIND || !m->at.option || strcmp(m->src, m->dst) != 0)
			continue;
		if (!(p->cwd = strdup(dir)))
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		p->at[F_CWD] = (struct origin){
			.file = CMDLINE,
			.option = m->rw ? "--bind-rw (the caller's directory)"
					: "--bind (the caller's directory)",
		};
		return 0;
	}
	return 0;
}

int policy_apply_overrides(struct policy *p, const struct policy_override *v,
			   size_t n, const char *workdir, struct sbx_err *err)
{
	uint64_t base[LIM_COUNT];

	for (int i = 0; i < LIM_COUNT; i++)
		base[i] = policy_limit(p, (enum limit_id)i);
	/* sealed: a persistent host directory is a new writable mount */
	if (p->sealed && workdir)
		return err_set(err, ERR_CONFIG, 0,
			       "policy '%s' is sealed: --workdir %s would loosen it",
			       policy_label(p), workdir);
	for (size_t i = 0; i < n; i++)
		if (apply_one(p, base, &v[i], err) < 0)
			return -1;
	policy_sort_mounts(p);
	return follow_caller_dir(p, err);
}

/* ---- -p P --lang L: the lang block of another policy ------------------ */

/* A copy of AT whose strings live in P (the donor policy is freed). */
static int own_origin(struct policy *p, struct origin *at)
{
	const char **fields[] = { &at->file, &at->option };

	for (size_t f = 0; f < 2; f++) {
		const char *s = *fields[f];
		size_t i;

		if (!s)
			continue;
		for (i = 0; i < p->interned.n && strcmp(p->interned.v[i], s); i++)
			;
		if (i == p->interned.n && strlist_push(&p->interned, s, NULL) < 0)
			return -1;
		*fields[f] = p->interned.v[i];
	}
	return 0;
}

static int copy_strlist(struct policy *p, struct strlist *dst,
			const struct strlist *src, struct sbx_err *err)
{
	for (size_t i = 0; i < src->n; i++) {
		struct origin at = src->at[i];
		if (own_origin(p, &at) < 0 || strlist_push(dst, src->v[i], &at) < 0)
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	return 0;
}

static int copy_limits(struct policy *p, struct limits *dst,
		       const struct limits *src, struct sbx_err *err)
{
	*dst = *src;
	for (int i = 0; i < LIM_COUNT; i++)
		if (own_origin(p, &dst->at[i]) < 0)
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return 0;
}

int policy_borrow_lang(struct policy *p, const struct policy *donor,
		       struct sbx_err *err)
{
	if (copy_strlist(p, &p->lang.extensions, &donor->lang.extensions, err) < 0 ||
	    copy_strlist(p, &p->lang.run, &donor->lang.run, err) < 0 ||
	    copy_strlist(p, &p->lang.compile, &donor->lang.compile, err) < 0 ||
	    copy_strlist(p, &p->lang.version, &donor->lang.version, err) < 0 ||
	    copy_limits(p, &p->lang.compile_limits, &donor->lang.compile_limits, err) < 0)
		return -1;
	p->lang.present = true;
	return 0;
}
