/*
 * run.c - `sbx run`: options -> policy -> workspace -> supervise -> record.
 *
 * Every path out of cmd_run() goes through finish(): it removes the
 * disposable workspace (after every jail process is gone, requirements
 * §1.15), then writes exactly one record, config and setup errors included
 * (spec §5), and returns the exit status of spec §3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "help.h"
#include "result.h"
#include "supervise/supervise.h"
#include "workspace.h"

struct run_ctx {
	struct cli_options opts;
	struct policy policy;
	bool have_policy;
	char **argv;
	char **envp;
	struct workspace ws;
	struct result res;
};

/* ---- the target environment ------------------------------------------ */

struct env_builder {
	char **v;
	size_t n;
};

/* Add "NAME=VALUE", replacing an earlier entry for NAME. */
static int env_set(struct env_builder *b, const char *entry)
{
	size_t name_len = strcspn(entry, "=");
	char *copy = strdup(entry), **v;

	if (!copy)
		return -1;
	for (size_t i = 0; i < b->n; i++)
		if (!strncmp(b->v[i], entry, name_len + 1)) {
			free(b->v[i]);
			b->v[i] = copy;
			return 0;
		}
	v = realloc(b->v, (b->n + 2) * sizeof(*v));
	if (!v) {
		free(copy);
		return -1;
	}
	b->v = v;
	v[b->n++] = copy;
	v[b->n] = NULL;
	return 0;
}

static int env_keep_host(struct env_builder *b, const char *name)
{
	const char *value = getenv(name);
	char *entry;
	int rc;

	if (!value)
		return 0;
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -1;
	rc = env_set(b, entry);
	free(entry);
	return rc;
}

/*
 * Policy env, then env_keep from sbx's own environment, then --env: the
 * command line wins.  Nothing else from the host passes (spec §6: a host
 * token or LD_PRELOAD never leaks into the jail).
 */
static int build_env(struct run_ctx *c, struct sbx_err *err)
{
	const struct policy *p = &c->policy;
	struct env_builder b = { 0 };
	int rc = 0;

	b.v = calloc(1, sizeof(*b.v));
	if (!b.v)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < p->env.n; i++)
		if (!p->env.at[i].option)
			rc = env_set(&b, p->env.v[i]);
	for (size_t i = 0; rc == 0 && i < p->env_keep.n; i++)
		rc = env_keep_host(&b, p->env_keep.v[i]);
	for (size_t i = 0; rc == 0 && i < p->env.n; i++)
		if (p->env.at[i].option)
			rc = env_set(&b, p->env.v[i]);
	c->envp = b.v;
	if (rc < 0)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	return 0;
}

/* ---- workspace ---------------------------------------------------------- */

static int prepare_workspace(struct run_ctx *c, struct sbx_err *err)
{
	const struct cli_options *o = &c->opts;

	if (workspace_open(&c->ws, o->workdir, err) < 0)
		return -1;
	if (o->verbose)
		fprintf(stderr, "sbx: workspace %s (%s)\n", c->ws.host_path,
			c->ws.disposable ? "disposable" : "persistent");
	if (o->lang && workspace_copy_in(&c->ws, o->command[0], "--lang", err) < 0)
		return -1;
	for (size_t i = 0; i < o->nfiles; i++)
		if (workspace_copy_in(&c->ws, o->files[i], "--file", err) < 0)
			return -1;
	return 0;
}

/* ---- the steps before anything starts --------------------------------- */

static int check_run_options(const struct cli_options *o, struct sbx_err *err)
{
	/* fail, never pretend: -o needs the artifact scan, not written yet */
	if (o->out_dir)
		return err_set(err, ERR_USAGE, 0,
			       "--out is not supported yet (copy files out with -w DIR instead)");
	return 0;
}

static int prepare(struct run_ctx *c, int argc, char **argv, struct sbx_err *err)
{
	if (cli_parse(argc, argv, &c->opts, err) < 0)
		return -1;
	if (c->opts.help)
		return 1;
	if (check_run_options(&c->opts, err) < 0 ||
	    cli_build_policy(&c->opts, &c->policy, err) < 0)
		return -1;
	c->have_policy = true;
	if (cli_command_argv(&c->opts, &c->policy, &c->argv, err) < 0 ||
	    build_env(c, err) < 0)
		return -1;
	return prepare_workspace(c, err);
}

static void fail_result(struct run_ctx *c, const struct sbx_err *err)
{
	struct result *r = &c->res;

	r->status = err->kind == ERR_SETUP ? ST_SETUP_ERROR : ST_CONFIG_ERROR;
	r->retryable = err->kind == ERR_SETUP && err->retryable;
	snprintf(r->message, sizeof(r->message), "%.511s", err->msg);
	r->exit_status = 125;
	fprintf(stderr, "sbx: %s\n", err->msg);
}

static int launch(struct run_ctx *c, struct sbx_err *err)
{
	const struct cli_options *o = &c->opts;
	struct run_request req = {
		.policy = &c->policy,
		.argv = c->argv,
		.envp = c->envp,
		.workspace_host = c->ws.host_path,
		.stdin_spec = o->stdin_spec,
		.capture = o->json,
		.stdout_copy = o->stdout_copy,
		.stderr_copy = o->stderr_copy,
		.verbose = o->verbose,
	};

	return supervise_run(&req, &c->res, err);
}

/* ---- the end: cleanup, then the one record ---------------------------- */

static void emit_record(struct run_ctx *c)
{
	const struct cli_options *o = &c->opts;
	struct result *r = &c->res;

	if (!r->command)
		r->command = c->argv;
	if (!r->policy && c->have_policy)
		r->policy = &c->policy;
	r->capture = o->json;
	/* --json: stdout of sbx is the record, -q or not */
	if (o->json) {
		result_emit(r, "-");
		if (o->result_dest && strcmp(o->result_dest, "-") != 0)
			result_emit(r, o->result_dest);
	} else if (o->result_dest) {
		result_emit(r, o->result_dest);
	} else if (!o->quiet) {
		result_emit(r, NULL);
	}
}

static int finish(struct run_ctx *c)
{
	struct sbx_err err = { 0 };
	int status;

	if (workspace_close(&c->ws, &err) < 0)
		fprintf(stderr, "sbx: warning: %s\n", err.msg);
	emit_record(c);
	status = c->res.exit_status;
	result_free(&c->res);
	cli_argv_free(c->argv);
	cli_argv_free(c->envp);
	if (c->have_policy)
		policy_free(&c->policy);
	cli_options_free(&c->opts);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run_ctx c = { .ws = { .dirfd = -1 } };
	struct sbx_err err = { 0 };
	int rc;

	result_init(&c.res);
	rc = prepare(&c, argc, argv, &err);
	if (rc == 1) {
		help_print_command("run", stdout);
		cli_options_free(&c.opts);
		return 0;
	}
	if (rc == 0 && launch(&c, &err) < 0)
		rc = -1;
	if (rc < 0)
		fail_result(&c, &err);
	return finish(&c);
}
