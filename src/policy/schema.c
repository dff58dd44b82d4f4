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
 * This file: the names of the language, the per-file bookkeeping, scalars,
 * limits, seccomp, lang and the top level; mount entries are applied by
 * schema_mount.c, the repeated strings (env, sets, lists) by
 * schema_strings.c.
 */
#include "base/cleanup.h"
#include "policy/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const net_names[3] = { "NONE", "LOOPBACK", "HOST" };
const char *const action_names[3] = { "ALLOW", "ERRNO", "KILL" };
const char *const mount_type_names[5] = { "BIND", "TMPFS", "PROC", "DEV", "SYMLINK" };

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
const char *const mount_names[7] = {
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
int once_named(struct file_state *fs, const char *kind, const char *name, size_t name_len,
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
const struct pvalue *items_of(const struct pvalue *v, size_t *n)
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
