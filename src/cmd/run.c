/*
 * run.c - `sbx run`: options -> policy -> workspace -> supervise -> record.
 *
 * Compiled languages run two jails: the compile stage (compile_limits,
 * output captured, shown on stderr in passthrough mode), then the program.
 * A failed compile ends the run: the record is the compile stage's, with
 * status "compile-error" and "stage": "compile" (the compile stage's own
 * status is in "compile"), and sbx exits with the compiler's status mapped
 * as for any program.
 *
 * Every path out of cmd_run() goes through finish(): after every jail
 * process is gone (nothing can still write there) the workspace is scanned
 * for the record's "files", -o copies them out, the disposable workspace is
 * removed, then exactly one record is written, config and setup errors
 * included.  The abort signals are blocked from the start:
 * one that arrives while the workspace is made is seen by supervise_run
 * (aborted, nothing runs); one that arrives while it is removed waits
 * until it is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/ids.h"
#include "base/procstate.h"
#include "workspace/artifacts.h"
#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/effective.h"
#include "cmd/env.h"
#include "base/argv.h"
#include "base/callerpath.h"
#include "base/fds.h"
#include "base/path.h"
#include "cmd/help.h"
#include "cmd/run.h"
#include "jail/uidrange.h"
#include "lang/lang.h"
#include "lang/preset.h"
#include "jail/jail.h"
#include "record/result.h"
#include "supervise/supervise.h"
#include "workspace/workspace.h"

struct run_ctx {
	struct cli_options opts;
	struct policy policy;
	bool have_policy;
	char **argv;
	char **envp;
	struct workspace ws;
	struct uid_lease lease;  /* run by root: the jail's host uid, held to the end */
	struct result res;

	bool terminal;           /* -i with a terminal on stdin: the program gets a pty */
	bool compiled;           /* --lang with a compile step */
	struct policy compile_policy; /* shallow copy: never policy_free'd */
	char **compile_argv;
	struct result *compile_res;

	struct art_scan before;  /* the workspace before the program ran */
	bool scanned;
	int64_t started_ns;      /* CLOCK_REALTIME, for ctime comparisons */
	bool ran;                /* a jail was started: scan the workspace */
	int out_fd;              /* -o DIR, or -1 */
	int result_fd;           /* --result, opened before the run; -1 */
	bool result_close;       /* sbx opened result_fd (a path) */
	bool result_failed;      /* --result could not be opened */
	bool said;               /* sbx's own error was printed on stderr */
	struct run_learn *learn; /* `sbx learn` (learn.c), else NULL */
	char *stdin_program;     /* --lang L -: the program's name in the workspace */
	char stdin_option[80];   /* "--lang L", for its messages */
};

/* ---- workspace ---------------------------------------------------------- */

