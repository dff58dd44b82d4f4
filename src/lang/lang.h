/*
 * lang.h - language presets at run time: the argv templates of lang.run,
 * lang.compile and lang.version, the compile stage's policy and the host
 * runtime check.
 *
 * The folder: lang.c (this header), preset.c (which policy a run starts
 * from: -p, a --lang preset, or the default; preset.h), installed.c (the
 * built-in and installed preset names; installed.h).
 *
 * Compiled languages run in two jails: the compiler writes {out}, a file
 * named LANG_OUT_NAME at the top of the workspace (sbx removes any old one
 * first and leaves it out of the record's "files" and of -o), then the run
 * stage executes it.
 */
#ifndef SBX_LANG_H
#define SBX_LANG_H

#include <stdbool.h>

#include "base/err.h"
#include "policy/policy.h"

#define LANG_OUT_NAME ".sbx-out"

/*
 * Expand TMPL (lang.run or lang.compile of P) for FILE (a host path; its
 * basename is the copy in the workspace) and ARGS.  {args} must be a whole
 * element.  WHAT ("lang.run") names the template in errors.  The argv is
 * NULL-terminated and allocated; free with argv_free().
 */
int lang_expand(const struct policy *p, const struct strlist *tmpl,
		const char *what, const char *file, char *const *args,
		int nargs, char ***out, struct sbx_err *err);

/* The operands of a --lang run, FILE [ARG...]: a usage error unless FILE
 * is there and not empty. */
int lang_check_operands(char *const *operands, int n, struct sbx_err *err);

/* True when P has a compile step. */
bool lang_is_compiled(const struct policy *p);

/*
 * The compile stage's policy: a shallow copy of P (sharing its strings; do
 * not policy_free it) whose limits are lang.compile_limits where set.
 */
void lang_compile_policy(const struct policy *p, struct policy *out);

/*
 * Config error unless the host has P's runtime (the first element of
 * lang.compile, else of lang.run, when it is an absolute path).
 */
int lang_check_runtime(const struct policy *p, const char *lang, struct sbx_err *err);

/* The runtime path `sbx langs` shows, or NULL. */
const char *lang_runtime(const struct policy *p);

/* True when the host has BIN as an executable regular file. */
bool lang_host_has(const char *bin);

#endif
