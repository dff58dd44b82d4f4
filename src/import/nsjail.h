/*
 * nsjail.h - read an nsjail config (nsjail.NsJailConfig in protobuf text
 * format) as an sbx policy.
 *
 * The text is parsed with the policy language's own parser (the two are
 * both protobuf text), checked against nsjail's schema (field names,
 * types, enums; errors are FILE:LINE:COL), then translated field by field
 * into sbx policy text.  What sbx cannot express becomes a note: a comment
 * in the text, and a warning for `sbx run -p nsjail:FILE`.  The text is
 * always checked with the real policy loader before it is handed out; an
 * entry the loader refuses (a mount on sbx's /proc, say) is turned into a
 * note that quotes the loader's reason.
 */
#ifndef SBX_IMPORT_NSJAIL_H
#define SBX_IMPORT_NSJAIL_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "policy/policy.h"

/* The prefix of `-p nsjail:FILE`. */
#define IMPORT_NSJAIL_PREFIX "nsjail:"

/* Something of the config that sbx does not do as nsjail would. */
struct import_note {
	char *where; /* "FILE:LINE:COL", or "FILE" for nsjail's defaults */
	char *text;  /* what is not translated, why, and what sbx does instead */
};

/* A position in the nsjail file; line 0 = none (a default, a brace). */
struct import_pos {
	int line, col;
};

struct import_result {
	char *text;                 /* the sbx policy, NUL-terminated */
	size_t len;
	struct import_note *notes;
	size_t nnotes;
	char **argv;                /* exec_bin as argv (NULL-terminated), or NULL */
	struct import_pos *lines;   /* [k]: where line k of TEXT came from */
	size_t nlines;
};

/* Translate LEN bytes of TEXT; FILE names it in positions and comments. */
int import_nsjail_text(const char *file, const char *text, size_t len,
		       struct import_result *out, struct sbx_err *err);

/* Read PATH (a regular file of at most 1 MiB; run by root, trusted as a
 * policy file is) and translate it. */
int import_nsjail_file(const char *path, struct import_result *out,
		       struct sbx_err *err);

/* Translate PATH and load the result into P, as `-p nsjail:PATH` does;
 * P's source is "nsjail:PATH", and its origins are positions in PATH (what
 * explain prints and errors quote), not in the translated text.  OUT keeps
 * the notes and exec_bin. */
int import_nsjail_policy(const char *path, struct policy *p,
			 struct import_result *out, struct sbx_err *err);

void import_result_free(struct import_result *r);

/*
 * The base policy of `sbx run -p` / `sbx explain -p`: "nsjail:FILE" is
 * translated (each note printed once on WARN as "sbx: warning: ..."; the
 * policy's default_command is exec_bin), anything else goes to
 * policy_load().
 */
int import_policy_load(const char *name_or_path, struct policy *out, FILE *warn,
		       struct sbx_err *err);

#endif
