/*
 * cli.h - the options of `sbx run` and `sbx explain` (spec §2), and the
 * effective policy they describe.
 *
 * cli_parse() only reads argv: it checks every value (units, NAME=VALUE,
 * absolute paths) and records the policy overrides in command-line order.
 * cli_build_policy() loads the base policy (-p, or the --lang preset) and
 * applies those overrides with origin "<command line>", clamping limits to
 * max_limits and refusing anything that loosens a sealed policy.
 * cli_command_argv() turns COMMAND, or the --lang run template, into argv.
 * Strings in struct cli_options point into the caller's argv.
 */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/argv.h"
#include "base/err.h"
#include "policy/policy.h"

enum cli_opt {
	OPT_POLICY, OPT_LANG, OPT_TIME, OPT_CPU, OPT_MEMORY, OPT_PIDS,
	OPT_FSIZE, OPT_NOFILE, OPT_OUTPUT, OPT_NET, OPT_BIND, OPT_BIND_RW,
	OPT_TMPFS, OPT_WORKDIR, OPT_FILE, OPT_OUT, OPT_ENV, OPT_ENV_KEEP,
	OPT_CHDIR, OPT_STDIN, OPT_SET, OPT_SECCOMP_ALLOW, OPT_SECCOMP_DENY,
	OPT_JSON, OPT_STDOUT, OPT_STDERR, OPT_RESULT, OPT_QUIET, OPT_VERBOSE,
	OPT_HELP, OPT_COUNT
};

/* One policy-changing option, in command-line order. */
struct cli_override {
	enum cli_opt id;
	const char *option; /* the long name, "--time" */
	const char *value;  /* as written */
	uint64_t number;    /* limits: the value in the policy's unit */
};

struct cli_options {
	const char *policy;        /* -p; NULL = "default" (or the --lang preset) */
	const char *lang;          /* -l */
	struct cli_override *overrides;
	size_t noverrides;
	const char *workdir;       /* -w */
	const char **files;        /* -f, repeatable */
	size_t nfiles;
	const char *out_dir;       /* -o */
	const char *stdin_spec;    /* --stdin */
	const char *stdout_copy;   /* --stdout */
	const char *stderr_copy;   /* --stderr */
	const char *result_dest;   /* -r */
	bool json, quiet, verbose, help;
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

/* Load the base policy and apply the overrides of O into OUT. */
int cli_build_policy(const struct cli_options *o, struct policy *out,
		     struct sbx_err *err);

/* Apply the overrides of O on top of P (already loaded). */
int cli_apply_overrides(const struct cli_options *o, struct policy *p,
			struct sbx_err *err);

/*
 * The argv to run inside the jail: O's COMMAND, or with --lang the policy's
 * lang.run template with {file} = WORKSPACE/basename(FILE), {args},
 * {workspace}.  NULL-terminated, every string allocated; free with
 * argv_free().
 */
int cli_command_argv(const struct cli_options *o, const struct policy *p,
		     char ***argv_out, struct sbx_err *err);

/* The file-name extension of PATH (".py"), or "" when it has none. */
const char *cli_extension(const char *path);

#endif
