/*
 * schema.c - a parsed policy file applied on top of a struct policy.
 *
 * Included files are applied first (load.c), then this file's fields:
 * scalars replace, env/env_keep/seccomp lists append (env replaces by
 * NAME), lang lists are replaced as a whole the first time a file sets
 * them, and a mount replaces an earlier one with the same dst.  Within one
 * file a scalar, an env NAME or a mount dst may appear only once: a second
 * one is almost always a copy-paste slip that would silently win.
 *
 * In order: the names of the language, the per-file bookkeeping, the
 * shapes of a field, scalars, limits, the repeated strings, mount
 * entries, seccomp and lang, and the top level.
 */
#include "policy/internal.h"
#include "base/cleanup.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

const char *const net_names[3] = { "NONE", "LOOPBACK", "HOST" };
const char *const action_names[3] = { "ALLOW", "ERRNO", "KILL" };
const char *const mount_type_names[5] = { "BIND", "TMPFS", "PROC", "DEV", "SYMLINK" };

#define NAMES(a) (a), sizeof(a) / sizeof((a)[0])

#define PS(field) offsetof(struct policy, field)
const struct scalar_desc policy_scalars[] = {
	{ "name", FT_STRING, PS(name), PS(at[F_NAME]) },
	{ "description", FT_STRING, PS(description), PS(at[F_DESCRIPTION]) },
	{ "hostname", FT_HOSTNAME, PS(hostname), PS(at[F_HOSTNAME]) },
	{ "uid", FT_ID, PS(uid), PS(at[F_UID]) },
	{ "gid", FT_ID, PS(gid), PS(at[F_GID]) },
	{ "cwd", FT_PATH, PS(cwd), PS(at[F_CWD]) },
	{ "workspace", FT_PATH, PS(workspace), PS(at[F_WORKSPACE]) },
	{ "network", FT_NETWORK, PS(network), PS(at[F_NETWORK]) },
	{ "sealed", FT_BOOL, PS(sealed), PS(at[F_SEALED]) },
	{ "seccomp.default_action", FT_ACTION, PS(seccomp.default_action),
	  PS(seccomp.at_default_action) },
	{ "seccomp.errno", FT_ERRNO, PS(seccomp.errno_value), PS(seccomp.at_errno) },
	{ "seccomp.deny_action", FT_ACTION, PS(seccomp.deny_action),
	  PS(seccomp.at_deny_action) },
};
const size_t policy_scalars_count = sizeof(policy_scalars) / sizeof(policy_scalars[0]);

static const char *const top_names[] = {
	"name", "description", "include", "hostname", "uid", "gid", "cwd", "workspace",
	"network", "sealed", "limits", "max_limits", "mount", "env", "env_keep",
	"seccomp", "lang",
};
static const char *const mount_names[7] = {
	"dst", "src", "type", "rw", "size_mb", "optional", "noexec",
};
static const char *const seccomp_names[] = {
	"default_action", "errno", "allow", "deny", "deny_action",
};
static const char *const lang_names[] = {
	"extensions", "run", "compile", "version", "compile_limits",
};

/* ---- per-file bookkeeping ---- */

void file_state_free(struct file_state *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].key);
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

static const struct seen *seen_find(const struct file_state *fs, const char *key)
{
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].key, key) == 0)
			return &fs->v[i];
	return NULL;
}

static int seen_add(struct file_state *fs, const char *key, const struct ppos *at,
		    struct sbx_err *err)
{
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct seen *v = realloc(fs->v, cap * sizeof(*v));

		if (!v)
			return err_set(err, ERR_INTERNAL, 0, "out of memory");
		fs->v = v;
		fs->cap = cap;
	}
	fs->v[fs->n].key = strdup(key);
	if (!fs->v[fs->n].key)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	fs->v[fs->n++].at = *at;
	return 0;
}

/* A second value for KEY in the same file is an error, naming the first. */
static int once_per_file(struct file_state *fs, const char *key, const char *what,
			 const struct ppos *at, struct sbx_err *err)
{
	const struct seen *s = seen_find(fs, key);

	if (s)
		return perr(err, at, "duplicate %s (first set at %s:%d:%d)", what,
			    s->at.file, s->at.line, s->at.col);
	return seen_add(fs, key, at, err);
}

