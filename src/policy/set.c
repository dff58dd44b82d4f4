/*
 * set.c - `--set FIELD=VALUE`: one scalar of an already loaded policy.
 *
 * VALUE goes through the same checks as in a policy file (values.c).  It
 * may be written bare (`hostname=box`, `limits.memory_mb=256`,
 * `network=LOOPBACK`) or, for strings, quoted as in a file.  Clamping and
 * the sealed rules are the caller's (override.c): this only sets.
 */
#include "policy/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELD_NAMES 64

static bool is_string_type(enum field_type t)
{
	return t == FT_STRING || t == FT_HOSTNAME || t == FT_PATH;
}

/* Every name --set accepts, for did-you-mean. */
static size_t settable_names(char names[][40], const char **ptrs)
{
	size_t n = 0;

	for (size_t i = 0; i < policy_scalars_count; i++)
		snprintf(names[n++], 40, "%s", policy_scalars[i].name);
	for (int i = 0; i < LIM_COUNT; i++) {
		snprintf(names[n++], 40, "limits.%s", limit_names[i]);
		snprintf(names[n++], 40, "max_limits.%s", limit_names[i]);
	}
	for (size_t i = 0; i < n; i++)
		ptrs[i] = names[i];
	return n;
}

static int unknown_set_field(const char *field, struct sbx_err *err)
{
	char names[MAX_FIELD_NAMES][40];
	const char *ptrs[MAX_FIELD_NAMES];
	size_t n = settable_names(names, ptrs);
	struct ppos at = { "--set", 0, 0 };

	if (strchr(field, '.') == NULL && (strcmp(field, "mount") == 0 ||
	    strcmp(field, "env") == 0 || strcmp(field, "include") == 0))
		return perr(err, &at, "'%s' is not a scalar field; use the matching option "
			    "(--bind, --env, --policy)", field);
	return unknown_field(err, &at, field, NULL, ptrs, n);
}

/* VALUE as a tree value: a bare word is a string for string fields. */
static int set_value(const char *label, const char *text, bool string_field,
		     struct pvalue *v, struct sbx_err *err)
{
	if (string_field && text[0] != '"' && text[0] != '\'') {
		memset(v, 0, sizeof(*v));
		v->kind = PV_STRING;
		v->text = strdup(text);
		v->len = strlen(text);
		v->at.file = label;
		return v->text ? 0 : err_set(err, ERR_INTERNAL, 0, "out of memory");
	}
	return pvalue_parse_one(label, text, v, err);
}

static int set_limit(struct policy *p, const char *field, const char *label,
		     const char *text, const struct origin *at, struct sbx_err *err)
{
	struct limits *l = strncmp(field, "limits.", 7) == 0 ? &p->limits : &p->max_limits;
	const char *name = strchr(field, '.') + 1;
	struct pvalue v;
	uint64_t n;
	int id, rc;

	for (id = 0; id < LIM_COUNT; id++)
		if (strcmp(limit_names[id], name) == 0)
			break;
	if (id == LIM_COUNT)
		return unknown_set_field(field, err);
	if (set_value(label, text, false, &v, err) < 0)
		return -1;
	rc = val_limit(&v, (enum limit_id)id, &n, err);
	if (rc == 0) {
		l->v[id] = n;
		l->at[id] = *at;
	}
	pvalue_free(&v);
	return rc;
}

int policy_set_field(struct policy *p, const char *assignment,
		     const struct origin *at_in, struct sbx_err *err)
{
	const char *eq = strchr(assignment, '=');
	struct origin at = { 0 };
	char field[64], label[96];
	struct pvalue v;
	int rc;

	if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof(field))
		return err_set(err, ERR_USAGE, 0, "--set expects FIELD=VALUE "
			       "(e.g. limits.wall_time_ms=2000), got '%.80s'", assignment);
	snprintf(field, sizeof(field), "%.*s", (int)(eq - assignment), assignment);
	snprintf(label, sizeof(label), "--set %s", field);
	if (at_in)
		at = *at_in;
	/* interned so the origin outlives the caller's strings */
	at.file = policy_intern(p, at.file ? at.file : "<command line>", err);
	at.option = policy_intern(p, at.option ? at.option : "--set", err);
	if (!at.file || !at.option)
		return -1;
	if (strncmp(field, "limits.", 7) == 0 || strncmp(field, "max_limits.", 11) == 0) {
		return set_limit(p, field, label, eq + 1, &at, err);
	}
	for (size_t i = 0; i < policy_scalars_count; i++) {
		const struct scalar_desc *d = &policy_scalars[i];

		if (strcmp(d->name, field) != 0)
			continue;
		if (set_value(label, eq + 1, is_string_type(d->type), &v, err) < 0)
			return -1;
		rc = scalar_store(p, d, &v, &at, err);
		pvalue_free(&v);
		return rc;
	}
	return unknown_set_field(field, err);
}
