/*
 * cli.c - options of `sbx run` / `sbx explain` -> overrides on a policy.
 *
 * Three steps, each a small group of functions below:
 *   1. scan argv (GNU style: --opt=value, --opt value, -xVALUE, bundled short
 *      flags, "--" ends options, the first operand starts COMMAND);
 *   2. check each value as it is read (units.c), so usage errors come before
 *      any policy is loaded or anything is created;
 *   3. apply the overrides to the loaded policy in command-line order, with
 *      clamping to max_limits and the "sealed policies only tighten" rule.
 */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/builtin.h"
#include "lang/lang.h"
#include "base/units.h"

#define CMDLINE "<command line>"

enum value_kind { V_NONE, V_TEXT, V_DUR, V_SIZE, V_SIZE_MIB, V_COUNT };

struct opt_def {
	enum cli_opt id;
	const char *name;    /* long form */
	char short_name;     /* 0 = none */
	enum value_kind kind;
	int limit;           /* enum limit_id, or -1 */
};

static const struct opt_def opt_defs[] = {
	{ OPT_POLICY, "--policy", 'p', V_TEXT, -1 },
	{ OPT_LANG, "--lang", 'l', V_TEXT, -1 },
	{ OPT_TIME, "--time", 't', V_DUR, LIM_WALL_TIME_MS },
	{ OPT_CPU, "--cpu", 0, V_DUR, LIM_CPU_TIME_MS },
	{ OPT_MEMORY, "--memory", 'm', V_SIZE_MIB, LIM_MEMORY_MB },
	{ OPT_PIDS, "--pids", 0, V_COUNT, LIM_PROCESSES },
	{ OPT_FSIZE, "--fsize", 0, V_SIZE_MIB, LIM_FILE_SIZE_MB },
	{ OPT_NOFILE, "--nofile", 0, V_COUNT, LIM_OPEN_FILES },
	{ OPT_OUTPUT, "--output", 0, V_SIZE, LIM_OUTPUT_BYTES },
	{ OPT_NET, "--net", 0, V_TEXT, -1 },
	{ OPT_BIND, "--bind", 'b', V_TEXT, -1 },
	{ OPT_BIND_RW, "--bind-rw", 'B', V_TEXT, -1 },
	{ OPT_TMPFS, "--tmpfs", 0, V_TEXT, -1 },
	{ OPT_WORKDIR, "--workdir", 'w', V_TEXT, -1 },
	{ OPT_FILE, "--file", 'f', V_TEXT, -1 },
	{ OPT_OUT, "--out", 'o', V_TEXT, -1 },
	{ OPT_ENV, "--env", 'e', V_TEXT, -1 },
	{ OPT_ENV_KEEP, "--env-keep", 0, V_TEXT, -1 },
	{ OPT_CHDIR, "--chdir", 'C', V_TEXT, -1 },
	{ OPT_STDIN, "--stdin", 0, V_TEXT, -1 },
	{ OPT_SET, "--set", 0, V_TEXT, -1 },
	{ OPT_SECCOMP_ALLOW, "--seccomp-allow", 0, V_TEXT, -1 },
	{ OPT_SECCOMP_DENY, "--seccomp-deny", 0, V_TEXT, -1 },
	{ OPT_JSON, "--json", 0, V_NONE, -1 },
	{ OPT_STDOUT, "--stdout", 0, V_TEXT, -1 },
	{ OPT_STDERR, "--stderr", 0, V_TEXT, -1 },
	{ OPT_RESULT, "--result", 'r', V_TEXT, -1 },
	{ OPT_QUIET, "--quiet", 'q', V_NONE, -1 },
	{ OPT_VERBOSE, "--verbose", 'v', V_NONE, -1 },
	{ OPT_HELP, "--help", 'h', V_NONE, -1 },
};

#define NOPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

/* ---- small helpers ---------------------------------------------------- */

const char *cli_extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return (dot && dot != base) ? dot : "";
}

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

/* The policy's own rule for the value (--output 10 is refused like
 * output_bytes: 10 in a file), so the two cannot disagree. */
static int check_limit_value(const char *opt, const char *text, enum limit_id id,
			     uint64_t value, struct sbx_err *err)
{
	char buf[96];
	const char *why = policy_limit_problem(id, value, buf, sizeof(buf));

	if (why)
		return err_set(err, ERR_USAGE, 0, "%s: '%s': %s %s", opt, text,
			       limit_names[id], why);
	return 0;
}

