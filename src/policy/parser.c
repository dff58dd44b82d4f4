/*
 * parser.c - tokens -> tree of fields (see parser.h).
 *
 *   message := { field [';' | ','] }
 *   field   := NAME ':' value | NAME [':'] '{' message '}'
 *   value   := STRING {STRING} | NUMBER | IDENT | '{' message '}' | '[' [item {',' item}] ']'
 *
 * One token of lookahead; recursion is bounded by POLICY_MAX_DEPTH so that
 * a hostile file cannot exhaust the stack.
 */
#include "policy/parser.h"

#include <stdlib.h>
#include <string.h>

struct parser {
	struct lexer lx;
	struct token tok;
	int depth;
	struct sbx_err *err;
};

static int parse_message(struct parser *ps, struct pfield **fields, size_t *n,
			 enum tok_kind end);
static int parse_value(struct parser *ps, struct pvalue *v, bool in_list);

static int next(struct parser *ps)
{
	free(ps->tok.text);
	return lex_next(&ps->lx, &ps->tok, ps->err);
}

static int unexpected(struct parser *ps, const char *wanted)
{
	char buf[64];

	return perr(ps->err, &ps->tok.at, "expected %s, got %s", wanted,
		    tok_describe(&ps->tok, buf, sizeof(buf)));
}

static int enter(struct parser *ps)
{
	/* bounded recursion: a deeply nested file must not overflow the stack */
	if (++ps->depth > POLICY_MAX_DEPTH)
		return perr(ps->err, &ps->tok.at, "nesting deeper than %d levels",
			    POLICY_MAX_DEPTH);
	return 0;
}

/* STRING {STRING}: adjacent strings concatenate, capped as one string. */
static int parse_string(struct parser *ps, struct pvalue *v)
{
	v->kind = PV_STRING;
	v->text = ps->tok.text;
	v->len = ps->tok.len;
	ps->tok.text = NULL;
	if (next(ps) < 0)
		return -1;
	while (ps->tok.kind == T_STRING) {
		char *s;

		if (v->len + ps->tok.len > POLICY_MAX_STRING)
			return perr(ps->err, &v->at, "string longer than %u bytes",
				    POLICY_MAX_STRING);
		s = realloc(v->text, v->len + ps->tok.len + 1);
		if (!s)
			return err_set(ps->err, ERR_INTERNAL, 0, "out of memory");
		memcpy(s + v->len, ps->tok.text, ps->tok.len + 1);
		v->text = s;
		v->len += ps->tok.len;
		if (next(ps) < 0)
			return -1;
	}
	if (memchr(v->text, '\0', v->len))
		return perr(ps->err, &v->at, "NUL byte in string");
	if (!utf8_valid(v->text, v->len))
		return perr(ps->err, &v->at, "invalid UTF-8 in string");
	return 0;
}

static int parse_atom(struct parser *ps, struct pvalue *v)
{
	v->kind = ps->tok.kind == T_NUMBER ? PV_NUMBER : PV_IDENT;
	v->text = ps->tok.text;
	v->len = ps->tok.len;
	v->is_int = ps->tok.is_int;
	v->negative = ps->tok.negative;
	v->num = ps->tok.num;
	ps->tok.text = NULL;
	return next(ps);
}

static int parse_block(struct parser *ps, struct pvalue *v)
{
	v->kind = PV_MESSAGE;
	if (enter(ps) < 0 || next(ps) < 0)
		return -1;
	if (parse_message(ps, &v->fields, &v->nfields, T_RBRACE) < 0)
		return -1;
	ps->depth--;
	return next(ps);
}

static int push_item(struct parser *ps, struct pvalue *v, size_t *cap)
{
	if (v->nitems == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		struct pvalue *items = realloc(v->items, ncap * sizeof(*items));

		if (!items)
			return err_set(ps->err, ERR_INTERNAL, 0, "out of memory");
		v->items = items;
		*cap = ncap;
	}
	memset(&v->items[v->nitems], 0, sizeof(v->items[0]));
	v->nitems++;
	return parse_value(ps, &v->items[v->nitems - 1], true);
}

static int parse_list(struct parser *ps, struct pvalue *v)
{
	size_t cap = 0;

	v->kind = PV_LIST;
	if (enter(ps) < 0 || next(ps) < 0)
		return -1;
	while (ps->tok.kind != T_RBRACKET) {
		if (v->nitems > 0) {
			if (ps->tok.kind != T_COMMA)
				return unexpected(ps, "',' or ']'");
			if (next(ps) < 0)
				return -1;
		}
		if (push_item(ps, v, &cap) < 0)
			return -1;
	}
	ps->depth--;
	return next(ps);
}

