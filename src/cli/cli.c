/*
 * cli.c - options of `sbx run` / `sbx explain` -> a list of overrides.
 *
 * Two steps, each a small group of functions below:
 *   1. scan argv (GNU style: --opt=value, --opt value, -xVALUE, bundled short
 *      flags, "--" ends options, the first operand starts COMMAND);
 *   2. check each value as it is read (base/units.c), so usage errors come
 *      before any policy is loaded or anything is created.
 * Applying the overrides to the loaded policy, with clamping to max_limits
 * and the "sealed policies only tighten" rule, is src/policy/override.c's.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

enum cli_opt {
	OPT_POLICY, OPT_LANG, OPT_TIME, OPT_CPU, OPT_MEMORY, OPT_PIDS,
	OPT_FSIZE, OPT_NOFILE, OPT_OUTPUT, OPT_NET, OPT_BIND, OPT_BIND_RW,
	OPT_TMPFS, OPT_WORKDIR, OPT_FILE, OPT_OUT, OPT_ENV, OPT_ENV_KEEP,
	OPT_CHDIR, OPT_STDIN, OPT_SET, OPT_SECCOMP_ALLOW, OPT_SECCOMP_DENY,
	OPT_JSON, OPT_STDOUT, OPT_STDERR, OPT_RESULT, OPT_QUIET, OPT_VERBOSE,
	OPT_HELP, OPT_CGROUP_PARENT, OPT_NO_REPORT, OPT_INTERACTIVE, OPT_COUNT
};

enum value_kind { V_NONE, V_TEXT, V_DUR, V_SIZE, V_SIZE_MIB, V_COUNT };

struct opt_def {
	enum cli_opt id;
	const char *name;    /* long form */
	char short_name;     /* 0 = none */
	enum value_kind kind;
	int limit;           /* enum limit_id, or -1 */
	int override;        /* enum override_kind, or -1: a run option */
};

static const struct opt_def opt_defs[] = {
	{ OPT_POLICY, "--policy", 'p', V_TEXT, -1, -1 },
	{ OPT_LANG, "--lang", 'l', V_TEXT, -1, -1 },
	{ OPT_TIME, "--time", 't', V_DUR, LIM_WALL_TIME_MS, OV_LIMIT },
	{ OPT_CPU, "--cpu", 0, V_DUR, LIM_CPU_TIME_MS, OV_LIMIT },
	{ OPT_MEMORY, "--memory", 'm', V_SIZE_MIB, LIM_MEMORY_MB, OV_LIMIT },
	{ OPT_PIDS, "--pids", 0, V_COUNT, LIM_PROCESSES, OV_LIMIT },
	{ OPT_FSIZE, "--fsize", 0, V_SIZE_MIB, LIM_FILE_SIZE_MB, OV_LIMIT },
	{ OPT_NOFILE, "--nofile", 0, V_COUNT, LIM_OPEN_FILES, OV_LIMIT },
	{ OPT_OUTPUT, "--output", 0, V_SIZE, LIM_OUTPUT_BYTES, OV_LIMIT },
	{ OPT_NET, "--net", 0, V_TEXT, -1, OV_NET },
	{ OPT_BIND, "--bind", 'b', V_TEXT, -1, OV_BIND },
	{ OPT_BIND_RW, "--bind-rw", 'B', V_TEXT, -1, OV_BIND_RW },
	{ OPT_TMPFS, "--tmpfs", 0, V_TEXT, -1, OV_TMPFS },
	{ OPT_WORKDIR, "--workdir", 'w', V_TEXT, -1, -1 },
	{ OPT_FILE, "--file", 'f', V_TEXT, -1, -1 },
	{ OPT_OUT, "--out", 'o', V_TEXT, -1, -1 },
	{ OPT_ENV, "--env", 'e', V_TEXT, -1, OV_ENV },
	{ OPT_ENV_KEEP, "--env-keep", 0, V_TEXT, -1, OV_ENV_KEEP },
	{ OPT_CHDIR, "--chdir", 'C', V_TEXT, -1, OV_CHDIR },
	{ OPT_INTERACTIVE, "--interactive", 'i', V_NONE, -1, -1 },
	{ OPT_STDIN, "--stdin", 0, V_TEXT, -1, -1 },
	{ OPT_SET, "--set", 0, V_TEXT, -1, OV_SET },
	{ OPT_SECCOMP_ALLOW, "--seccomp-allow", 0, V_TEXT, -1, OV_SECCOMP_ALLOW },
	{ OPT_SECCOMP_DENY, "--seccomp-deny", 0, V_TEXT, -1, OV_SECCOMP_DENY },
	{ OPT_JSON, "--json", 0, V_NONE, -1, -1 },
	{ OPT_STDOUT, "--stdout", 0, V_TEXT, -1, -1 },
	{ OPT_STDERR, "--stderr", 0, V_TEXT, -1, -1 },
	{ OPT_RESULT, "--result", 'r', V_TEXT, -1, -1 },
	{ OPT_QUIET, "--quiet", 'q', V_NONE, -1, -1 },
	{ OPT_VERBOSE, "--verbose", 'v', V_NONE, -1, -1 },
	{ OPT_HELP, "--help", 'h', V_NONE, -1, -1 },
	{ OPT_CGROUP_PARENT, "--cgroup-parent", 0, V_TEXT, -1, -1 },
	{ OPT_NO_REPORT, "--no-syscall-report", 0, V_NONE, -1, -1 },
};

