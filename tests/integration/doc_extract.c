/*
 * doc_extract.c - the documentation's examples, read from the files; see
 * doc_extract.h.
 */
#include "doc_extract.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"

static void add(struct ex_list *l, const char *file, int line, enum ex_kind kind,
		const char *text, const char *shown)
{
	struct example *e;

	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	cr_assert_not_null(l->v);
	e = &l->v[l->n++];
	snprintf(e->where, sizeof(e->where), "%s:%d", file, line);
	e->kind = kind;
	e->text = strdup(text);
	e->shown = shown && *shown ? strdup(shown) : NULL;
}

void ex_list_free(struct ex_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].shown);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

char *ex_first_line(const char *text)
{
	return strndup(text, strcspn(text, "\n"));
}

/* A growing string. */
struct buf {
	char *s;
	size_t n;
};

static void buf_add(struct buf *b, const char *s, size_t len)
{
	b->s = realloc(b->s, b->n + len + 1);
	cr_assert_not_null(b->s);
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = '\0';
}

static void buf_line(struct buf *b, const char *s)
{
	if (b->n)
		buf_add(b, "\n", 1);
	buf_add(b, s, strlen(s));
}

static void buf_clear(struct buf *b)
{
	b->n = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* The lines of TEXT, each NUL-terminated in place; N set. */
static char **split_lines(char *text, size_t *n)
{
	char **v = NULL;

	*n = 0;
	for (char *p = text; *p; ) {
		char *nl = strchr(p, '\n');
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return v;
}

/* ---- console blocks: "$ command", its comment lines, what it shows ---- */

struct console {
	struct buf cmd, shown;
	int line;
};

static void console_flush(struct ex_list *l, const char *file, struct console *c)
{
	if (c->cmd.n)
		add(l, file, c->line, EX_SHELL, c->cmd.s, c->shown.s);
	buf_clear(&c->cmd);
	buf_clear(&c->shown);
}

static void console_line(struct ex_list *l, const char *file, int no, const char *line,
			 struct console *c)
{
	size_t lead = strspn(line, " \t");

	if (strncmp(line, "$ ", 2) == 0) {
		console_flush(l, file, c);
		buf_line(&c->cmd, line + 2);
		c->line = no;
	} else if (line[lead] == '\0') {
		console_flush(l, file, c);
	} else if (lead > 0 && line[lead] == '#' && c->cmd.n && !c->shown.n) {
		buf_line(&c->cmd, line); /* a comment carried over to its own line */
	} else if (c->cmd.n) {
		buf_line(&c->shown, line);
	}
}

/* ---- markdown ----------------------------------------------------------- */

void ex_from_markdown(struct ex_list *l, const char *rel)
{
	char *text = slurp_src(rel);
	size_t n;
	char **lines = split_lines(text, &n);
	enum { OUT, SH, CONSOLE, OTHER } mode = OUT;
	struct console c = { 0 };

	for (size_t i = 0; i < n; i++) {
		const char *line = lines[i];

		if (strncmp(line, "```", 3) == 0) {
			console_flush(l, rel, &c);
			if (mode != OUT)
				mode = OUT;
			else
				mode = !strcmp(line + 3, "sh") ? SH :
				       !strcmp(line + 3, "console") ? CONSOLE : OTHER;
		} else if (mode == CONSOLE) {
			console_line(l, rel, (int)i + 1, line, &c);
		} else if (mode == SH && line[strspn(line, " ")] && line[0] != '#') {
			add(l, rel, (int)i + 1, EX_SHELL, line, NULL);
		}
	}
	free(lines);
	free(text);
	free(c.cmd.s);
	free(c.shown.s);
}

/* ---- roff ----------------------------------------------------------------- */

/* The text a roff line prints: the escapes the pages use in examples. */
static char *unroff(const char *s)
{
	static const struct { const char *esc, *text; } map[] = {
		{ "\\-", "-" }, { "\\e", "\\" }, { "\\(aq", "'" }, { "\\(dq", "\"" },
		{ "\\&", "" }, { "\\fB", "" }, { "\\fI", "" }, { "\\fR", "" },
		{ "\\fP", "" }, { "\\(mu", "x" },
	};
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	while (*s) {
		size_t k = 0;
		while (k < sizeof(map) / sizeof(map[0]) &&
		       strncmp(s, map[k].esc, strlen(map[k].esc)) != 0)
			k++;
		if (k < sizeof(map) / sizeof(map[0])) {
			buf_add(&b, map[k].text, strlen(map[k].text));
			s += strlen(map[k].esc);
		} else {
			buf_add(&b, s++, 1);
		}
	}
	return b.s;
}

static bool is_message(const char *line)
{
	const char *colon = strstr(line, ".policy:");
	int a, b;

	return colon && strchr(line, ' ') > colon &&
	       sscanf(colon, ".policy:%d:%d: ", &a, &b) == 2;
}

static void roff_block(struct ex_list *l, const char *file, int first, char **lines,
		       size_t n)
{
	struct buf all = { 0 };
	struct console c = { 0 };
	bool console = false;

	for (size_t i = 0; i < n; i++)
		console |= strncmp(lines[i], "$ ", 2) == 0;
	if (console) {
		for (size_t i = 0; i < n; i++)
			console_line(l, file, first + (int)i, lines[i], &c);
		console_flush(l, file, &c);
		free(c.cmd.s);
		free(c.shown.s);
		return;
	}
	for (size_t i = 0; i < n; i++)
		buf_line(&all, lines[i]);
	if (!all.s)
		return;
	add(l, file, first, all.s[0] == '{' ? EX_RECORD :
	    strstr(all.s, "SBX ?=") ? EX_MAKEFILE :
	    is_message(lines[0]) ? EX_MESSAGE :
	    strncmp(all.s, "sbx ", 4) == 0 || strstr(all.s, "\nsbx ") ? EX_SHELL : EX_POLICY,
	    all.s, NULL);
	free(all.s);
}

void ex_from_roff(struct ex_list *l, const char *rel)
{
	char *text = slurp_src(rel);
	size_t n;
	char **lines = split_lines(text, &n);

	for (size_t i = 0; i < n; i++) {
		size_t j;
		if (strcmp(lines[i], ".EX") != 0)
			continue;
		for (j = i + 1; j < n && strcmp(lines[j], ".EE") != 0; j++)
			;
		char **block = calloc(j - i, sizeof(*block));
		for (size_t k = i + 1; k < j; k++)
			block[k - i - 1] = unroff(lines[k]);
		roff_block(l, rel, (int)i + 2, block, j - i - 1);
		for (size_t k = 0; k + 1 < j - i; k++)
			free(block[k]);
		free(block);
		i = j;
	}
	free(lines);
	free(text);
}

/* ---- help ------------------------------------------------------------------ */

static void add_unique(struct ex_list *l, const char *where, const char *cmd)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].text, cmd) == 0)
			return;
	add(l, where, 0, EX_SHELL, cmd, NULL);
}