/* once_per_file for KIND 'NAME' (a mount dst, an env NAME). */
static int once_named(struct file_state *fs, const char *kind, const char *name, size_t name_len,
	       const struct ppos *at, struct sbx_err *err)
{
	char *key cleanup_free = NULL, *what cleanup_free = NULL;

	/* asprintf leaves a pointer undefined when it fails: reset it */
	if (asprintf(&key, "%s:%.*s", kind, (int)name_len, name) < 0)
		key = NULL;
	else if (asprintf(&what, "%s '%.*s'", kind, (int)(name_len > 200 ? 200 : name_len),
			  name) < 0)
		what = NULL;
	if (!key || !what)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	return once_per_file(fs, key, what, at, err);
}

static int once_field(struct file_state *fs, const char *path, const struct ppos *at,
		      struct sbx_err *err)
{
	char what[160];

	snprintf(what, sizeof(what), "field '%s'", path);
	return once_per_file(fs, path, what, at, err);
}

/* ---- shapes ---- */

static int need_message(const struct pfield *f, const char *path, struct sbx_err *err)
{
	if (f->value.kind == PV_MESSAGE)
		return 0;
	return perr(err, &f->value.at, "'%s' is a message; write %s { ... }", path, f->name);
}

static int need_single(const struct pfield *f, const char *path, struct sbx_err *err)
{
	if (f->value.kind != PV_LIST)
		return 0;
	return perr(err, &f->value.at, "'%s' is not a repeated field; a list is not allowed",
		    path);
}

/* The items of a repeated field: a [list] or the single value. */
static const struct pvalue *items_of(const struct pvalue *v, size_t *n)
{
	if (v->kind == PV_LIST) {
		*n = v->nitems;
		return v->items;
	}
	*n = 1;
	return v;
}

static const struct scalar_desc *scalar_find(const char *path)
{
	for (size_t i = 0; i < policy_scalars_count; i++)
		if (strcmp(policy_scalars[i].name, path) == 0)
			return &policy_scalars[i];
	return NULL;
}

/* ---- scalars ---- */

static int store_enum(const struct pvalue *v, const char *field, const char *const *names,
		      size_t n, int *out, struct sbx_err *err)
{
	return val_enum(v, field, names, n, out, err);
}

static int store_typed(char *base, const struct scalar_desc *d, const struct pvalue *v,
		       struct sbx_err *err)
{
	char *s = NULL, **slot = (char **)(base + d->offset);
	uint64_t n;
	int e = 0;
	bool b;

	switch (d->type) {
	case FT_STRING:
	case FT_HOSTNAME:
	case FT_PATH:
		if ((d->type == FT_STRING ? val_string(v, d->name, &s, err) :
		     d->type == FT_HOSTNAME ? val_hostname(v, &s, err) :
		     val_path(v, d->name, &s, err)) < 0)
			return -1;
		free(*slot);
		*slot = s;
		return 0;
	case FT_ID:
		if (val_uint(v, d->name, 0, ID_MAX, &n, err) < 0)
			return -1;
		*(uint32_t *)(base + d->offset) = (uint32_t)n;
		return 0;
	case FT_ERRNO:
		if (val_uint(v, d->name, 1, 4095, &n, err) < 0)
			return -1;
		*(int *)(base + d->offset) = (int)n;
		return 0;
	case FT_BOOL:
		if (val_bool(v, d->name, &b, err) < 0)
			return -1;
		*(bool *)(base + d->offset) = b;
		return 0;
	case FT_NETWORK:
		if (store_enum(v, d->name, NAMES(net_names), &e, err) < 0)
			return -1;
		*(enum net_mode *)(base + d->offset) = (enum net_mode)e;
		return 0;
	case FT_ACTION:
		if (store_enum(v, d->name, NAMES(action_names), &e, err) < 0)
			return -1;
		*(enum sc_action *)(base + d->offset) = (enum sc_action)e;
		return 0;
	default:
		return err_set(err, ERR_INTERNAL, 0, "scalar '%s' has no store", d->name);
	}
}

