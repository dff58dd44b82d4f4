/*
 * emit.c - the sbx policy text being written: the lines and notes the
 * translators (translate.c, limits.c, mounts.c, kafel.c) add, and the
 * text laid out from them.
 *
 * Each line keeps the position of the nsjail field it came from, so the
 * written text can name it in a comment and origins.c can point the
 * loader's messages back at the nsjail file.  The text is written again
 * each time the loader refuses a line (nsjail.c drops it into the notes).
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

/* ---- writing the text ------------------------------------------------ */

static void write_where(FILE *out, const struct nj_item *it)
{
	policy_write_comment_text(out, it->at.file);
	if (it->at.line > 0)
		fprintf(out, ":%d:%d", it->at.line, it->at.col);
}

/* "  line  # FILE:12: comment" or "  line  # nsjail default: comment". */
static void write_line(FILE *out, struct nj_item *it, const char *indent, int *lineno)
{
	fprintf(out, "%s%s  # ", indent, it->line);
	if (it->at.line > 0) {
		policy_write_comment_text(out, it->at.file);
		fprintf(out, ":%d", it->at.line);
	} else {
		fputs("nsjail default", out);
	}
	if (it->comment) {
		fputs(": ", out);
		policy_write_comment_text(out, it->comment);
	}
	fputc('\n', out);
	it->out_line = (*lineno)++;
}

static void write_sect(FILE *out, struct nj_xlate *x, enum nj_sect s, const char *open,
		       int *lineno)
{
	const char *indent = open ? "  " : "";

	if (open) {
		fprintf(out, "%s {\n", open);
		(*lineno)++;
	}
	/* the fixed lines (default_action, ...) head their block */
	for (int fixed = 1; fixed >= 0; fixed--)
		for (size_t i = 0; i < x->n; i++)
			if (x->v[i].sect == s && x->v[i].line && !x->v[i].dropped &&
			    x->v[i].fixed == fixed)
				write_line(out, &x->v[i], indent, lineno);
	if (open) {
		fputs("}\n", out);
		(*lineno)++;
	}
}

static bool is_note(const struct nj_item *it)
{
	return !it->line || it->dropped;
}

/* Notes in file order (the defaults, line 0, first); stable. */
static int note_order(const void *a, const void *b)
{
	const struct nj_item *x = *(const struct nj_item *const *)a;
	const struct nj_item *y = *(const struct nj_item *const *)b;

	if (x->at.line != y->at.line)
		return x->at.line < y->at.line ? -1 : 1;
	if (x->at.col != y->at.col)
		return x->at.col < y->at.col ? -1 : 1;
	return x < y ? -1 : x > y;
}

const struct nj_item **nj_sorted_notes(const struct nj_xlate *x, size_t *n)
{
	const struct nj_item **v = malloc((x->n + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < x->n; i++)
		if (is_note(&x->v[i]))
			v[(*n)++] = &x->v[i];
	qsort(v, *n, sizeof(*v), note_order);
	return v;
}

static void write_notes(FILE *out, const struct nj_xlate *x)
{
	size_t n = 0;
	const struct nj_item **notes = nj_sorted_notes(x, &n);

	if (n > 0)
		fprintf(out, "\n# ---- not translated (%zu): what nsjail did and sbx does "
			"instead ----\n", n);
	for (size_t i = 0; i < n; i++) {
		const struct nj_item *it = notes[i];

		fputs("# ", out);
		write_where(out, it);
		fputs(": ", out);
		if (it->dropped) {
			fputs("sbx refuses `", out);
			policy_write_comment_text(out, it->line);
			fputs("`: ", out);
		}
		policy_write_comment_text(out, it->comment ? it->comment : "");
		fputc('\n', out);
	}
	free(notes);
}

static void write_header(FILE *out, const struct nj_xlate *x, int *lineno)
{
	fputs("# sbx policy translated by `sbx import nsjail` from ", out);
	policy_write_comment_text(out, x->file);
	fputs(" (nsjail.NsJailConfig).\n"
	      "# Each line names the nsjail field it came from (FILE:LINE), or says it is\n"
	      "# nsjail's default; what sbx does not do as nsjail would is listed at the end.\n",
	      out);
	*lineno += 3;
	if (!x->argv)
		return;
	fputs("# command (exec_bin), run when `sbx run -p nsjail:FILE` gets no COMMAND:", out);
	for (char **a = x->argv; *a; a++) {
		fputc(' ', out);
		policy_write_string(out, *a);
	}
	fputc('\n', out);
	(*lineno)++;
}

int nj_write_text(struct nj_xlate *x, char **text, size_t *len)
{
	FILE *out = open_memstream(text, len);
	int lineno = 1;

	if (!out)
		return oom(x->err);
	write_header(out, x, &lineno);
	write_sect(out, x, SECT_TOP, NULL, &lineno);
	write_sect(out, x, SECT_LIMITS, "limits", &lineno);
	write_sect(out, x, SECT_MOUNTS, NULL, &lineno);
	write_sect(out, x, SECT_ENV, NULL, &lineno);
	write_sect(out, x, SECT_SECCOMP, "seccomp", &lineno);
	write_notes(out, x);
	if (fclose(out) != 0) {
		free(*text);
		*text = NULL;
		return oom(x->err);
	}
	return 0;
}