static int64_t realtime_ns(void)
{
	struct timespec t;

	/* the coarse clock is the one file timestamps come from */
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The inputs are in the workspace: the before-scan, and the run's start. */
static int scan_inputs(struct run_ctx *c, struct sbx_err *err)
{
	c->before.exclude = c->compiled ? LANG_OUT_NAME : NULL;
	if (art_scan(c->ws.dirfd, &c->before, err) < 0)
		return -1;
	c->scanned = true;
	c->started_ns = realtime_ns();
	return 0;
}

/* At CTL_READY of the first jail: the tmpfs is up; fill it, scan it. */
static int workspace_ready(void *arg, int ws_fd, uint32_t host_uid, struct sbx_err *err)
{
	struct run_ctx *c = arg;

	if (workspace_attach(&c->ws, ws_fd, host_uid, err) < 0)
		return -1;
	return scan_inputs(c, err);
}

/* What a stage's request says about the workspace: -w's directory; the
 * tmpfs to make (and fill at READY), or the one the first stage made. */
static void request_workspace(struct run_ctx *c, struct run_request *req)
{
	req->workspace_host = c->ws.host_path;
	req->workspace_fd = -1;
	/* run by root: -w is bound from sbx's fd, idmapped to the run's uid */
	req->workdir_fd = c->ws.disposable ? -1 : c->ws.dirfd;
	req->host_uid = c->lease.uid;
	req->host_gid = c->lease.gid;
	if (!c->ws.disposable)
		return;
	req->workspace_tmpfs = true;
	req->workspace_mb = workspace_tmpfs_mb(policy_limit(&c->policy, LIM_FILE_SIZE_MB));
	if (c->ws.mnt_fd >= 0) {
		req->workspace_fd = c->ws.mnt_fd;
	} else {
		req->hooks = (struct run_hooks){ .workspace_ready = workspace_ready, .arg = c };
	}
}

/*
 * The jail's host ids: run by root, one of the uid range's, locked for the
 * whole run (both jails of a compiled language share the workspace and
 * so the id); else the caller's own.
 */
static int take_host_ids(struct run_ctx *c, struct sbx_err *err)
{
	if (!ids_host_root()) { /* uid 0 of a user namespace is an ordinary caller (base/ids.h) */
		c->res.host_uid = geteuid();
		c->res.host_gid = getegid();
		return 0;
	}
	if (uidrange_acquire(&c->lease, err) < 0)
		return -1;
	c->res.host_uid = c->lease.uid;
	c->res.host_gid = c->lease.gid;
	if (c->opts.verbose)
		fprintf(stderr, "sbx: host uid/gid %u (from %s)\n", c->lease.uid,
			UIDRANGE_LOCK_DIR);
	return 0;
}

static int prepare_workspace(struct run_ctx *c, struct sbx_err *err)
{
	const struct cli_options *o = &c->opts;

	if (take_host_ids(c, err) < 0 || workspace_open(&c->ws, o->workdir, err) < 0 ||
	    workspace_note_mount_points(&c->ws, &c->policy, err) < 0)
		return -1;
	if (o->verbose)
		fprintf(stderr, "sbx: workspace %s (%s)\n",
			c->ws.disposable ? "a tmpfs in the jail" : c->ws.host_path,
			c->ws.disposable ? "disposable" : "persistent");
	if (c->stdin_program) {
		uint64_t mb = c->policy.limits.v[LIM_FILE_SIZE_MB];
		uint64_t max = mb == LIMIT_UNLIMITED || mb > (UINT64_MAX >> 20) ? UINT64_MAX : mb << 20;

		snprintf(c->stdin_option, sizeof(c->stdin_option), "--lang %s", o->lang);
		if (workspace_copy_in_stdin(&c->ws, c->stdin_program, max, c->stdin_option,
					    err) < 0)
			return -1;
	} else if (o->lang && workspace_copy_in(&c->ws, o->command[0], "--lang", err) < 0)
		return -1;
	for (size_t i = 0; i < o->nfiles; i++)
		if (workspace_copy_in(&c->ws, o->files[i], "--file", err) < 0)
			return -1;
	if (c->compiled && workspace_remove_file(&c->ws, LANG_OUT_NAME, err) < 0)
		return -1;
	/* the tmpfs is scanned once filled, at READY (workspace_ready) */
	return c->ws.disposable ? 0 : scan_inputs(c, err);
}

/* -o DIR: made when missing (its parent must exist), checked up front. */
static int open_out_dir(struct run_ctx *c, struct sbx_err *err)
{
	if (!c->opts.out_dir)
		return 0;
	/* no link in any component: a symlink planted as DIR or a parent of it
	 * (say to /root) must not receive the program's files with sbx's rights */
	c->out_fd = caller_open_dir("--out", c->opts.out_dir, true, err);
	return c->out_fd < 0 ? -1 : 0;
}

/* ---- the steps before anything starts --------------------------------- */

/* --lang: the run argv, and the compile argv of a compiled language. */
static int lang_argvs(struct run_ctx *c, struct sbx_err *err)
{
	const struct cli_options *o = &c->opts;
	const struct policy *p = &c->policy;

	if (lang_check_operands(o->command, o->ncommand, err) < 0 ||
	    lang_check_runtime(p, o->lang, err) < 0)
		return -1;
	/* `--lang py -`, as `python3 -`: the program is sbx's stdin, kept in
	 * the workspace under a name with the preset's extension (a compiler
	 * or an interpreter may go by it) */
	if (!strcmp(o->command[0], "-")) {
		if (o->stdin_spec && !strcmp(o->stdin_spec, "-"))
			return err_set(err, ERR_USAGE, 0, "--lang %s - reads the program from "
				       "sbx's stdin, so --stdin - cannot be its input too; give "
				       "--stdin FILE, or the program as a file", o->lang);
		if (asprintf(&c->stdin_program, "stdin%s",
			     p->lang.extensions.n ? p->lang.extensions.v[0] : "") < 0) {
			c->stdin_program = NULL;
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		}
	}
	const char *file = c->stdin_program ? c->stdin_program : o->command[0];
	c->compiled = lang_is_compiled(p);
	if (c->compiled &&
	    lang_expand(p, &p->lang.compile, "lang.compile", file,
			NULL, 0, &c->compile_argv, err) < 0)
		return -1;
	return lang_expand(p, &p->lang.run, "lang.run", file,
			   o->command + 1, o->ncommand - 1, &c->argv, err);
}

/*
 * Close every fd sbx inherited above stderr except the ones the caller
 * named: a --result fd:N, and /dev/fd/N for --stdin, --stdout, --stderr
 * or --result.  The caller's other descriptors (make's jobserver, a CI
 * runner's pipes, `3<secret`) are never the program's business, and a
 * full table would otherwise make sbx fail at its first pipe.
 */
static int close_inherited_fds(const struct cli_options *o, struct sbx_err *err)
{
	const char *const named[] = { o->stdin_spec, o->stdout_copy, o->stderr_copy,
				      o->result_dest };
	static const char *const options[] = { "--stdin", "--stdout", "--stderr", "--result" };
	int keep[] = { 0, 1, 2, -1, -1, -1, -1, -1 };
	const char *rd = o->result_dest;
	char *end = NULL;

	if (rd && strncmp(rd, "fd:", 3) == 0 && rd[3] >= '0' && rd[3] <= '9') {
		unsigned long n = strtoul(rd + 3, &end, 10);
		if (*end == '\0' && n > 2 && n < INT_MAX)
			keep[3] = (int)n;
	}
	for (int i = 0; i < 4; i++) {
		int n = named[i] ? caller_path_fd(named[i]) : -1;

		/* checked now: once sbx opens its own files, a closed N is one of
		 * them (--result's is, by open_result, before sbx opens any) */
		if (n > 2 && i < 3 && fcntl(n, F_GETFD) < 0)
			return err_set(err, ERR_USAGE, EBADF, "%s %s: fd %d is not open (open it "
				       "for sbx, e.g. %d<FILE or %d>FILE, or give a path)",
				       options[i], named[i], n, n, n);
		keep[4 + i] = n;
	}
	if (fds_close_except(keep, 8) < 0)
		return err_set(err, ERR_SETUP, errno, "closing the fds sbx inherited "
			       "(no close_range, no /proc/self/fd to check): %s",
			       strerror(errno));
	return 0;
}

/* The record written over a --stdout/--stderr copy would silently replace it. */
static int result_not_a_copy(struct run_ctx *c, const char *copy, const char *option,
			     struct sbx_err *err)
{
	struct stat a;
	int own = copy ? caller_path_fd(copy) : -1;

	if (!copy || fstat(c->result_fd, &a) != 0 || !S_ISREG(a.st_mode))
		return 0;
	/* a copy is opened as the record is: no link followed */
	if (own >= 0 ? !fds_same_file(own, c->result_fd) : !caller_path_is(copy, c->result_fd))
		return 0;
	if (c->result_close)
		close(c->result_fd);
	c->result_fd = -1;
	c->result_close = false;
	c->result_failed = true;
	return err_set(err, ERR_USAGE, 0, "--result %s is the same file as %s %s: the "
		       "record would overwrite the copy; give two files",
		       c->opts.result_dest, option, copy);
}

/* Open --result now: a record with nowhere to go must stop the run before
 * the program runs, not be lost after it (a FIFO, a closed or read-only fd). */
static int open_result(struct run_ctx *c, struct sbx_err *err)
{
	if (!c->opts.result_dest || (c->opts.json && !strcmp(c->opts.result_dest, "-")))
		return 0;
	c->result_fd = result_open_dest(c->opts.result_dest, &c->result_close, err);
	c->result_failed = c->result_fd < 0;
	if (c->result_failed)
		return -1;
	/* --json writes the record on stdout: -r fd:1 or /dev/stdout wrote it twice */
	if (c->opts.json && fds_same_file(c->result_fd, STDOUT_FILENO)) {
		if (c->result_close)
			close(c->result_fd);
		c->result_fd = -1;
		c->result_close = false;
		c->opts.result_dest = "-";
	}
	return result_not_a_copy(c, c->opts.stdout_copy, "--stdout", err) < 0 ||
	       result_not_a_copy(c, c->opts.stderr_copy, "--stderr", err) < 0 ? -1 : 0;
}

/*
 * The jail's set-up holds about ten descriptors of its own at once plus one
 * per mount (each is made detached and moved into place): with fewer, it
 * fails midway with EMFILE at whichever mount comes last.  Say so now,
 * naming the number; the estimate errs low, and a set-up that still runs
 * out names the limit (classify_setup).
 */
static int check_fd_room(const struct policy *p, struct sbx_err *err)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)p->nmounts + 10;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	return err_set(err, ERR_SETUP, EMFILE, "sbx's open-file limit is %llu (ulimit -n) "
		       "and this jail's set-up needs at least %llu descriptors (about one "
		       "per mount, %zu here, and ten more): raise it, e.g. ulimit -n 1024",
		       (unsigned long long)rl.rlim_cur, (unsigned long long)need, p->nmounts);
}

