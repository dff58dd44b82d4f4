/*
 * access.c - values out of an nsjail tree that schema.c has checked.
 *
 * The checks are done, so these only pick: the field by name, the value
 * in the unit it was written in, or nsjail's default when it is absent.
 */
#include "import/internal.h"

#include <stdio.h>
#include <string.h>

const struct pvalue *nj_get(const struct pvalue *msg, const char *name)
{
	for (size_t i = msg->nfields; i-- > 0;)
		if (strcmp(msg->fields[i].name, name) == 0)
			return &msg->fields[i].value;
	return NULL;
}

const struct pvalue *nj_nth(const struct pvalue *msg, const char *name, size_t n)
{
	for (size_t i = 0; i < msg->nfields; i++) {
		const struct pvalue *v = &msg->fields[i].value;

		if (strcmp(msg->fields[i].name, name) != 0)
			continue;
		if (v->kind != PV_LIST) {
			if (n == 0)
				return v;
			n--;
		} else if (n < v->nitems) {
			return &v->items[n];
		} else {
			n -= v->nitems;
		}
	}
	return NULL;
}

bool nj_bool(const struct pvalue *msg, const char *name, bool def)
{
	const struct pvalue *v = nj_get(msg, name);

	if (!v)
		return def;
	if (v->kind == PV_NUMBER)
		return v->num == 1;
	return v->text[0] == 't' || v->text[0] == 'T';
}

uint64_t nj_uint(const struct pvalue *msg, const char *name, uint64_t def)
{
	const struct pvalue *v = nj_get(msg, name);

	return v ? (v->negative ? 0 : v->num) : def;
}

int64_t nj_int(const struct pvalue *msg, const char *name, int64_t def)
{
	const struct pvalue *v = nj_get(msg, name);

	if (!v)
		return def;
	/* schema.c bounded the magnitude to the field's signed range */
	return v->negative ? -(int64_t)(v->num - 1) - 1 : (int64_t)v->num;
}

const char *nj_str(const struct pvalue *msg, const char *name, const char *def)
{
	const struct pvalue *v = nj_get(msg, name);

	return v ? v->text : def;
}

int nj_enum(const struct pvalue *msg, const char *name, const char *const *names, int def)
{
	const struct pvalue *v = nj_get(msg, name);

	if (!v)
		return def;
	if (v->kind == PV_NUMBER)
		return (int)v->num;
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], v->text) == 0)
			return i;
	return def;
}

const char *nj_text(const struct pvalue *v, char *buf, size_t size)
{
	if (v->kind == PV_IDENT && (!strcmp(v->text, "True") || !strcmp(v->text, "t")))
		return "true";
	if (v->kind == PV_IDENT && (!strcmp(v->text, "False") || !strcmp(v->text, "f")))
		return "false";
	if (v->kind == PV_STRING) {
		snprintf(buf, size, "\"%s\"", v->text);
		return buf;
	}
	if (v->kind == PV_MESSAGE)
		return "{ ... }";
	if (v->kind == PV_LIST)
		return "[ ... ]";
	return v->text;
}