/* 'sbx ...' in single quotes (COMMAND stands for a command: run). */
static void quoted_commands(struct ex_list *l, const char *where, const char *text)
{
	for (const char *p = strstr(text, "'sbx"); p; p = strstr(p + 1, "'sbx")) {
		size_t len = strcspn(p + 1, "'\n");
		char *cmd = strndup(p + 1, len), *at;

		while ((at = strstr(cmd, "COMMAND")) != NULL) {
			char *with = xasprintf("%.*srun%s", (int)(at - cmd), cmd, at + 7);
			free(cmd);
			cmd = with;
		}
		add_unique(l, where, cmd);
		free(cmd);
		p += len;
	}
	/* "e.g. --set limits.wall_time_ms=2000": an option, shown by explain */
	for (const char *p = strstr(text, "e.g."); p; p = strstr(p + 1, "e.g.")) {
		const char *opt = p + 4 + strspn(p + 4, " \n");
		if (opt[0] != '-')
			continue;
		char *cmd = xasprintf("sbx explain %.*s", (int)strcspn(opt, "\n"), opt);
		add_unique(l, where, cmd);
		free(cmd);
	}
}

void ex_from_help(struct ex_list *l, const char *sbx)
{
	char *cmd = xasprintf("'%s' help; '%s' 2>&1", sbx, sbx), *main_text = NULL;
	size_t n;

	host_sh(cmd, &main_text);
	free(cmd);
	quoted_commands(l, "sbx help", main_text);
	char **lines = split_lines(main_text, &n);
	bool in_commands = false;
	for (size_t i = 0; i < n; i++) {
		char name[32], *text = NULL, *where;
		if (!strcmp(lines[i], "Commands:")) {
			in_commands = true;
			continue;
		}
		if (!in_commands)
			continue;
		if (sscanf(lines[i], " %31s", name) != 1)
			break;
		cmd = xasprintf("'%s' help %s", sbx, name);
		host_sh(cmd, &text);
		where = xasprintf("sbx help %s", name);
		quoted_commands(l, where, text);
		free(where);
		free(cmd);
		free(text);
	}
	cr_assert(in_commands, "no command list in `sbx help`");
	free(lines);
	free(main_text);
}