/*
 * -i: a pty of the jail's own when sbx's stdin is a terminal.  Without
 * one (a pipe, CI) there is no terminal to relay: say so, and give the
 * program sbx's stdin as --stdin - would, so `echo cmd | sbx run -i --
 * sh` still runs cmd.
 */
static int choose_terminal(struct run_ctx *c, struct sbx_err *err)
{
	struct cli_options *o = &c->opts;

	if (!o->interactive)
		return 0;
	if (o->json)
		return err_set(err, ERR_USAGE, 0, "-i relays a terminal, and --json keeps "
			       "sbx's stdout for the record alone: give one of them");
	if (o->stdin_spec)
		return err_set(err, ERR_USAGE, 0, "-i: the program reads the terminal; "
			       "--stdin %s cannot be its input too", o->stdin_spec);
	if (isatty(STDIN_FILENO)) {
		c->terminal = true;
		return 0;
	}
	fprintf(stderr, "sbx: -i: stdin is not a terminal: the program gets no pty, "
		"and reads sbx's stdin as with --stdin -\n");
	o->stdin_spec = "-";
	return 0;
}

/* The program will meet a /tmp it cannot write: say why before it fails. */
static void note_moved_scratch(const struct run_ctx *c)
{
	if (c->policy.scratch_moved_for && !c->opts.quiet)
		fprintf(stderr, "sbx: note: %s is bound directly in /tmp, so the jail's "
			"/tmp only holds mount points and its scratch space is /var/tmp "
			"(HOME, TMPDIR): a write beside it (../FILE) fails instead of "
			"vanishing with the jail; bind the parent too (-B ..) to keep "
			"such files\n", c->policy.scratch_moved_for);
}

