/*
 * env.h - the environment of the program `sbx run` starts.
 *
 * With -i on a terminal the host's TERM, then the policy's env, then
 * env_keep from sbx's own environment, then --env
 * (entries whose origin is an option): the command line wins, a later
 * NAME=... replaces an earlier one.  Nothing else from the host passes
 * (a host token or LD_PRELOAD must never leak into the jail).
 */
#ifndef SBX_CMD_ENV_H
#define SBX_CMD_ENV_H

#include <stdbool.h>

#include "base/err.h"
#include "policy/policy.h"

/* P's environment as a NULL-terminated allocated vector (argv_free);
 * TERMINAL (-i on a terminal): the host's TERM first. */
int env_build(const struct policy *p, bool terminal, char ***envp, struct sbx_err *err);

#endif
