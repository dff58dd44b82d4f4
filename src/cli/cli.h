/*
 * cli.h - the options of `sbx run` and `sbx explain` (see sbx(1)).
 *
 * cli_parse() only reads argv: it checks every value (units, NAME=VALUE,
 * absolute paths) and records the policy overrides in command-line order,
 * as the policy layer's struct policy_override.  Loading the base policy
 * and applying those overrides is src/cmd/effective.c's (with
 * lang/preset.h and policy/override.h); options never edit a policy.
 * cli_command_argv() turns COMMAND into argv (a --lang run's is the
 * preset's template: lang/lang.h).
 * Strings in struct cli_options point into the caller's argv.
 */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/argv.h"
#include "base/err.h"
#include "policy/override.h"
#include "policy/policy.h"

struct cli_options {
	const char *policy;        /* -p; NULL = "default" (or the --lang preset) */
	const char *lang;          /* -l */
	struct policy_override *overrides; /* in command-line order */
	size_t noverrides;
	const char *workdir;       /* -w */
	const char **files;        /* -f, repeatable */
	size_t nfiles;
	const char *out_dir;       /* -o */
	const char *stdin_spec;    /* --stdin */
	const char *stdout_copy;   /* --stdout */
	const char *stderr_copy;   /* --stderr */
	const char *result_dest;   /* -r */
	const char *cgroup_parent; /* --cgroup-parent */
	bool json, quiet, verbose, help;
	bool interactive;          /* -i */
	bool no_report;            /* --no-syscall-report */
	char **command;            /* COMMAND ARG..., or FILE ARG... with --lang */
	int ncommand;
};

/*
 * Parse ARGV[1..ARGC) for subcommand ARGV[0] ("run" or "explain").
 * On error O still holds what was parsed so far, and the record options
 * (--json, -q, -r) found anywhere before "--" are set best-effort so that
 * the config-error record goes where the user asked.
 */
int cli_parse(int argc, char **argv, struct cli_options *o, struct sbx_err *err);
void cli_options_free(struct cli_options *o);

/*
 * The argv to run inside the jail without --lang: O's COMMAND, or the
 * command an nsjail config names (P's default_command).  NULL-terminated,
 * every string allocated; free with argv_free().
 */
int cli_command_argv(const struct cli_options *o, const struct policy *p,
		     char ***argv_out, struct sbx_err *err);

#endif