static int prepare(struct run_ctx *c, int argc, char **argv, struct sbx_err *err)
{
	if (cli_parse(argc, argv, &c->opts, err) < 0)
		return -1;
	if (close_inherited_fds(&c->opts, err) < 0)
		return -1;
	if (c->opts.help)
		return 1;
	/* learn prints the policy on stdout: the record may not take it */
	if (c->learn && c->opts.json)
		return err_set(err, ERR_USAGE, 0, "--json: sbx learn prints the policy on "
			       "stdout; give --result FILE for the record");
	if (open_result(c, err) < 0 || choose_terminal(c, err) < 0)
		return -1;
	if ((c->opts.lang && lang_check_known(c->opts.lang, err) < 0) ||
	    effective_policy(&c->opts, &c->policy, err) < 0)
		return -1;
	c->have_policy = true;
	note_moved_scratch(c);
	if (check_fd_room(&c->policy, err) < 0)
		return -1;
	if (c->opts.lang ? lang_argvs(c, err) < 0
			 : cli_command_argv(&c->opts, &c->policy, &c->argv, err) < 0)
		return -1;
	if (env_build(&c->policy, c->terminal, &c->envp, err) < 0 || open_out_dir(c, err) < 0)
		return -1;
	/* the jail needs its own /proc: say that, not a workspace symptom of it */
	if (jail_check_own_proc(err) < 0)
		return -1;
	return prepare_workspace(c, err);
}

