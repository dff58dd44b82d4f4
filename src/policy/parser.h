/*
 * parser.h - protocol-buffer text format -> a tree with positions.
 *
 * Private to src/policy/ and src/import/ (nsjail configs are protobuf text
 * too).  The lexer (lexer.c) turns bytes into tokens and
 * the parser (parser.c) builds a tree of fields; it knows nothing about the
 * schema.  Every node carries file:line:col so that schema.c can quote the
 * exact place of an error.  Both are hardened against hostile input: caps on
 * file size, string size and nesting, no NUL bytes, valid UTF-8 in strings.
 */
#ifndef SBX_POLICY_PARSER_H
#define SBX_POLICY_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define POLICY_MAX_FILE   (1u << 20) /* bytes per policy file */
#define POLICY_MAX_STRING (1u << 16) /* bytes per (concatenated) string */
#define POLICY_MAX_DEPTH  32         /* nested messages and lists */

struct ppos {
	const char *file; /* interned by the caller; outlives the tree */
	int line, col;    /* line 0: not a file position ("--set x") */
};

enum pv_kind { PV_STRING, PV_NUMBER, PV_IDENT, PV_MESSAGE, PV_LIST };

struct pfield;

struct pvalue {
	enum pv_kind kind;
	struct ppos at;
	char *text;      /* STRING: decoded bytes; NUMBER/IDENT: as written */
	size_t len;      /* of text */
	bool is_int;     /* NUMBER: an integer that fits in uint64 */
	bool negative;   /* NUMBER: written with a leading '-' */
	uint64_t num;    /* NUMBER && is_int: the magnitude */
	struct pfield *fields; /* MESSAGE */
	size_t nfields;
	struct pvalue *items;  /* LIST */
	size_t nitems;
};

struct pfield {
	char *name;
	struct ppos at;
	struct pvalue value;
};

struct ptree {
	struct pfield *fields;
	size_t nfields;
};

/* Parse TEXT (LEN bytes, need not be NUL-terminated); FILE names it. */
int ptree_parse(const char *file, const char *text, size_t len,
		struct ptree *out, struct sbx_err *err);
/* The same for a text that is not a policy: WHAT ("nsjail config") is what
 * the whole-text errors (a NUL byte, too large) call it. */
int ptree_parse_as(const char *what, const char *file, const char *text, size_t len,
		   struct ptree *out, struct sbx_err *err);
/* Parse a single value (used by --set); at.line is 0 in errors. */
int pvalue_parse_one(const char *label, const char *text, struct pvalue *out,
		     struct sbx_err *err);
void ptree_free(struct ptree *t);
void pvalue_free(struct pvalue *v);

/* Errors at a position: "FILE:LINE:COL: message" (or "LABEL: message"). */
int perr(struct sbx_err *err, const struct ppos *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- lexer (lexer.c), used by parser.c only ---- */

enum tok_kind {
	T_EOF, T_IDENT, T_STRING, T_NUMBER, T_LBRACE, T_RBRACE,
	T_LBRACKET, T_RBRACKET, T_COLON, T_SEMI, T_COMMA
};

struct token {
	enum tok_kind kind;
	struct ppos at;
	char *text;      /* owned: IDENT/NUMBER as written, STRING decoded */
	size_t len;
	bool is_int, negative;
	uint64_t num;
};

struct lexer {
	const char *file;
	const char *s;
	size_t len, pos;
	int line, col;
};

void lex_init(struct lexer *lx, const char *file, const char *s, size_t len);
/* Next token into T (T->text owned by the caller). 0 or -1. */
int lex_next(struct lexer *lx, struct token *t, struct sbx_err *err);
const char *tok_describe(const struct token *t, char *buf, size_t size);
/* Valid UTF-8 (no overlongs, surrogates or code points past U+10FFFF)? */
bool utf8_valid(const char *s, size_t len);

#endif
