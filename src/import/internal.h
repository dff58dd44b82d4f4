/*
 * internal.h - pieces shared by the files of src/import/ (not a public API).
 *
 *   schema.c     nsjail's config.proto as a table, and the check of a
 *                parsed tree against it (names, types, enums, required)
 *   access.c     reading checked values out of the tree, with defaults
 *   kafel.c      the ALLOW/ERRNO/KILL subset of Kafel (seccomp_string)
 *   translate.c  top-level fields -> policy lines and notes
 *   limits.c     time_limit, rlimit_*, cgroup_*_max -> limits { }
 *   mounts.c     mount {}, mount_proc and the workspace
 *   emit.c       the sbx policy text being written: the lines and notes
 *                the translators add, laid out as a policy file
 *   nsjail.c     the driver: parse, check, translate, write, load-check
 *   origins.c    positions in the translated text -> the nsjail file
 */
#ifndef SBX_IMPORT_INTERNAL_H
#define SBX_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "import/nsjail.h"
#include "policy/parser.h"

/* ---- schema.c ---- */

enum nj_type { NJ_STRING, NJ_BYTES, NJ_BOOL, NJ_U32, NJ_I32, NJ_U64, NJ_I64, NJ_ENUM, NJ_MSG };

struct nj_msg;

struct nj_field {
	const char *name;
	enum nj_type type;
	bool repeated, required;
	const char *const *enums;  /* NJ_ENUM: value names, index = number */
	const struct nj_msg *msg;  /* NJ_MSG */
};

struct nj_msg {
	const char *name;          /* "MountPt", for messages */
	const struct nj_field *fields;
	size_t n;
};

extern const struct nj_msg nj_config;        /* nsjail.NsJailConfig */
extern const char *const nj_rlimit_types[];  /* VALUE SOFT HARD INF */
enum { RL_VALUE, RL_SOFT, RL_HARD, RL_INF };
extern const char *const nj_modes[];         /* LISTEN ONCE RERUN EXECVE */

/* Check the fields of MSG (a message value, or the top level) against D. */
int nj_check(const struct pvalue *msg, const struct nj_msg *d, struct sbx_err *err);

/* ---- access.c: values of a checked message ---- */

/* The value of the (non-repeated) field NAME of MSG, or NULL. */
const struct pvalue *nj_get(const struct pvalue *msg, const char *name);
/* The N-th value of repeated NAME (lists flattened), or NULL past the end. */
const struct pvalue *nj_nth(const struct pvalue *msg, const char *name, size_t n);
bool nj_bool(const struct pvalue *msg, const char *name, bool def);
uint64_t nj_uint(const struct pvalue *msg, const char *name, uint64_t def);
int64_t nj_int(const struct pvalue *msg, const char *name, int64_t def);
const char *nj_str(const struct pvalue *msg, const char *name, const char *def);
/* Index into NAMES (checked by nj_check), or DEF when absent. */
int nj_enum(const struct pvalue *msg, const char *name, const char *const *names, int def);
/* A bool/enum/number value as nsjail's text would print it ("true", "ONCE"). */
const char *nj_text(const struct pvalue *v, char *buf, size_t size);

/* ---- the translation: the lines and notes being built ---- */

enum nj_sect { SECT_TOP, SECT_LIMITS, SECT_MOUNTS, SECT_ENV, SECT_SECCOMP, SECT_NOTES };

/* One line of the policy (LINE) with its comment, or a note (LINE NULL). */
struct nj_item {
	enum nj_sect sect;
	char *line;
	char *comment;
	struct ppos at;  /* in the nsjail file; line 0 = nsjail's default */
	bool dropped;    /* the policy loader refused LINE; COMMENT says why */
	bool fixed;      /* part of the structure: never dropped */
	int out_line;    /* where LINE landed in the written text */
};

struct nj_xlate {
	const char *file;        /* the nsjail file, for positions */
	const struct pvalue *top;
	struct nj_item *v;
	size_t n, cap;
	struct sbx_err *err;
	char *workspace;         /* the workspace path chosen by mounts.c */
	char **argv;             /* exec_bin */
};

/* ---- emit.c: the lines and notes, and the text written from them ---- */

/* Add a line (LINE may be NULL: a note only).  COMMENT is printf-style. */
int nj_add(struct nj_xlate *x, enum nj_sect s, const struct ppos *at, char *line,
	   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A note: "FIELD: TEXT" about what is not translated. */
int nj_note(struct nj_xlate *x, const struct ppos *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A malloc'd policy line built printf-style; %s arguments are raw, use
 * nj_quote() for strings.  NULL (and ERR set) when out of memory. */
char *nj_fmt(struct nj_xlate *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* S as a policy string literal, malloc'd (NULL when out of memory). */
char *nj_quote(const char *s);
/* The position of field NAME of MSG, or the file itself when absent. */
struct ppos nj_at(const struct nj_xlate *x, const struct pvalue *msg, const char *name);

/* The policy text of X into *TEXT (malloc'd, *LEN bytes): the lines by
 * section, then the notes and the refused lines as comments.  Sets each
 * written item's out_line. */
int nj_write_text(struct nj_xlate *x, char **text, size_t *len);
/* The notes of X (refused lines included) in file order, malloc'd; *N of them. */
const struct nj_item **nj_sorted_notes(const struct nj_xlate *x, size_t *n);

/* ---- the translators, each run once by nsjail.c ---- */

int nj_translate_top(struct nj_xlate *x);      /* translate.c */
int nj_translate_limits(struct nj_xlate *x);   /* limits.c */
int nj_translate_mounts(struct nj_xlate *x);   /* mounts.c */
int nj_translate_seccomp(struct nj_xlate *x);  /* kafel.c */

/* ---- origins.c ---- */

/* MSG, a loader message about the translated text named LABEL, with each
 * "LABEL:LINE[:COL]" in it replaced by the nsjail position of that line
 * ("FILE:LINE:COL", or "FILE" for a line of nsjail's defaults); malloc'd. */
char *nj_unlabel(const struct nj_xlate *x, const char *label, const char *msg);
/* OUT->lines from the items' out_line (after the last nj_write_text). */
int nj_line_map(const struct nj_xlate *x, struct import_result *out);
/* P was loaded from OUT->text as LABEL: point its origins at FILE. */
int nj_remap_origins(struct policy *p, const char *label, const char *file,
		     const struct import_result *out, struct sbx_err *err);

#endif
