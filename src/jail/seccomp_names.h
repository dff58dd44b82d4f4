/*
 * seccomp_names.h - syscall and @group names of a seccomp block resolved
 * into numbers (private to jail/ and the checks of cmd/).
 */
#ifndef SBX_JAIL_SECCOMP_NAMES_H
#define SBX_JAIL_SECCOMP_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "jail/seccomp.h"
#include "policy/policy.h"

/* SC_NR_MAX (syscall numbers below it are tracked): jail/seccomp.h */

/* Mark NAME's number in SET; a call this architecture lacks marks the
 * call its libc makes the same effect with (mkdir: mkdirat on aarch64),
 * and is ignored if there is none (-1: no such syscall anywhere). */
int sc_mark_syscall(bool *set, const char *name);
/* The native call that stands for NAME here, or NULL: NAME exists
 * natively, or has no stand-in. */
const char *sc_native_stand_in(const char *name);
/* "FILE:LINE:COL: " or "--option: " for AT, or "" (into BUF). */
const char *sc_origin_text(const struct origin *at, char *buf, size_t len);
/* Mark entry I of LIST (a name or @group) in SET; ERR_CONFIG with a
 * suggestion when it is neither.  WHAT: "allow" or "deny". */
int sc_expand_one(const struct strlist *list, size_t i, bool *set, const char *what,
		  struct sbx_err *err);
int sc_expand(const struct strlist *list, bool *set, const char *what, struct sbx_err *err);
/* The rules beyond names: a block that allows nothing, and command-line
 * allows of what stays denied whatever the options (ERR_CONFIG). */
int sc_spec_rules(const struct seccomp_spec *spec, struct sbx_err *err);
/* Clear from DENY what the command line's --seccomp-allow names. */
int sc_lift_cmdline_allows(const struct seccomp_spec *spec, bool *deny, struct sbx_err *err);
/* Entry I of LIST came from a command-line option. */
bool sc_from_command_line(const struct strlist *list, size_t i);

#endif