/* A step that ran out of fds or processes names the ulimit, whichever step. */
static void fail_result(struct run_ctx *c, struct sbx_err *err)
{
	err_name_limit(err);
	result_set_error(&c->res, err);
	err_print(stderr, "sbx: ", err->msg);
	c->said = true;
}

/* The program did not end by itself: a limit or the filter ended it. */
static bool ended_by_sbx(enum run_status st)
{
	return st == ST_TIMEOUT || st == ST_CPU_LIMIT || st == ST_MEMORY_LIMIT ||
	       st == ST_OUTPUT_LIMIT || st == ST_SECCOMP;
}

/* sbx's own failures and a command that could not start get one `sbx:`
 * line on stderr, -q or not: the record may go nowhere a person reads.
 * So does a run a limit ended under -q: a Makefile showed only
 * "Error 124", the cause in no record anyone had asked for. */
static void say_own_error(struct run_ctx *c)
{
	enum run_status st = c->res.status;

	if (!c->said && (st == ST_SETUP_ERROR || st == ST_CONFIG_ERROR || st == ST_EXEC_ERROR))
		err_print(stderr, "sbx: ", c->res.message);
	else if (c->opts.quiet && ended_by_sbx(st))
		err_print(stderr, "sbx: ", c->res.message);
}

/* Passthrough mode: the compiler's messages go where a compiler's would. */
static void show_compiler_output(const struct result *cr)
{
	const struct captured *parts[] = { &cr->out, &cr->err };

	for (size_t i = 0; i < 2; i++)
		if (parts[i]->text && parts[i]->len)
			fwrite(parts[i]->text, 1, parts[i]->len, stderr);
	fflush(stderr);
}

