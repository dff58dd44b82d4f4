/*
 * supervise.h - run one command in a jail and stay in control of it.
 *
 * supervise_run() prepares the pipes, spawns the jail (jail.h), and runs
 * the event loop: relays output within the output limit, enforces the wall
 * and whole-tree CPU limits, turns SIGINT/SIGTERM/SIGHUP into a teardown,
 * and fills the result from kernel facts.  It returns only after every jail
 * process is gone.  Its stages are listed once, below, with struct
 * run_hooks.
 */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "policy/policy.h"
#include "record/result.h"

struct learned_calls; /* `sbx learn`'s (supervise/learned.h) */

/*
 * A run's stages, in order, and the one place a caller's code runs inside
 * them (struct run_hooks):
 *  1. prepare (supervise.c): signals, the output pipes and their copies,
 *     the stdin relay, the epoll set, the run's cgroup;
 *  2. spawn (jail.h): the jail's init is cloned, gets its uid/gid maps and
 *     builds the root;
 *  3. ready (loop.c): the init sends CTL_READY (jail/ctl.h) with the fds
 *     it made for sbx; for a disposable workspace one of them is the
 *     workspace tmpfs, which hooks.workspace_ready fills (copy-in, the
 *     scan before the run) while the program has not started;
 *  4. go (loop.c): CTL_GO, the target execs, and the loop relays output,
 *     meters the tree and enforces the limits until the init is reaped
 *     and the pipes are drained;
 *  5. classify (classify.c): the facts become the result, and
 *     supervise_run returns.  What the caller does after the program
 *     (the scan after it, copy-out) follows that return.
 */
struct run_hooks {
	/* Stage 3, with the workspace tmpfs's mount fd (the hook owns it)
	 * and the jail's host uid.  -1 with ERR: a setup error, nothing
	 * runs.  NULL: nothing to fill. */
	int (*workspace_ready)(void *arg, int ws_fd, uint32_t host_uid, struct sbx_err *err);
	void *arg;
};

struct run_request {
	const struct policy *policy;
	char **argv;                /* command inside the jail */
	char **envp;                /* complete target environment */
	const char *workspace_host; /* host directory for policy->workspace, or NULL */
	/* No host directory: the workspace is a tmpfs of workspace_mb made in
	 * the jail (workspace_fd -1), or an earlier stage's (an fd of its root). */
	bool workspace_tmpfs;
	unsigned long long workspace_mb;
	int workspace_fd;
	struct run_hooks hooks;     /* the caller's work at stage 3 (above) */
	int workdir_fd;             /* -w: its fd (run by root, bound from it), or -1 */
	uint32_t host_uid, host_gid; /* run by root: the run's ids (jail/uidrange.h) */
	const char *stdin_spec;     /* NULL: empty; "-": relay sbx's stdin; else a file */
	bool interactive;           /* -i, sbx's stdin a terminal: the program gets a
				     * pty of the jail's (terminal.h); no stdin_spec */
	bool capture;               /* --json: keep stdout/stderr for the record */
	const char *stdout_copy;    /* --stdout FILE */
	const char *stderr_copy;    /* --stderr FILE */
	bool verbose;
	const char *cgroup_parent;  /* --cgroup-parent DIR, or NULL: look for one */
	struct learned_calls *learn; /* `sbx learn`: fill this; NULL = run */
	bool stdout_to_stderr;       /* relay the program's stdout to sbx's stderr */
	bool no_report;              /* --no-syscall-report: no listener */
	bool record_on_stdout;       /* --result -: the record follows on fd 1 */
};

/*
 * Run REQ and fill RES (status, message, measurements, exit_status).
 * Setup failures are reported in RES as setup-error; returns -1 only for
 * failures before anything was started, with ERR filled.
 */
int supervise_run(const struct run_request *req, struct result *res, struct sbx_err *err);

#endif
