/*
 * schema_strings.c - the repeated string fields applied on top of a struct
 * policy, in one of three modes: a list appends (lang lists), a set keeps
 * the first of equal entries (env_keep, seccomp allow/deny), env replaces
 * by NAME.  Every list is bounded (POLICY_MAX_ENTRIES).
 */
#include "policy/internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int conv_env(const struct pvalue *v, const char *field, char **out, struct sbx_err *err)
{
	return val_env(v, out, err);
}

int conv_env_name(const struct pvalue *v, const char *field, char **out,
		  struct sbx_err *err)
{
	return val_env_name(v, out, err);
}

int conv_ext(const struct pvalue *v, const char *field, char **out, struct sbx_err *err)
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

/* env: one NAME per file; a later file's NAME replaces the earlier value. */
static int env_add(struct policy *p, char *s, const struct ppos *at, struct file_state *fs,
		   struct sbx_err *err)
{
	size_t name_len = strcspn(s, "=");
	struct origin o = origin_at(at);
	ssize_t i;

	if (once_named(fs, "env variable", s, name_len, at, err) < 0)
		return -1;
	i = env_find(&p->env, s, name_len);
	if (i >= 0) {
		free(p->env.v[i]);
		p->env.v[i] = s;
		p->env.at[i] = o;
		return 0;
	}
	if (strlist_push(&p->env, s, &o) < 0)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	free(s);
	return 0;
}

/* A set: an entry already present keeps its place and first origin. */
static int set_add(struct strlist *l, char *s, const struct ppos *at, struct sbx_err *err)
{
	struct origin o = origin_at(at);
	int rc = 0;

	if (strlist_find(l, s) < 0 && strlist_push(l, s, &o) < 0)
		rc = err_set(err, ERR_INTERNAL, 0, "out of memory");
	free(s);
	return rc;
}

static int list_add(struct strlist *l, char *s, const struct ppos *at, struct sbx_err *err)
{
	struct origin o = origin_at(at);
	int rc = strlist_push(l, s, &o);

	free(s);
	return rc < 0 ? err_set(err, ERR_INTERNAL, 0, "out of memory") : 0;
}

int apply_strings(struct policy *p, struct strlist *l, enum list_mode mode, item_conv conv,
		  const char *path, const struct pfield *f, struct file_state *fs,
		  struct sbx_err *err)
{
	size_t n;
	const struct pvalue *items = items_of(&f->value, &n);

	for (size_t i = 0; i < n; i++) {
		char *s = NULL;
		int rc;

		/* bounded: merging is quadratic, and a 1 MiB list must not take minutes */
		if (l->n >= POLICY_MAX_ENTRIES)
			return perr(err, &items[i].at, "too many '%s' entries (at most %d)", path,
				    POLICY_MAX_ENTRIES);
		if (conv(&items[i], path, &s, err) < 0)
			return -1;
		if (mode == LM_ENV)
			rc = env_add(p, s, &items[i].at, fs, err);
		else if (mode == LM_SET)
			rc = set_add(l, s, &items[i].at, err);
		else
			rc = list_add(l, s, &items[i].at, err);
		if (rc < 0) {
			if (mode == LM_ENV)
				free(s);
			return -1;
		}
	}
	return 0;
}
