/*
 * override.h - the command line's changes to a loaded policy.
 *
 * src/cli/ parses options into a list of struct policy_override, checking
 * every value as it reads it; this module applies that list on top of a
 * policy with origin "<command line>", clamping limits to max_limits
 * (noted in p->clamped) and refusing anything that loosens a sealed
 * policy.  The policy layer owns both rules, so options never edit a
 * policy themselves.  Strings are the caller's (they point into argv).
 */
#ifndef SBX_POLICY_OVERRIDE_H
#define SBX_POLICY_OVERRIDE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "policy/policy.h"

enum override_kind {
	OV_LIMIT,         /* --time, --memory, ...: NUMBER in LIMIT's unit */
	OV_NET,           /* none, loopback or host */
	OV_BIND,          /* SRC[:DST], read-only */
	OV_BIND_RW,       /* SRC[:DST], writable */
	OV_TMPFS,         /* DST[:SIZE] */
	OV_CHDIR,         /* absolute, or relative to the workspace */
	OV_SET,           /* FIELD=VALUE, as in a policy file */
	OV_ENV,           /* NAME=VALUE */
	OV_ENV_KEEP,      /* NAME */
	OV_SECCOMP_ALLOW, /* a syscall or @group */
	OV_SECCOMP_DENY,
};

/* One policy-changing option, in command-line order. */
struct policy_override {
	enum override_kind kind;
	const char *option;  /* the long name, "--time": origins and errors */
	const char *value;   /* as written */
	enum limit_id limit; /* OV_LIMIT: which limit */
	uint64_t number;     /* OV_LIMIT: the value in the policy's unit */
};

/*
 * Apply V[0..N) to P in order.  WORKDIR is -w DIR (NULL = none): a
 * persistent host directory, which a sealed policy refuses like a new
 * writable mount.  On error P is half-changed: the caller frees it.
 */
int policy_apply_overrides(struct policy *p, const struct policy_override *v,
			   size_t n, const char *workdir, struct sbx_err *err);

/*
 * The policy file's rule for a limit's VALUE (--output 10 is refused like
 * output_bytes: 10 in a file), as a usage error naming OPT and TEXT, so the
 * command line and the policy language cannot disagree.
 */
int policy_check_limit_value(const char *opt, const char *text, enum limit_id id,
			     uint64_t value, struct sbx_err *err);

/*
 * -p P --lang L where P has no lang block: copy DONOR's lang block (and its
 * origins, whose strings P then owns) into P; DONOR may be freed after.
 */
int policy_borrow_lang(struct policy *p, const struct policy *donor,
		       struct sbx_err *err);

#endif