/* "unlimited" lifts a limit (non-sealed policies); else the unit forms. */
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
	return check_limit_value(d->name, v, (enum limit_id)d->limit, *out, err);
}

/* ---- step 1: scanning -------------------------------------------------- */

static int push_override(struct cli_options *o, const struct opt_def *d,
			 const char *v, uint64_t number, struct sbx_err *err)
{
	struct cli_override *n;

	n = realloc(o->overrides, (o->noverrides + 1) * sizeof(*n));
	if (!n)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	o->overrides = n;
	n[o->noverrides++] = (struct cli_override){ d->id, d->name, v, number };
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
	case OPT_JSON: o->json = true; return true;
	case OPT_QUIET: o->quiet = true; return true;
	case OPT_VERBOSE: o->verbose = true; return true;
	case OPT_HELP: o->help = true; return true;
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

/* ---- step 3: the effective policy ------------------------------------ */

static const char *policy_label(const struct policy *p)
{
	if (p->name)
		return p->name;
	return p->source ? p->source : "?";
}

static int refuse_sealed(const struct policy *p, const struct cli_override *ov,
			 struct sbx_err *err)
{
	return err_set(err, ERR_CONFIG, 0,
		       "policy '%s' is sealed: %s %s would loosen it (a sealed policy only accepts lower limits, --net none and --seccomp-deny)",
		       policy_label(p), ov->option, ov->value);
}

static void note_clamp(struct policy *p, enum limit_id id, uint64_t requested,
		       uint64_t effective)
{
	size_t i;

	for (i = 0; i < p->nclamped && p->clamped[i].id != id; i++)
		;
	if (requested == effective) {
		/* a later override lifted the clamp: forget the old entry */
		if (i < p->nclamped)
			p->clamped[i] = p->clamped[--p->nclamped];
		return;
	}
	if (i == p->nclamped) {
		if (p->nclamped >= LIM_COUNT)
			return;
		p->nclamped++;
	}
	p->clamped[i] = (struct clamp){ id, requested, effective };
}

/* BASE holds the policy's effective limits before any override. */
static int apply_limit(struct policy *p, const uint64_t *base,
		       const struct cli_override *ov, enum limit_id id,
		       uint64_t value, const struct origin *at,
		       struct sbx_err *err)
{
	uint64_t max = p->max_limits.v[id], effective = value;

	/* sealed: the author's limits are ceilings the caller cannot raise */
	if (p->sealed && value > base[id])
		return refuse_sealed(p, ov, err);
	/* max_limits: an override above the ceiling is clamped, and said so */
	if (max != 0 && value > max)
		effective = max;
	note_clamp(p, id, value, effective);
	p->limits.v[id] = effective;
	p->limits.at[id] = *at;
	return 0;
}

static int apply_net(struct policy *p, const struct cli_override *ov,
		     const struct origin *at, struct sbx_err *err)
{
	enum net_mode mode = NET_NONE;

	if (strcmp(ov->value, "loopback") == 0)
		mode = NET_LOOPBACK;
	else if (strcmp(ov->value, "host") == 0)
		mode = NET_HOST;
	/* sealed: a network the author did not grant is never added */
	if (p->sealed && mode != NET_NONE)
		return refuse_sealed(p, ov, err);
	p->network = mode;
	p->at[F_NETWORK] = *at;
	return 0;
}

/* PATH made absolute against the cwd, with "." components dropped. */
static char *absolute_path(const char *path, struct sbx_err *err)
{
	char cwd[PATH_MAX], *out;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path[0] == '/') {
		out = strdup(path);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			err_set(err, ERR_USAGE, errno,
				"getcwd: %s (use an absolute path)",
				strerror(errno));
			return NULL;
		}
		if (strcmp(path, ".") == 0 || *path == '\0')
			out = strdup(cwd);
		else if (asprintf(&out, "%s%s%s", cwd,
				  strcmp(cwd, "/") ? "/" : "", path) < 0)
			out = NULL;
	}
	if (!out)
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return out;
}

static struct mount_entry *new_mount(struct policy *p, const struct origin *at,
				     struct sbx_err *err)
{
	struct mount_entry *m;