/* A failed compile: the run's record is the compile stage's. */
static void adopt_compile_failure(struct run_ctx *c)
{
	const struct result *cr = c->compile_res;
	struct result *r = &c->res;

	/* compile-error tells a program that did not build from one that ran
	 * and failed; sbx's own failures and an interrupt keep their status */
	r->status = cr->status == ST_SETUP_ERROR || cr->status == ST_CONFIG_ERROR ||
				    cr->status == ST_ABORTED
			    ? cr->status
			    : ST_COMPILE_ERROR;
	r->exit_code = cr->exit_code;
	r->has_exit_code = cr->has_exit_code;
	r->term_signal = cr->term_signal;
	r->core_dumped = cr->core_dumped;
	text_mark_cut(r->message, sizeof(r->message),
		      snprintf(r->message, sizeof(r->message), "compile stage: %s", cr->message));
	r->retryable = cr->retryable;
	r->command = cr->command;
	r->policy = cr->policy;
	r->wall_ms = cr->wall_ms;
	r->cpu_user_ms = cr->cpu_user_ms;
	r->cpu_sys_ms = cr->cpu_sys_ms;
	r->max_rss_kib = cr->max_rss_kib;
	r->memory_peak_kib = cr->memory_peak_kib;
	r->stdout_bytes = cr->stdout_bytes;
	r->stderr_bytes = cr->stderr_bytes;
	r->output_truncated = cr->output_truncated;
	memcpy(r->enforced_by, cr->enforced_by, sizeof(r->enforced_by));
	r->cgroup = cr->cgroup;
	r->jail_started = cr->jail_started;
	r->cgroup_oom = cr->cgroup_oom;
	r->exit_status = cr->exit_status;
	r->stage = "compile";
}

/* Stage 1 of a compiled language.  1 = the compile failed (record set). */
static int compile_stage(struct run_ctx *c, struct sbx_err *err)
{
	const struct cli_options *o = &c->opts;
	struct run_request req = {
		.policy = &c->compile_policy,
		.argv = c->compile_argv,
		.envp = c->envp,
		.capture = true,
		.verbose = o->verbose,
		.cgroup_parent = o->cgroup_parent,
		.no_report = o->no_report,
		.record_on_stdout = c->result_fd == STDOUT_FILENO,
	};

	request_workspace(c, &req);
	lang_compile_policy(&c->policy, &c->compile_policy);
	c->compile_res = malloc(sizeof(*c->compile_res));
	if (!c->compile_res)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	result_init(c->compile_res);
	c->ran = true;
	if (supervise_run(&req, c->compile_res, err) < 0)
		return -1;
	if (!o->json)
		show_compiler_output(c->compile_res);
	c->res.compile = c->compile_res;
	if (c->compile_res->status == ST_OK)
		return 0;
	adopt_compile_failure(c);
	return 1;
}

static int launch(struct run_ctx *c, struct sbx_err *err)
{
	const struct cli_options *o = &c->opts;
	struct run_request req = {
		.policy = &c->policy,
		.argv = c->argv,
		.envp = c->envp,
		.stdin_spec = o->stdin_spec,
		.interactive = c->terminal,
		.capture = o->json,
		.stdout_copy = o->stdout_copy,
		.stderr_copy = o->stderr_copy,
		.verbose = o->verbose,
		.cgroup_parent = o->cgroup_parent,
		.learn = c->learn ? &c->learn->calls : NULL,
		.stdout_to_stderr = c->learn != NULL,
		.no_report = o->no_report,
		.record_on_stdout = c->result_fd == STDOUT_FILENO,
	};
	int rc = c->compiled ? compile_stage(c, err) : 0;

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	request_workspace(c, &req);
	if (c->compiled)
		c->res.stage = "run";
	c->ran = true;
	return supervise_run(&req, &c->res, err);
}

/* ---- the end: cleanup, then the one record ---------------------------- */

/* A record that cannot be written is an error (exit 125), never lost quietly. */
static void emit_checked(struct run_ctx *c, const char *dest, int rc)
{
	if (rc == 0)
		return;
	fprintf(stderr, "sbx: --result %s: the record could not be written: %s\n",
		dest, strerror(errno));
	c->res.exit_status = 125;
}

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
	if (o->json)
		emit_checked(c, "-", result_emit(r, "-"));
	if (o->result_dest && c->result_close && result_file_tampered(c->result_fd, o->result_dest)) {
		fprintf(stderr, "sbx: --result %s: the file was replaced or written during the "
			"run (the program could reach it); the record is here instead; give a "
			"path outside the jail's writable mounts\n", o->result_dest);
		result_emit(r, NULL);
		c->res.exit_status = 125;
	} else if (o->result_dest && c->result_fd >= 0)
		emit_checked(c, o->result_dest, result_emit_fd(r, c->result_fd));
	else if (o->result_dest && c->result_failed)
		result_emit(r, NULL); /* its own failure: tell the caller on stderr */
	else if (o->result_dest && !(o->json && !strcmp(o->result_dest, "-")))
		emit_checked(c, o->result_dest, result_emit(r, o->result_dest));
	else if (!o->quiet && !o->json)
		result_emit(r, NULL);
	if (c->result_close && close(c->result_fd) != 0)
		emit_checked(c, o->result_dest, -1);
}

