/*
 * emit.c - the sbx policy text being written: the lines and notes the
 * translators (translate.c, limits.c, mounts.c, kafel.c) add.
 *
 * Each line keeps the position of the nsjail field it came from, so the
 * written text can name it in a comment and origins.c can point the
 * loader's messages back at the nsjail file.
 */
#include "import/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int oom(struct sbx_err *err)
{
	return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
}

char *nj_quote(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	policy_write_string(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *nj_fmt(struct nj_xlate *x, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		oom(x->err);
		return NULL;
	}
	return s;
}

struct ppos nj_at(const struct nj_xlate *x, const struct pvalue *msg, const char *name)
{
	for (size_t i = msg->nfields; i-- > 0;)
		if (strcmp(msg->fields[i].name, name) == 0)
			return msg->fields[i].at;
	return (struct ppos){ x->file, 0, 0 };
}

static int add_item(struct nj_xlate *x, enum nj_sect s, const struct ppos *at, char *line,
		    const char *fmt, va_list ap)
{
	struct nj_item *it;

	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 32;
		struct nj_item *v = realloc(x->v, cap * sizeof(*v));

		if (!v) {
			free(line);
			return oom(x->err);
		}
		x->v = v;
		x->cap = cap;
	}
	it = &x->v[x->n];
	memset(it, 0, sizeof(*it));
	it->sect = s;
	it->line = line;
	it->at = at ? *at : (struct ppos){ x->file, 0, 0 };
	if (fmt && vasprintf(&it->comment, fmt, ap) < 0) {
		free(line);
		return oom(x->err);
	}
	x->n++;
	return 0;
}

int nj_add(struct nj_xlate *x, enum nj_sect s, const struct ppos *at, char *line,
	   const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (!line)
		return oom(x->err);
	va_start(ap, fmt);
	rc = add_item(x, s, at, line, fmt, ap);
	va_end(ap);
	return rc;
}

int nj_note(struct nj_xlate *x, const struct ppos *at, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = add_item(x, SECT_NOTES, at, NULL, fmt, ap);
	va_end(ap);
	return rc;
}