static int parse_value(struct parser *ps, struct pvalue *v, bool in_list)
{
	v->at = ps->tok.at;
	switch (ps->tok.kind) {
	case T_STRING:
		return parse_string(ps, v);
	case T_NUMBER:
	case T_IDENT:
		return parse_atom(ps, v);
	case T_LBRACE:
		return parse_block(ps, v);
	case T_LBRACKET:
		if (in_list)
			return perr(ps->err, &ps->tok.at, "lists cannot be nested");
		return parse_list(ps, v);
	default:
		return unexpected(ps, "a value");
	}
}

static int parse_field(struct parser *ps, struct pfield *f)
{
	if (ps->tok.kind != T_IDENT)
		return unexpected(ps, "a field name");
	f->name = ps->tok.text;
	f->at = ps->tok.at;
	ps->tok.text = NULL;
	if (next(ps) < 0)
		return -1;
	if (ps->tok.kind == T_LBRACE) {
		f->value.at = ps->tok.at;
		return parse_block(ps, &f->value);
	}
	if (ps->tok.kind != T_COLON) {
		char buf[64];

		return perr(ps->err, &ps->tok.at, "expected ':' or '{' after '%s', got %s",
			    f->name, tok_describe(&ps->tok, buf, sizeof(buf)));
	}
	if (next(ps) < 0)
		return -1;
	return parse_value(ps, &f->value, false);
}

static int parse_message(struct parser *ps, struct pfield **fields, size_t *n,
			 enum tok_kind end)
{
	size_t cap = 0;

	while (ps->tok.kind != end) {
		if (ps->tok.kind == T_EOF)
			return unexpected(ps, "'}'");
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct pfield *nf = realloc(*fields, ncap * sizeof(*nf));

			if (!nf)
				return err_set(ps->err, ERR_INTERNAL, 0, "out of memory");
			*fields = nf;
			cap = ncap;
		}
		memset(&(*fields)[*n], 0, sizeof(**fields));
		(*n)++;
		if (parse_field(ps, &(*fields)[*n - 1]) < 0)
			return -1;
		if ((ps->tok.kind == T_SEMI || ps->tok.kind == T_COMMA) && next(ps) < 0)
			return -1;
	}
	return 0;
}

/* The first NUL, reported where it is: a NUL would cut C strings short later. */
static int check_nul(const char *what, const char *file, const char *text, size_t len,
		     struct sbx_err *err)
{
	const char *nul = memchr(text, '\0', len);
	struct ppos at = { file, 1, 1 };

	if (!nul)
		return 0;
	for (const char *p = text; p < nul; p++) {
		if (*p == '\n') {
			at.line++;
			at.col = 1;
		} else {
			at.col++;
		}
	}
	return perr(err, &at, "NUL byte in %s", what);
}

int ptree_parse(const char *file, const char *text, size_t len,
		struct ptree *out, struct sbx_err *err)
{
	return ptree_parse_as("policy", file, text, len, out, err);
}

int ptree_parse_as(const char *what, const char *file, const char *text, size_t len,
		   struct ptree *out, struct sbx_err *err)
{
	struct parser ps = { .err = err };
	struct ppos whole = { file, 0, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > POLICY_MAX_FILE)
		return perr(err, &whole, "%s larger than %u bytes", what, POLICY_MAX_FILE);
	if (check_nul(what, file, text, len, err) < 0)
		return -1;
	lex_init(&ps.lx, file, text, len);
	rc = next(&ps);
	if (rc == 0)
		rc = parse_message(&ps, &out->fields, &out->nfields, T_EOF);
	free(ps.tok.text);
	if (rc < 0)
		ptree_free(out);
	return rc;
}

int pvalue_parse_one(const char *label, const char *text, struct pvalue *out,
		     struct sbx_err *err)
{
	struct parser ps = { .err = err };
	struct ppos whole = { label, 0, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	lex_init(&ps.lx, label, text, strlen(text));
	ps.lx.line = 0; /* errors say "--set FIELD: ...", not a file position */
	rc = next(&ps);
	if (rc == 0 && (ps.tok.kind == T_LBRACE || ps.tok.kind == T_LBRACKET))
		rc = perr(err, &whole, "a single value is expected here");
	if (rc == 0)
		rc = parse_value(&ps, out, false);
	if (rc == 0 && ps.tok.kind != T_EOF)
		rc = perr(err, &whole, "unexpected text after the value");
	free(ps.tok.text);
	if (rc < 0) {
		pvalue_free(out);
		return -1;
	}
	out->at = whole;
	return 0;
}

static void pfields_free(struct pfield *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].name);
		pvalue_free(&f[i].value);
	}
	free(f);
}

void pvalue_free(struct pvalue *v)
{
	free(v->text);
	pfields_free(v->fields, v->nfields);
	for (size_t i = 0; i < v->nitems; i++)
		pvalue_free(&v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

void ptree_free(struct ptree *t)
{
	pfields_free(t->fields, t->nfields);
	memset(t, 0, sizeof(*t));
}
