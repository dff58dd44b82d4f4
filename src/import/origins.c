/*
 * origins.c - positions in the translated text -> positions in the nsjail
 * file.
 *
 * The policy loader only ever sees the translated text (named
 * "nsjail:FILE"), so its messages and the origins it records are lines of
 * a text the user never wrote.  Every translated line remembers the
 * nsjail field it came from (struct nj_item.at); this file uses that to
 * rewrite the loader's reasons (a refused line becomes a note) and the
 * loaded policy's origins (what `sbx explain` prints and later errors
 * quote), so that both name FILE:LINE:COL of the nsjail config.
 */
#include "import/internal.h"

#include <stdlib.h>
#include <string.h>

/* The item written at line N of the last text, or NULL (a brace, the header). */
static const struct nj_item *item_at_line(const struct nj_xlate *x, long n)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].line && !x->v[i].dropped && x->v[i].out_line == n)
			return &x->v[i];
	return NULL;
}

/* "LINE" or "LINE:COL" at S: the line, and *END past it; -1 if none. */
static long parse_pos(const char *s, const char **end)
{
	char *e;
	long line;

	if (*s < '0' || *s > '9')
		return -1;
	line = strtol(s, &e, 10);
	if (e[0] == ':' && e[1] >= '0' && e[1] <= '9')
		strtol(e + 1, &e, 10);
	*end = e;
	return line;
}

char *nj_unlabel(const struct nj_xlate *x, const char *label, const char *msg)
{
	size_t n = strlen(label), len = 0;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, &len);
	const char *s = msg, *hit, *end;

	if (!out)
		return NULL;
	while ((hit = strstr(s, label))) {
		long line = hit[n] == ':' ? parse_pos(hit + n + 1, &end) : -1;
		const struct nj_item *it = line > 0 ? item_at_line(x, line) : NULL;

		if (line < 0) {
			fwrite(s, 1, (size_t)(hit + n - s), out);
			s = hit + n;
			continue;
		}
		fwrite(s, 1, (size_t)(hit - s), out);
		if (it && it->at.line > 0)
			fprintf(out, "%s:%d:%d", x->file, it->at.line, it->at.col);
		else
			fputs(x->file, out);
		s = end;
	}
	fputs(s, out);
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int nj_line_map(const struct nj_xlate *x, struct import_result *out)
{
	int max = 0;

	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].line && !x->v[i].dropped && x->v[i].out_line > max)
			max = x->v[i].out_line;
	out->nlines = (size_t)max + 1;
	out->lines = calloc(out->nlines, sizeof(*out->lines));
	if (!out->lines)
		return -1;
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].line && !x->v[i].dropped)
			out->lines[x->v[i].out_line] =
				(struct import_pos){ x->v[i].at.line, x->v[i].at.col };
	return 0;
}

struct remap {
	const char *label, *file;
	const struct import_result *r;
};

static void remap_one(struct origin *o, const struct remap *m)
{
	if (!o->file || o->option || o->line <= 0 || strcmp(o->file, m->label) != 0)
		return;
	if ((size_t)o->line < m->r->nlines && m->r->lines[o->line].line > 0) {
		o->file = m->file;
		o->col = m->r->lines[o->line].col;
		o->line = m->r->lines[o->line].line;
	} else {
		/* nsjail's default: "from nsjail:FILE", no line of FILE */
		o->line = o->col = 0;
	}
}

static void remap_list(struct strlist *l, const struct remap *m)
{
	for (size_t i = 0; i < l->n; i++)
		remap_one(&l->at[i], m);
}

static void remap_limits(struct limits *l, const struct remap *m)
{
	for (int i = 0; i < LIM_COUNT; i++)
		remap_one(&l->at[i], m);
}

int nj_remap_origins(struct policy *p, const char *label, const char *file,
		     const struct import_result *out, struct sbx_err *err)
{
	struct remap m = { label, NULL, out };
	struct strlist *lists[] = {
		&p->env, &p->env_keep, &p->includes, &p->seccomp.allow, &p->seccomp.deny,
		&p->lang.extensions, &p->lang.run, &p->lang.compile, &p->lang.version,
	};

	/* origins point into P->interned, which owns FILE's copy too */
	if (strlist_push(&p->interned, file, NULL) < 0)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	m.file = p->interned.v[p->interned.n - 1];
	for (int i = 0; i < F_SCALAR_COUNT; i++)
		remap_one(&p->at[i], &m);
	remap_one(&p->seccomp.at_default_action, &m);
	remap_one(&p->seccomp.at_errno, &m);
	remap_one(&p->seccomp.at_deny_action, &m);
	remap_limits(&p->limits, &m);
	remap_limits(&p->max_limits, &m);
	remap_limits(&p->lang.compile_limits, &m);
	for (size_t i = 0; i < p->nmounts; i++)
		remap_one(&p->mounts[i].at, &m);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		remap_list(lists[i], &m);
	return 0;
}