/* After every jail process is gone: what changed, and -o. */
static void collect_files(struct run_ctx *c)
{
	struct sbx_err err = { 0 };

	if (!c->ran || !c->scanned || c->ws.dirfd < 0)
		return;
	c->res.files = art_diff(c->ws.dirfd, &c->before, c->started_ns, &err);
	if (!c->res.files) {
		err_print(stderr, "sbx: warning: ", err.msg);
		return;
	}
	art_mark_size_limit(c->res.files, record_file_size_bytes(&c->policy));
	if (c->out_fd >= 0)
		(void)art_copy_out(c->res.files, c->ws.dirfd, c->out_fd, c->opts.out_dir,
				   art_out_budget(policy_limit(&c->policy, LIM_FILE_SIZE_MB)),
				   ids_host_root() ? c->lease.uid : geteuid(),
				   c->res.status == ST_ABORTED);
	result_note_files(&c->res);
}

static void free_stages(struct run_ctx *c)
{
	art_free(c->res.files);
	c->res.files = NULL;
	if (c->compile_res) {
		result_free(c->compile_res);
		free(c->compile_res);
	}
	c->res.compile = c->compile_res = NULL;
	argv_free(c->compile_argv);
	art_scan_free(&c->before);
	if (c->out_fd >= 0)
		close(c->out_fd);
}

static int finish(struct run_ctx *c)
{
	int status;

	/* every jail process is gone, and with it every mount on them */
	workspace_remove_mount_points(&c->ws);
	collect_files(c);
	workspace_close(&c->ws);
	/* a request to stop during -o or the removal: still `aborted` */
	if (c->ran)
		result_abort_late(&c->res, procstate_abort_pending());
	say_own_error(c);
	emit_record(c);
	uidrange_release(&c->lease); /* every jail and the workspace are gone */
	status = c->res.exit_status;
	if (c->learn && c->learn->finish)
		status = c->learn->finish(c->learn, c->have_policy ? &c->policy : NULL, c->argv,
					  &c->res, status);
	free_stages(c);
	result_free(&c->res);
	argv_free(c->argv);
	argv_free(c->envp);
	free(c->stdin_program);
	if (c->have_policy)
		policy_free(&c->policy);
	cli_options_free(&c->opts);
	return status;
}

/*
 * Block the abort signals before any host state exists, so none can kill
 * sbx between mkdtemp and removal and leave the workspace behind
 * (every exit path cleans up); supervise_run reads them from a signalfd.
 */
static void block_abort_signals(void)
{
	sigset_t set;

	procstate_abort_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int run_main(int argc, char **argv, struct run_learn *learn)
{
	struct run_ctx c = { .ws = { .dirfd = -1, .mnt_fd = -1 }, .lease = { .fd = -1 },
			     .out_fd = -1, .result_fd = -1, .learn = learn };
	struct sbx_err err = { 0 };
	int rc;

	block_abort_signals();
	result_init(&c.res);
	rc = prepare(&c, argc, argv, &err);
	if (rc == 1) {
		help_print_command(learn ? "learn" : "run", stdout);
		cli_options_free(&c.opts);
		return 0;
	}
	if (rc == 0 && launch(&c, &err) < 0)
		rc = -1;
	if (rc < 0)
		fail_result(&c, &err);
	return finish(&c);
}

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, NULL);
}