	m = realloc(p->mounts, (p->nmounts + 1) * sizeof(*m));
	if (!m) {
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	p->mounts = m;
	m = &p->mounts[p->nmounts];
	memset(m, 0, sizeof(*m));
	m->at = *at;
	return m;
}

static int apply_bind(struct policy *p, const struct cli_override *ov,
		      const struct origin *at, struct sbx_err *err)
{
	const char *colon = strchr(ov->value, ':');
	char *src = strndup(ov->value, colon ? (size_t)(colon - ov->value)
					      : strlen(ov->value));
	char *abs_src = NULL, *dst = NULL;
	struct mount_entry *m;

	/* sealed: no new host path is ever exposed to the program */
	if (p->sealed) {
		free(src);
		return refuse_sealed(p, ov, err);
	}
	if (!src || !*src || (colon && colon[1] != '/')) {
		free(src);
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is not SRC[:DST] with an absolute DST",
			       ov->option, ov->value);
	}
	abs_src = absolute_path(src, err);
	free(src);
	if (!abs_src)
		return -1;
	/* "/proc/" is /proc: one spelling, checked by the policy's rules */
	policy_path_clean(abs_src);
	dst = strdup(colon ? colon + 1 : abs_src);
	if (dst)
		policy_path_clean(dst);
	m = dst ? new_mount(p, at, err) : NULL;
	if (!m) {
		free(abs_src);
		free(dst);
		return dst ? -1 : err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	m->src = abs_src;
	m->dst = dst;
	m->type = MNT_BIND;
	m->rw = ov->id == OPT_BIND_RW;
	p->nmounts++;
	return 0;
}

static int apply_tmpfs(struct policy *p, const struct cli_override *ov,
		       const struct origin *at, struct sbx_err *err)
{
	const char *colon = strrchr(ov->value, ':');
	uint64_t mib = 0;
	struct mount_entry *m;
	char *dst;

	if (p->sealed)
		return refuse_sealed(p, ov, err);
	if (ov->value[0] != '/')
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is not DST[:SIZE] with an absolute DST",
			       ov->option, ov->value);
	if (colon && units_size_mib(ov->option, colon + 1, &mib, err) < 0)
		return -1;
	dst = strndup(ov->value, colon ? (size_t)(colon - ov->value)
				       : strlen(ov->value));
	if (dst)
		policy_path_clean(dst);
	m = dst ? new_mount(p, at, err) : NULL;
	if (!m) {
		free(dst);
		return dst ? -1 : err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	m->dst = dst;
	m->type = MNT_TMPFS;
	m->rw = true;
	m->size_mb = mib;
	p->nmounts++;
	return 0;
}

static int apply_chdir(struct policy *p, const struct cli_override *ov,
		       const struct origin *at, struct sbx_err *err)
{
	const char *ws = p->workspace ? p->workspace : "/mnt/data";
	char *dir;

	/* a relative -C is relative to the workspace, where the program starts */
	if (ov->value[0] == '/')
		dir = strdup(ov->value);
	else if (asprintf(&dir, "%s/%s", ws, ov->value) < 0)
		dir = NULL;
	if (!dir)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	free(p->cwd);
	p->cwd = dir;
	p->at[F_CWD] = *at;
	return 0;
}

/* --set limits.NAME=VALUE goes through apply_limit (clamp, sealed rule). */
static int set_limit_field(const char *field, size_t len)
{
	if (len <= 7 || strncmp(field, "limits.", 7) != 0)
		return -1;
	for (int i = 0; i < LIM_COUNT; i++)
		if (strlen(limit_names[i]) == len - 7 &&
		    strncmp(field + 7, limit_names[i], len - 7) == 0)
			return i;
	return -1;
}

static int apply_set(struct policy *p, const uint64_t *base,
		     const struct cli_override *ov, const struct origin *at,
		     struct sbx_err *err)
{
	const char *eq = strchr(ov->value, '=');
	int id = set_limit_field(ov->value, (size_t)(eq - ov->value));
	uint64_t value;