#define NOPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

/* ---- small helpers ---------------------------------------------------- */

static const struct opt_def *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(opt_defs[i].name) == len &&
		    strncmp(opt_defs[i].name, name, len) == 0)
			return &opt_defs[i];
	return NULL;
}

static const struct opt_def *find_short(char c)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opt_defs[i].short_name == c)
			return &opt_defs[i];
	return NULL;
}

static int unknown_long(const char *arg, size_t len, struct sbx_err *err)
{
	const char *names[NOPTS], *hint;
	char word[128];

	snprintf(word, sizeof(word), "%.*s", (int)(len < 127 ? len : 127), arg);
	for (size_t i = 0; i < NOPTS; i++)
		names[i] = opt_defs[i].name;
	hint = err_suggest(word, names, NOPTS);
	if (hint)
		return err_set(err, ERR_USAGE, 0,
			       "unknown option '%s' (did you mean '%s'?)", word,
			       hint);
	return err_set(err, ERR_USAGE, 0,
		       "unknown option '%s' (see 'sbx help run')", word);
}

/* ---- step 2: value checks -------------------------------------------- */

static int check_env_name(const char *opt, const char *name, size_t len,
			  struct sbx_err *err)
{
	if (len == 0)
		return err_set(err, ERR_USAGE, 0, "%s: empty variable name", opt);
	/* the policy's rule: a name like $'\xff' or '1A' reaches no shell
	 * as a variable and would put raw bytes into the record */
	if (!env_name_valid(name, len))
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%.*s' is not a variable name (letters, digits "
			       "and '_', not starting with a digit)", opt,
			       (int)(len > 80 ? 80 : len), name);
	return 0;
}

static int check_text_value(const struct opt_def *d, const char *v,
			    struct sbx_err *err)
{
	const char *eq;

	if (*v == '\0')
		return err_set(err, ERR_USAGE, 0, "%s: empty value", d->name);
	switch (d->id) {
	case OPT_ENV:
		eq = strchr(v, '=');
		if (!eq)
			return err_set(err, ERR_USAGE, 0,
				       "%s: '%s' is not NAME=VALUE", d->name, v);
		return check_env_name(d->name, v, (size_t)(eq - v), err);
	case OPT_ENV_KEEP:
		return check_env_name(d->name, v, strlen(v), err);
	case OPT_SET:
		if (!strchr(v, '=') || *v == '=')
			return err_set(err, ERR_USAGE, 0,
				       "%s: '%s' is not FIELD=VALUE (e.g. limits.wall_time_ms=2000)",
				       d->name, v);
		return 0;
	case OPT_NET:
		if (strcmp(v, "none") && strcmp(v, "loopback") && strcmp(v, "host"))
			return err_set(err, ERR_USAGE, 0,
				       "%s: '%s' is not none, loopback or host",
				       d->name, v);
		return 0;
	default:
		return 0;
	}
}