int scalar_store(struct policy *p, const struct scalar_desc *d,
		 const struct pvalue *v, const struct origin *at, struct sbx_err *err)
{
	if (store_typed((char *)p, d, v, err) < 0)
		return -1;
	*(struct origin *)((char *)p + d->at_offset) = *at;
	return 0;
}

static int apply_scalar(struct policy *p, const struct scalar_desc *d,
			const struct pfield *f, struct file_state *fs, struct sbx_err *err)
{
	struct origin at = origin_at(&f->at);

	if (need_single(f, d->name, err) < 0 || once_field(fs, d->name, &f->at, err) < 0)
		return -1;
	return scalar_store(p, d, &f->value, &at, err);
}

/* ---- limits ---- */

static int limit_id_of(const char *name)
{
	for (int i = 0; i < LIM_COUNT; i++)
		if (strcmp(limit_names[i], name) == 0)
			return i;
	return -1;
}

static int apply_limits(struct limits *l, const char *path, const struct pfield *block,
			struct file_state *fs, struct sbx_err *err)
{
	if (need_message(block, path, err) < 0)
		return -1;
	for (size_t i = 0; i < block->value.nfields; i++) {
		const struct pfield *f = &block->value.fields[i];
		int id = limit_id_of(f->name);
		char key[128];
		uint64_t v;

		if (id < 0)
			return unknown_field(err, &f->at, f->name, path, limit_names, LIM_COUNT);
		snprintf(key, sizeof(key), "%s.%s", path, f->name);
		if (need_single(f, key, err) < 0 || once_field(fs, key, &f->at, err) < 0 ||
		    val_limit(&f->value, (enum limit_id)id, &v, err) < 0)
			return -1;
		l->v[id] = v;
		l->at[id] = origin_at(&f->at);
	}
	return 0;
}

/* ---- repeated strings ----
 *
 * In one of three modes: a list appends (lang lists), a set keeps the
 * first of equal entries (env_keep, seccomp allow/deny), env replaces by
 * NAME.  Every list is bounded (POLICY_MAX_ENTRIES).
 */

/* One item converted and checked; the conv_* adapt the val_* of env and
 * extensions to it. */
typedef int (*item_conv)(const struct pvalue *v, const char *field, char **out,
			 struct sbx_err *err);
enum list_mode { LM_LIST, LM_SET, LM_ENV };

static int conv_env(const struct pvalue *v, const char *field, char **out,
		    struct sbx_err *err)
{
	return val_env(v, out, err);
}

static int conv_env_name(const struct pvalue *v, const char *field, char **out,
			 struct sbx_err *err)
{
	return val_env_name(v, out, err);
}

static int conv_ext(const struct pvalue *v, const char *field, char **out,
		    struct sbx_err *err)
{
	return val_extension(v, out, err);
}