	if (id < 0) {
		/* sealed: only limits may change, and only downwards */
		if (p->sealed)
			return refuse_sealed(p, ov, err);
		return policy_set_field(p, ov->value, at, err);
	}
	if (strcmp(eq + 1, "unlimited") == 0)
		value = LIMIT_UNLIMITED;
	else if (units_count(ov->option, eq + 1, &value, err) < 0)
		return -1;
	if (value != LIMIT_UNLIMITED && value > limit_max[id])
		return err_set(err, ERR_USAGE, 0,
			       "%s: %s is too large (at most %llu)", ov->option,
			       ov->value, (unsigned long long)limit_max[id]);
	if (check_limit_value(ov->option, ov->value, (enum limit_id)id, value, err) < 0)
		return -1;
	return apply_limit(p, base, ov, (enum limit_id)id, value, at, err);
}

static int apply_list(struct policy *p, struct strlist *l, bool loosens,
		      const struct cli_override *ov, const struct origin *at,
		      struct sbx_err *err)
{
	/* sealed: no host environment and no syscall the author denied */
	if (p->sealed && loosens)
		return refuse_sealed(p, ov, err);
	if (strlist_push(l, ov->value, at) < 0)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return 0;
}

static int apply_one(struct policy *p, const uint64_t *base,
		     const struct cli_override *ov, struct sbx_err *err)
{
	const struct origin at = { .file = CMDLINE, .option = ov->option };

	switch (ov->id) {
	case OPT_NET: return apply_net(p, ov, &at, err);
	case OPT_BIND: /* fall through */
	case OPT_BIND_RW: return apply_bind(p, ov, &at, err);
	case OPT_TMPFS: return apply_tmpfs(p, ov, &at, err);
	case OPT_CHDIR: return apply_chdir(p, ov, &at, err);
	case OPT_SET: return apply_set(p, base, ov, &at, err);
	case OPT_ENV: return apply_list(p, &p->env, true, ov, &at, err);
	case OPT_ENV_KEEP: return apply_list(p, &p->env_keep, true, ov, &at, err);
	case OPT_SECCOMP_ALLOW:
		return apply_list(p, &p->seccomp.allow, true, ov, &at, err);
	case OPT_SECCOMP_DENY:
		return apply_list(p, &p->seccomp.deny, false, ov, &at, err);
	default:
		break;
	}
	for (size_t i = 0; i < NOPTS; i++)
		if (opt_defs[i].id == ov->id && opt_defs[i].limit >= 0)
			return apply_limit(p, base, ov,
					   (enum limit_id)opt_defs[i].limit,
					   ov->number, &at, err);
	return err_set(err, ERR_INTERNAL, 0, "option %s has no policy effect",
		       ov->option);
}

int cli_apply_overrides(const struct cli_options *o, struct policy *p,
			struct sbx_err *err)
{
	uint64_t base[LIM_COUNT];

	for (int i = 0; i < LIM_COUNT; i++)
		base[i] = policy_limit(p, (enum limit_id)i);
	/* sealed: a persistent host directory is a new writable mount */
	if (p->sealed && o->workdir)
		return err_set(err, ERR_CONFIG, 0,
			       "policy '%s' is sealed: --workdir %s would loosen it",
			       policy_label(p), o->workdir);
	for (size_t i = 0; i < o->noverrides; i++)
		if (apply_one(p, base, &o->overrides[i], err) < 0)
			return -1;
	return 0;
}

/* ---- the base policy: -p, --lang L, --lang auto ------------------------- */

static bool has_extension(const struct policy *p, const char *ext)
{
	for (size_t i = 0; i < p->lang.extensions.n; i++)
		if (strcmp(p->lang.extensions.v[i], ext) == 0)
			return true;
	return false;
}

/* "bash (.sh .bash), py (.py)" for the error that lists the presets. */
static void append_preset(char *buf, size_t size, const struct policy *p,
			  const char *name)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s (", len ? ", " : "", name);
	for (size_t i = 0; i < p->lang.extensions.n; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "",
			 p->lang.extensions.v[i]);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, ")");
}

/*
 * --lang auto: the built-in preset whose lang.extensions has FILE's
 * extension; a preset named like the extension (".sh" -> sh) wins a tie.
 */
static int pick_auto_lang(const char *file, const char **name,
			  struct sbx_err *err)
{
	const char *ext = cli_extension(file);
	char avail[768] = "";
	struct sbx_err ignored;

	*name = NULL;
	for (size_t i = 0; i < builtin_policies_count; i++) {
		struct policy p = { 0 };
		const char *n = builtin_policies[i].name;

		if (policy_load(n, &p, &ignored) < 0)
			continue;
		if (p.lang.present) {
			append_preset(avail, sizeof(avail), &p, n);
			if (*ext && has_extension(&p, ext) &&
			    (!*name || strcmp(n, ext + 1) == 0))
				*name = n;
		}
		policy_free(&p);
	}
	if (*name)
		return 0;
	return err_set(err, ERR_CONFIG, 0,
		       "--lang auto: no language preset for '%s' files (available: %s; name one with --lang)",
		       *ext ? ext : file, *avail ? avail : "none");
}

/* A copy of AT whose strings live in P (the donor policy is freed). */
static int own_origin(struct policy *p, struct origin *at)
{
	const char **fields[] = { &at->file, &at->option };

	for (size_t f = 0; f < 2; f++) {
		const char *s = *fields[f];
		size_t i;

		if (!s)
			continue;
		for (i = 0; i < p->interned.n && strcmp(p->interned.v[i], s); i++)
			;
		if (i == p->interned.n && strlist_push(&p->interned, s, NULL) < 0)
			return -1;
		*fields[f] = p->interned.v[i];
	}
	return 0;
}

