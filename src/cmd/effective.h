/*
 * effective.h - the effective policy of `sbx run` and `sbx explain`: the
 * base policy (-p, --lang) with the command line's overrides on top.  One
 * function for both subcommands, so what explain prints is what run uses.
 */
#ifndef SBX_CMD_EFFECTIVE_H
#define SBX_CMD_EFFECTIVE_H

#include "base/err.h"
#include "cli/cli.h"
#include "policy/policy.h"

/* Load the base policy and apply the overrides of O into OUT; on error OUT
 * is zeroed (nothing to free). */
int effective_policy(const struct cli_options *o, struct policy *out,
		     struct sbx_err *err);

#endif