static ssize_t strlist_find(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

/* The entry of env whose NAME (the text up to '=') matches S's. */
static ssize_t env_find(const struct strlist *l, const char *s, size_t name_len)
{
	for (size_t i = 0; i < l->n; i++)
		if (strncmp(l->v[i], s, name_len) == 0 && l->v[i][name_len] == '=')
			return (ssize_t)i;
	return -1;
}

/* env: one NAME per file; a later file's NAME replaces the earlier value
 * (with *S, which it takes). */
static int env_add(struct policy *p, char **s, const struct ppos *at, struct file_state *fs,
		   struct sbx_err *err)
{
	size_t name_len = strcspn(*s, "=");
	struct origin o = origin_at(at);
	ssize_t i;

	if (once_named(fs, "env variable", *s, name_len, at, err) < 0)
		return -1;
	i = env_find(&p->env, *s, name_len);
	if (i >= 0) {
		free(p->env.v[i]);
		p->env.v[i] = steal_ptr(s);
		p->env.at[i] = o;
		return 0;
	}
	if (strlist_push(&p->env, *s, &o) < 0)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	return 0;
}

/* A set: an entry already present keeps its place and first origin. */
static int set_add(struct strlist *l, const char *s, const struct ppos *at, struct sbx_err *err)
{
	struct origin o = origin_at(at);

	if (strlist_find(l, s) < 0 && strlist_push(l, s, &o) < 0)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	return 0;
}

static int list_add(struct strlist *l, const char *s, const struct ppos *at, struct sbx_err *err)
{
	struct origin o = origin_at(at);

	if (strlist_push(l, s, &o) < 0)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	return 0;
}

/* Each item of F converted with CONV (PATH names the field), then added to
 * L: appended (LM_LIST), once (LM_SET), or replacing by NAME (LM_ENV, into
 * p->env). */
static int apply_strings(struct policy *p, struct strlist *l, enum list_mode mode,
			 item_conv conv, const char *path, const struct pfield *f,
			 struct file_state *fs, struct sbx_err *err)
{
	size_t n;
	const struct pvalue *items = items_of(&f->value, &n);

	for (size_t i = 0; i < n; i++) {
		char *s cleanup_free = NULL;
		int rc;

		/* bounded: merging is quadratic, and a 1 MiB list must not take minutes */
		if (l->n >= POLICY_MAX_ENTRIES)
			return perr(err, &items[i].at, "too many '%s' entries (at most %d)", path,
				    POLICY_MAX_ENTRIES);
		if (conv(&items[i], path, &s, err) < 0)
			return -1;
		if (mode == LM_ENV)
			rc = env_add(p, &s, &items[i].at, fs, err);
		else if (mode == LM_SET)
			rc = set_add(l, s, &items[i].at, err);
		else
			rc = list_add(l, s, &items[i].at, err);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ---- mount entries ----
 *
 * Each field checked and converted, the entry checked as a whole (type,
 * dst, src by type), then merged: a mount replaces an earlier one with
 * the same dst (how a file overrides what it includes), and a dst may
 * appear only once per file.
 */

struct mount_fields {
	struct mount_entry m;
	const struct pfield *f[7]; /* per mount_names[] entry, once set */
};

static int mount_field(struct mount_fields *mf, const struct pfield *f, struct sbx_err *err)
{
	const struct pvalue *v = &f->value;
	int idx = -1, e;

	for (size_t i = 0; i < sizeof(mount_names) / sizeof(mount_names[0]); i++)
		if (strcmp(mount_names[i], f->name) == 0)
			idx = (int)i;
	if (idx < 0)
		return unknown_field(err, &f->at, f->name, "mount", NAMES(mount_names));
	if (mf->f[idx])
		return perr(err, &f->at, "duplicate field '%s' in 'mount' (first set at %s:%d:%d)",
			    f->name, mf->f[idx]->at.file, mf->f[idx]->at.line, mf->f[idx]->at.col);
	mf->f[idx] = f;
	switch (idx) {
	case 0: return val_path(v, "mount.dst", &mf->m.dst, err);
	case 1: return val_string(v, "mount.src", &mf->m.src, err);
	case 2:
		if (val_enum(v, "mount.type", NAMES(mount_type_names), &e, err) < 0)
			return -1;
		mf->m.type = (enum mount_type)e;
		return 0;
	case 3: return val_bool(v, "mount.rw", &mf->m.rw, err);
	case 4: return val_uint(v, "mount.size_mb", 1, limit_max[LIM_MEMORY_MB],
				&mf->m.size_mb, err);
	case 5: return val_bool(v, "mount.optional", &mf->m.optional, err);
	default: return val_bool(v, "mount.noexec", &mf->m.noexec, err);
	}
}

static int mount_check_src(const struct mount_fields *mf, const struct ppos *at,
			   struct sbx_err *err)
{
	const struct mount_entry *m = &mf->m;
	const char *type = mount_type_names[m->type], *why;

	if (m->type == MNT_BIND || m->type == MNT_SYMLINK) {
		if (!m->src || !m->src[0])
			return perr(err, at, "'mount' of type %s needs a non-empty 'src'%s", type,
				    m->type == MNT_BIND ? " (the host path)" : " (the link target)");
		if (m->type == MNT_BIND && (why = path_problem(m->src)) != NULL)
			return perr(err, &mf->f[1]->value.at, "'mount.src' %s, got \"%.200s\"", why, m->src);
		return 0;
	}
	if (m->src)
		return perr(err, &mf->f[1]->value.at, "'src' is not used by %s mounts", type);
	return 0;
}

static int mount_check(const struct mount_fields *mf, const struct ppos *at,
		       struct sbx_err *err)
{
	const struct mount_entry *m = &mf->m;

	if (!mf->f[2])
		return perr(err, at, "'mount' needs a 'type' (BIND, TMPFS, PROC, DEV or SYMLINK)");
	if (!m->dst)
		return perr(err, at, "'mount' needs a 'dst' (an absolute path inside the jail)");
	/* the root is always a fresh tmpfs; a mount on it would expose or hide everything */
	if (strcmp(m->dst, "/") == 0)
		return perr(err, &mf->f[0]->value.at, "'mount.dst' must not be \"/\" (the root is always a fresh tmpfs)");
	/* DEV's size_mb promised a /dev/shm it never made: refused, not ignored */
	if (m->size_mb && m->type == MNT_DEV)
		return perr(err, &mf->f[4]->at, "'size_mb' is only for TMPFS mounts: /dev/shm "
			    "is a mount of its own (mount { dst: \"%s/shm\" type: TMPFS "
			    "size_mb: N rw: true })", m->dst);
	if (m->size_mb && m->type != MNT_TMPFS)
		return perr(err, &mf->f[4]->at, "'size_mb' is only for TMPFS mounts");
	return mount_check_src(mf, at, err);
}

/* Replace the entry with the same dst (the override mechanism) or append. */
static int mount_merge(struct policy *p, struct mount_entry *m, struct sbx_err *err)
{
	struct mount_entry *v;

	for (size_t i = 0; i < p->nmounts; i++) {
		if (strcmp(p->mounts[i].dst, m->dst) == 0) {
			free(p->mounts[i].dst);
			free(p->mounts[i].src);
			p->mounts[i] = *m;
			return 0;
		}
	}
	v = realloc(p->mounts, (p->nmounts + 1) * sizeof(*v));
	if (!v)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	p->mounts = v;
	p->mounts[p->nmounts++] = *m;
	return 0;
}

/* An entry's strings until mount_merge takes them. */
static void mount_fields_free(struct mount_fields *mf)
{
	free(mf->m.dst);
	free(mf->m.src);
}

static int apply_mount(struct policy *p, const struct pvalue *v, const struct ppos *at,
		       struct file_state *fs, struct sbx_err *err)
{
	struct mount_fields mf __attribute__((cleanup(mount_fields_free))) = { 0 };

	if (v->kind != PV_MESSAGE)
		return perr(err, &v->at, "'mount' entries are messages; write mount { ... }");
	for (size_t i = 0; i < v->nfields; i++)
		if (mount_field(&mf, &v->fields[i], err) < 0)
			return -1;
	if (mount_check(&mf, at, err) < 0 ||
	    once_named(fs, "mount destination", mf.m.dst, strlen(mf.m.dst), &mf.f[0]->value.at,
		       err) < 0)
		return -1;
	mf.m.at = origin_at(at);
	if (mount_merge(p, &mf.m, err) < 0)
		return -1;
	mf.m.dst = mf.m.src = NULL; /* the policy's now */
	return 0;
}

static int apply_mounts(struct policy *p, const struct pfield *f, struct file_state *fs,
			struct sbx_err *err)
{
	size_t n;
	const struct pvalue *items = items_of(&f->value, &n);

	for (size_t i = 0; i < n; i++) {
		if (p->nmounts >= POLICY_MAX_ENTRIES)
			return perr(err, &items[i].at, "too many 'mount' entries (at most %d)",
				    POLICY_MAX_ENTRIES);
		if (apply_mount(p, &items[i], n == 1 ? &f->at : &items[i].at, fs, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- seccomp and lang ---- */

static int apply_seccomp(struct policy *p, const struct pfield *block, struct file_state *fs,
			 struct sbx_err *err)
{
	if (need_message(block, "seccomp", err) < 0)
		return -1;
	for (size_t i = 0; i < block->value.nfields; i++) {
		const struct pfield *f = &block->value.fields[i];
		char path[64];
		const struct scalar_desc *d;
		int rc;

		snprintf(path, sizeof(path), "seccomp.%.40s", f->name);
		if ((d = scalar_find(path)) != NULL)
			rc = apply_scalar(p, d, f, fs, err);
		else if (strcmp(f->name, "allow") == 0)
			rc = apply_strings(p, &p->seccomp.allow, LM_SET, val_syscall,
					   "seccomp.allow", f, fs, err);
		else if (strcmp(f->name, "deny") == 0)
			rc = apply_strings(p, &p->seccomp.deny, LM_SET, val_syscall,
					   "seccomp.deny", f, fs, err);
		else
			rc = unknown_field(err, &f->at, f->name, "seccomp", NAMES(seccomp_names));
		if (rc < 0)
			return -1;
	}
	return 0;
}

static struct strlist *lang_list(struct lang_spec *l, const char *name)
{
	if (strcmp(name, "extensions") == 0)
		return &l->extensions;
	if (strcmp(name, "run") == 0)
		return &l->run;
	if (strcmp(name, "compile") == 0)
		return &l->compile;
	if (strcmp(name, "version") == 0)
		return &l->version;
	return NULL;
}

/* The first time a file sets a lang list, it replaces the inherited one. */
static int lang_list_apply(struct policy *p, struct strlist *l, const struct pfield *f,
			   struct file_state *fs, struct sbx_err *err)
{
	char path[64];

	snprintf(path, sizeof(path), "lang.%s", f->name);
	if (!seen_find(fs, path)) {
		strlist_free(l);
		if (seen_add(fs, path, &f->at, err) < 0)
			return -1;
	}
	return apply_strings(p, l, LM_LIST,
			     l == &p->lang.extensions ? conv_ext : val_string, path, f, fs, err);
}

static int apply_lang(struct policy *p, const struct pfield *block, struct file_state *fs,
		      struct sbx_err *err)
{
	if (need_message(block, "lang", err) < 0)
		return -1;
	p->lang.present = true;
	for (size_t i = 0; i < block->value.nfields; i++) {
		const struct pfield *f = &block->value.fields[i];
		struct strlist *l = lang_list(&p->lang, f->name);
		int rc;

		if (l)
			rc = lang_list_apply(p, l, f, fs, err);
		else if (strcmp(f->name, "compile_limits") == 0)
			rc = apply_limits(&p->lang.compile_limits, "lang.compile_limits", f, fs, err);
		else
			rc = unknown_field(err, &f->at, f->name, "lang", NAMES(lang_names));
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ---- the top level ---- */

static int apply_field(struct policy *p, const struct pfield *f, struct file_state *fs,
		       struct sbx_err *err)
{
	const struct scalar_desc *d = strchr(f->name, '.') ? NULL : scalar_find(f->name);

	if (d)
		return apply_scalar(p, d, f, fs, err);
	if (strcmp(f->name, "include") == 0)
		return 0; /* applied before this file by load.c */
	if (strcmp(f->name, "limits") == 0)
		return apply_limits(&p->limits, "limits", f, fs, err);
	if (strcmp(f->name, "max_limits") == 0)
		return apply_limits(&p->max_limits, "max_limits", f, fs, err);
	if (strcmp(f->name, "mount") == 0)
		return apply_mounts(p, f, fs, err);
	if (strcmp(f->name, "env") == 0)
		return apply_strings(p, &p->env, LM_ENV, conv_env, "env", f, fs, err);
	if (strcmp(f->name, "env_keep") == 0)
		return apply_strings(p, &p->env_keep, LM_SET, conv_env_name, "env_keep", f, fs, err);
	if (strcmp(f->name, "seccomp") == 0)
		return apply_seccomp(p, f, fs, err);
	if (strcmp(f->name, "lang") == 0)
		return apply_lang(p, f, fs, err);
	return unknown_field(err, &f->at, f->name, NULL, NAMES(top_names));
}

int schema_apply(struct policy *p, const struct ptree *t, struct file_state *fs,
		 struct sbx_err *err)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (apply_field(p, &t->fields[i], fs, err) < 0)
			return -1;
	return 0;
}