static int copy_strlist(struct policy *p, struct strlist *dst,
			const struct strlist *src, struct sbx_err *err)
{
	for (size_t i = 0; i < src->n; i++) {
		struct origin at = src->at[i];
		if (own_origin(p, &at) < 0 || strlist_push(dst, src->v[i], &at) < 0)
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	return 0;
}

static int copy_limits(struct policy *p, struct limits *dst,
		       const struct limits *src, struct sbx_err *err)
{
	*dst = *src;
	for (int i = 0; i < LIM_COUNT; i++)
		if (own_origin(p, &dst->at[i]) < 0)
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return 0;
}

/* -p P --lang L where P has no lang block: take L's. */
static int borrow_lang(struct policy *p, const char *lang, struct sbx_err *err)
{
	struct policy donor = { 0 };
	int rc = 0;

	if (policy_load(lang, &donor, err) < 0)
		return err_prefix(err, "--lang %s", lang);
	if (!donor.lang.present)
		rc = err_set(err, ERR_CONFIG, 0,
			     "--lang %s: policy '%s' has no lang block (it is not a language preset)",
			     lang, lang);
	if (rc == 0 &&
	    (copy_strlist(p, &p->lang.extensions, &donor.lang.extensions, err) < 0 ||
	     copy_strlist(p, &p->lang.run, &donor.lang.run, err) < 0 ||
	     copy_strlist(p, &p->lang.compile, &donor.lang.compile, err) < 0 ||
	     copy_strlist(p, &p->lang.version, &donor.lang.version, err) < 0 ||
	     copy_limits(p, &p->lang.compile_limits,
			 &donor.lang.compile_limits, err) < 0))
		rc = -1;
	if (rc == 0)
		p->lang.present = true;
	policy_free(&donor);
	return rc;
}

static int choose_base(const struct cli_options *o, const char **base,
		       const char **lang, struct sbx_err *err)
{
	*lang = o->lang;
	if (o->lang && strcmp(o->lang, "auto") == 0) {
		if (o->ncommand < 1)
			return err_set(err, ERR_USAGE, 0,
				       "--lang auto needs FILE to pick a preset by its extension");
		if (pick_auto_lang(o->command[0], lang, err) < 0)
			return -1;
	}
	*base = o->policy ? o->policy : (*lang ? *lang : "default");
	return 0;
}

int cli_build_policy(const struct cli_options *o, struct policy *out,
		     struct sbx_err *err)
{
	const char *base = NULL, *lang = NULL;

	memset(out, 0, sizeof(*out));
	if (choose_base(o, &base, &lang, err) < 0)
		return -1;
	if (policy_load(base, out, err) < 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (lang && !out->lang.present) {
		if (!o->policy) {
			err_set(err, ERR_CONFIG, 0,
				"--lang %s: policy '%s' has no lang block (it is not a language preset; see 'sbx langs')",
				lang, lang);
			goto fail;
		}
		if (borrow_lang(out, lang, err) < 0)
			goto fail;
	}
	if (cli_apply_overrides(o, out, err) < 0 || policy_check_mounts(out, err) < 0)
		goto fail;
	return 0;
fail:
	policy_free(out);
	memset(out, 0, sizeof(*out));
	return -1;
}

/* ---- the command ------------------------------------------------------ */

int cli_command_argv(const struct cli_options *o, const struct policy *p,
		     char ***argv_out, struct sbx_err *err)
{
	struct argv_builder b = { 0 };
	int rc = 0;

	*argv_out = NULL;
	if (o->ncommand < 1)
		return err_set(err, ERR_USAGE, 0, o->lang
			       ? "missing FILE (usage: sbx run [OPTIONS] --lang LANG FILE [ARG...])"
			       : "missing COMMAND (usage: sbx run [OPTIONS] [--] COMMAND [ARG...])");
	/* execve of "" fails oddly inside the jail; say so here instead */
	if (o->command[0][0] == '\0')
		return err_set(err, ERR_USAGE, 0, o->lang ? "FILE is empty"
						       : "COMMAND is empty");
	/* --lang: the preset's run template (lang.c owns the expansion) */
	if (o->lang)
		return lang_expand(p, &p->lang.run, "lang.run", o->command[0],
				   o->command + 1, o->ncommand - 1, argv_out, err);
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
