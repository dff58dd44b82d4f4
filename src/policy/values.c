/*
 * values.c - one typed, validated value out of a parse-tree node.
 *
 * All checks the policy language makes on a single value live here, so a
 * policy file and `--set` can never disagree about what is valid.  Every
 * error names the field and quotes the position of the value.
 */
#include "policy/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYSCALL_NAME_MAX 64
#define HOSTNAME_MAX 64 /* HOST_NAME_MAX on Linux */
#define PATH_LEN_MAX 4095

static const char *kind_name(const struct pvalue *v)
{
	switch (v->kind) {
	case PV_STRING: return "a string";
	case PV_NUMBER: return v->is_int ? "an integer" : "a number";
	case PV_IDENT: return "an identifier";
	case PV_MESSAGE: return "a message";
	default: return "a list";
	}
}

static int wrong_type(const struct pvalue *v, const char *field, const char *want,
		      struct sbx_err *err)
{
	if (v->kind == PV_NUMBER || v->kind == PV_IDENT)
		return perr(err, &v->at, "'%s' expects %s, got %s '%s'", field, want,
			    kind_name(v), v->text);
	return perr(err, &v->at, "'%s' expects %s, got %s", field, want, kind_name(v));
}

static int dup_text(const char *s, char **out, struct sbx_err *err)
{
	*out = strdup(s);
	if (!*out)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	return 0;
}

int val_string(const struct pvalue *v, const char *field, char **out, struct sbx_err *err)
{
	if (v->kind != PV_STRING)
		return wrong_type(v, field, "a string", err);
	return dup_text(v->text, out, err);
}

int val_bool(const struct pvalue *v, const char *field, bool *out, struct sbx_err *err)
{
	if (v->kind == PV_IDENT && strcmp(v->text, "true") == 0)
		*out = true;
	else if (v->kind == PV_IDENT && strcmp(v->text, "false") == 0)
		*out = false;
	else
		return wrong_type(v, field, "true or false", err);
	return 0;
}

int val_uint(const struct pvalue *v, const char *field, uint64_t min, uint64_t max,
	     uint64_t *out, struct sbx_err *err)
{
	if (v->kind != PV_NUMBER || !v->is_int)
		return wrong_type(v, field, "an integer", err);
	if (v->negative || v->num < min || v->num > max)
		return perr(err, &v->at, "'%s' must be between %llu and %llu, got %s", field,
			    (unsigned long long)min, (unsigned long long)max, v->text);
	*out = v->num;
	return 0;
}

const char *policy_limit_problem(enum limit_id id, uint64_t value, char *buf, size_t len)
{
	uint64_t min = id == LIM_OUTPUT_BYTES ? OUTPUT_BYTES_MIN : 1;

	if (value == LIMIT_UNLIMITED)
		return NULL;
	/* 0 is refused: the tools sbx replaces disagree on whether it means none or no limit */
	if (value == 0)
		return "must be a positive integer (0 is not allowed; use 'unlimited' to lift a limit)";
	/* the "[output truncated]" marker must fit in the output budget */
	if (value < min) {
		snprintf(buf, len, "must be at least %llu (the truncation marker must fit)",
			 (unsigned long long)min);
		return buf;
	}
	if (value > limit_max[id]) {
		snprintf(buf, len, "must be at most %llu", (unsigned long long)limit_max[id]);
		return buf;
	}
	return NULL;
}

int val_limit(const struct pvalue *v, enum limit_id id, uint64_t *out, struct sbx_err *err)
{
	const char *field = limit_names[id], *why;
	char buf[96];

	if (v->kind == PV_IDENT && strcmp(v->text, "unlimited") == 0) {
		*out = LIMIT_UNLIMITED;
		return 0;
	}
	if (v->kind != PV_NUMBER)
		return wrong_type(v, field, "a positive integer or 'unlimited'", err);
	if (!v->is_int || v->negative)
		return perr(err, &v->at, "'%s' must be a positive integer, got %s", field, v->text);
	if (!v->negative && v->num == 0)
		return perr(err, &v->at, "'%s' must be a positive integer "
			    "(0 is not allowed; use 'unlimited' to lift a limit)", field);
	/* a literal 2^64-1 is a number here, not the "unlimited" sentinel */
	why = policy_limit_problem(id, v->num == LIMIT_UNLIMITED ? v->num - 1 : v->num,
				   buf, sizeof(buf));
	if (why)
		return perr(err, &v->at, "'%s' %s, got %s", field, why, v->text);
	*out = v->num;
	return 0;
}

