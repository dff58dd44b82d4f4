/*
 * builtin.h - policies compiled into the binary from policy/NAME.policy.
 * The table is generated at build time by tools/embed-policies.sh into
 * build/gen/builtin_policies.c; never copy policy text by hand.
 */
#ifndef SBX_BUILTIN_H
#define SBX_BUILTIN_H

#include <stddef.h>

struct builtin_policy {
	const char *name; /* file name without ".policy" */
	const char *text; /* NUL-terminated */
	size_t len;
};

extern const struct builtin_policy builtin_policies[];
extern const size_t builtin_policies_count;

/* The built-in named NAME, or NULL. */
const struct builtin_policy *builtin_find(const char *name);

#endif