static int parse_limit(const struct opt_def *d, const char *v, uint64_t *out,
		       struct sbx_err *err)
{
	int rc;

	if (strcmp(v, "unlimited") == 0) {
		*out = LIMIT_UNLIMITED;
		return 0;
	}
	if (d->kind == V_DUR)
		rc = units_duration_ms(d->name, v, out, err);
	else if (d->kind == V_SIZE)
		rc = units_size_bytes(d->name, v, out, err);
	else if (d->kind == V_SIZE_MIB)
		rc = units_size_mib(d->name, v, out, err);
	else
		rc = units_count(d->name, v, out, err);
	if (rc < 0)
		return -1;
	if (*out > limit_max[d->limit])
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is too large (%s is at most %llu)",
			       d->name, v, limit_names[d->limit],
			       (unsigned long long)limit_max[d->limit]);
	return policy_check_limit_value(d->name, v, (enum limit_id)d->limit, *out, err);
}

/* ---- step 1: scanning -------------------------------------------------- */

static int push_override(struct cli_options *o, const struct opt_def *d,
			 const char *v, uint64_t number, struct sbx_err *err)
{
	struct policy_override *n;

	n = realloc(o->overrides, (o->noverrides + 1) * sizeof(*n));
	if (!n)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	o->overrides = n;
	n[o->noverrides++] = (struct policy_override){
		(enum override_kind)d->override, d->name, v,
		(enum limit_id)(d->limit >= 0 ? d->limit : 0), number };
	return 0;
}

static int push_file(struct cli_options *o, const char *v, struct sbx_err *err)
{
	const char **n = realloc(o->files, (o->nfiles + 1) * sizeof(*n));

	if (!n)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	o->files = n;
	n[o->nfiles++] = v;
	return 0;
}

/* Store a run-only option; false when D changes the policy instead. */
static bool set_run_option(struct cli_options *o, const struct opt_def *d,
			   const char *v)
{
	switch (d->id) {
	case OPT_POLICY: o->policy = v; return true;
	case OPT_LANG: o->lang = v; return true;
	case OPT_WORKDIR: o->workdir = v; return true;
	case OPT_OUT: o->out_dir = v; return true;
	case OPT_STDIN: o->stdin_spec = v; return true;
	case OPT_STDOUT: o->stdout_copy = v; return true;
	case OPT_STDERR: o->stderr_copy = v; return true;
	case OPT_RESULT: o->result_dest = v; return true;
	case OPT_CGROUP_PARENT: o->cgroup_parent = v; return true;
	case OPT_JSON: o->json = true; return true;
	case OPT_INTERACTIVE: o->interactive = true; return true;
	case OPT_QUIET: o->quiet = true; return true;
	case OPT_VERBOSE: o->verbose = true; return true;
	case OPT_HELP: o->help = true; return true;
	case OPT_NO_REPORT: o->no_report = true; return true;
	default: return false;
	}
}

static int take_option(struct cli_options *o, const struct opt_def *d,
		       const char *v, struct sbx_err *err)
{
	uint64_t number = 0;

	if (v && check_text_value(d, v, err) < 0)
		return -1;
	if (d->id == OPT_FILE)
		return push_file(o, v, err);
	/* a second -p would silently replace the first, and with it a sealed
	 * policy that is meant to bound every option after it */
	if (d->id == OPT_POLICY && o->policy)
		return err_set(err, ERR_USAGE, 0, "--policy given twice ('%s', then '%s'): "
			       "give one base policy (a policy file can include others)",
			       o->policy, v);
	if (set_run_option(o, d, v))
		return 0;
	if (d->limit >= 0 && parse_limit(d, v, &number, err) < 0)
		return -1;
	return push_override(o, d, v, number, err);
}