int val_enum(const struct pvalue *v, const char *field, const char *const *names,
	     size_t n, int *out, struct sbx_err *err)
{
	char want[128] = "one of";

	for (size_t i = 0; i < n; i++) {
		if (v->kind == PV_IDENT && strcmp(v->text, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s %s",
			 i ? (i + 1 == n ? " or" : ",") : "", names[i]);
	}
	if (v->kind == PV_IDENT) {
		const char *near = err_suggest(v->text, names, n);

		if (near)
			return perr(err, &v->at, "'%s' expects %s, got '%s' (did you mean '%s'?)",
				    field, want, v->text, near);
	}
	return wrong_type(v, field, want, err);
}

const char *path_problem(const char *s)
{
	const char *p;

	if (s[0] == '\0')
		return "must not be empty";
	/* the path is quoted in messages, explain and the record: JSON needs UTF-8 */
	if (!utf8_valid(s, strlen(s)))
		return "must be valid UTF-8";
	if (s[0] != '/')
		return "must be an absolute path (start with '/')";
	if (strlen(s) > PATH_LEN_MAX)
		return "is longer than 4095 bytes";
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "must not contain control characters";
	if (strstr(s, "//"))
		return "must be normalized (no '//')";
	if (s[1] != '\0' && s[strlen(s) - 1] == '/')
		return "must be normalized (no trailing '/')";
	/* '..' could walk out of the jail root or the workspace when joined later */
	for (p = s; (p = strchr(p, '/')) != NULL; p++) {
		size_t n = strcspn(p + 1, "/");

		if ((n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.'))
			return "must be normalized (no '.' or '..' components)";
	}
	return NULL;
}

int val_path(const struct pvalue *v, const char *field, char **out, struct sbx_err *err)
{
	const char *why;

	if (v->kind != PV_STRING)
		return wrong_type(v, field, "a path string", err);
	why = path_problem(v->text);
	if (why)
		return perr(err, &v->at, "'%s' %s, got \"%.200s\"", field, why, v->text);
	return dup_text(v->text, out, err);
}

int val_hostname(const struct pvalue *v, char **out, struct sbx_err *err)
{
	if (v->kind != PV_STRING)
		return wrong_type(v, "hostname", "a string", err);
	if (v->len < 1 || v->len > HOSTNAME_MAX ||
	    strspn(v->text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != v->len)
		return perr(err, &v->at, "'hostname' must be 1 to %d characters of "
			    "A-Z a-z 0-9 '.' '-', got \"%.80s\"", HOSTNAME_MAX, v->text);
	return dup_text(v->text, out, err);
}

bool env_name_valid(const char *s, size_t len)
{
	if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

int val_env(const struct pvalue *v, char **out, struct sbx_err *err)
{
	const char *eq;

	if (v->kind != PV_STRING)
		return wrong_type(v, "env", "a \"NAME=VALUE\" string", err);
	eq = strchr(v->text, '=');
	if (!eq)
		return perr(err, &v->at, "'env' entries are \"NAME=VALUE\", got \"%.80s\" "
			    "(to pass a host variable, use env_keep)", v->text);
	if (!env_name_valid(v->text, (size_t)(eq - v->text)))
		return perr(err, &v->at, "'env' name \"%.*s\" is not a valid variable name "
			    "([A-Za-z_][A-Za-z0-9_]*)", (int)(eq - v->text > 80 ? 80 : eq - v->text),
			    v->text);
	return dup_text(v->text, out, err);
}

int val_env_name(const struct pvalue *v, char **out, struct sbx_err *err)
{
	if (v->kind != PV_STRING)
		return wrong_type(v, "env_keep", "a variable name string", err);
	if (!env_name_valid(v->text, v->len))
		return perr(err, &v->at, "'env_keep' entry \"%.80s\" is not a valid variable "
			    "name ([A-Za-z_][A-Za-z0-9_]*)", v->text);
	return dup_text(v->text, out, err);
}

/* Syntax only; the jail checks names against the real syscall table. */
int val_syscall(const struct pvalue *v, const char *field, char **out, struct sbx_err *err)
{
	const char *s = v->text;
	bool group;

	if (v->kind != PV_STRING)
		return wrong_type(v, field, "a syscall name or @group string", err);
	group = s[0] == '@';
	if (v->len < (group ? 2u : 1u) || v->len > SYSCALL_NAME_MAX ||
	    strspn(s + group, group ? "abcdefghijklmnopqrstuvwxyz0123456789-"
				    : "abcdefghijklmnopqrstuvwxyz0123456789_") != v->len - group)
		return perr(err, &v->at, "'%s' entry \"%.80s\" is not a syscall name "
			    "([a-z0-9_]+) or a group (@[a-z0-9-]+)", field, s);
	return dup_text(s, out, err);
}

int val_extension(const struct pvalue *v, char **out, struct sbx_err *err)
{
	if (v->kind != PV_STRING)
		return wrong_type(v, "extensions", "a string like \".py\"", err);
	if (v->len < 2 || v->len > 32 || v->text[0] != '.' ||
	    strspn(v->text + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-") != v->len - 1)
		return perr(err, &v->at, "'extensions' entry \"%.80s\" must look like \".py\"",
			    v->text);
	return dup_text(v->text, out, err);
}

int unknown_field(struct sbx_err *err, const struct ppos *at, const char *word,
		  const char *where, const char *const *names, size_t n)
{
	const char *near = err_suggest(word, names, n);
	char in[80] = "";

	if (where)
		snprintf(in, sizeof(in), " in '%s'", where);
	if (near)
		return perr(err, at, "unknown field '%.80s'%s (did you mean '%s'?)", word, in, near);
	return perr(err, at, "unknown field '%.80s'%s", word, in);
}