/* --name, --name=value or --name value; *i is advanced past what is used. */
static int scan_long(struct cli_options *o, int argc, char **argv, int *i,
		     struct sbx_err *err)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct opt_def *d = find_long(arg, len);

	if (!d)
		return unknown_long(arg, len, err);
	if (d->kind == V_NONE) {
		if (eq)
			return err_set(err, ERR_USAGE, 0,
				       "option '%s' takes no value", d->name);
		return take_option(o, d, NULL, err);
	}
	if (eq)
		return take_option(o, d, eq + 1, err);
	if (*i + 1 >= argc)
		return err_set(err, ERR_USAGE, 0, "option '%s' needs a value",
			       d->name);
	return take_option(o, d, argv[++*i], err);
}

/* -x, -xVALUE, -x VALUE, or bundled flags -qv. */
static int scan_short(struct cli_options *o, int argc, char **argv, int *i,
		      struct sbx_err *err)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		const struct opt_def *d = find_short(*p);
		if (!d)
			return err_set(err, ERR_USAGE, 0,
				       "unknown option '-%c' (see 'sbx help run')",
				       *p);
		if (d->kind == V_NONE) {
			if (take_option(o, d, NULL, err) < 0)
				return -1;
			continue;
		}
		if (p[1])
			return take_option(o, d, p + 1, err);
		if (*i + 1 >= argc)
			return err_set(err, ERR_USAGE, 0,
				       "option '-%c' (%s) needs a value", *p,
				       d->name);
		return take_option(o, d, argv[++*i], err);
	}
	return 0;
}

/* After an error: find the record options anyway, so the record goes where asked. */
static void scan_record_options(struct cli_options *o, int argc, char **argv,
				int from)
{
	for (int i = from; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			o->json = true;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			o->quiet = true;
		else if (!strncmp(a, "--result=", 9) && a[9])
			o->result_dest = a + 9;
		else if ((!strcmp(a, "-r") || !strcmp(a, "--result")) &&
			 i + 1 < argc)
			o->result_dest = argv[++i];
	}
}

int cli_parse(int argc, char **argv, struct cli_options *o, struct sbx_err *err)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break; /* first operand: COMMAND (or FILE); "-" too */
		rc = a[1] == '-' ? scan_long(o, argc, argv, &i, err)
				 : scan_short(o, argc, argv, &i, err);
		if (rc < 0) {
			scan_record_options(o, argc, argv, i + 1);
			return -1;
		}
	}
	o->command = argv + i;
	o->ncommand = argc - i;
	return 0;
}

void cli_options_free(struct cli_options *o)
{
	free(o->overrides);
	free(o->files);
	o->overrides = NULL;
	o->files = NULL;
	o->noverrides = o->nfiles = 0;
}

/* ---- the command ------------------------------------------------------ */

int cli_command_argv(const struct cli_options *o, const struct policy *p,
		     char ***argv_out, struct sbx_err *err)
{
	struct argv_builder b = { 0 };
	int rc = 0;

	*argv_out = NULL;
	/* -p nsjail:FILE without COMMAND: the config's exec_bin */
	if (o->ncommand < 1 && p->default_command.n > 0) {
		for (size_t i = 0; rc == 0 && i < p->default_command.n; i++)
			rc = argv_push(&b, strdup(p->default_command.v[i]), err);
		if (rc < 0) {
			argv_free(b.v);
			return -1;
		}
		*argv_out = b.v;
		return 0;
	}
	if (o->ncommand < 1)
		return err_set(err, ERR_USAGE, 0,
			       "missing COMMAND (usage: sbx run [OPTIONS] [--] COMMAND [ARG...])");
	/* execve of "" fails oddly inside the jail; say so here instead */
	if (o->command[0][0] == '\0')
		return err_set(err, ERR_USAGE, 0, "COMMAND is empty");
	for (int i = 0; rc == 0 && i < o->ncommand; i++)
		rc = argv_push(&b, strdup(o->command[i]), err);
	if (rc == 0 && b.n == 0)
		rc = err_set(err, ERR_CONFIG, 0, "the command is empty");
	if (rc < 0) {
		argv_free(b.v);
		return -1;
	}
	*argv_out = b.v;
	return 0;
}
