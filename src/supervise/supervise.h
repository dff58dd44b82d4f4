/*
 * supervise.h - run one command in a jail and stay in control of it.
 *
 * supervise_run() prepares the pipes, spawns the jail (jail.h), and runs
 * the event loop: relays output within the output limit, enforces the wall
 * and whole-tree CPU limits, turns SIGINT/SIGTERM/SIGHUP into a teardown,
 * and fills the result from kernel facts.  It returns only after every jail
 * process is gone.
 */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

#include <stdbool.h>

#include "base/err.h"
#include "jail/seccomp.h"
#include "policy/policy.h"
#include "record/result.h"

/* `sbx learn`: the calls the trial run made beyond its policy, by native
 * number, each let through and counted (supervise/notify.c). */
struct learned_calls {
	bool available;          /* the run had a listener to learn with */
	char why_none[200];      /* else why not */
	uint64_t seen[SC_NR_MAX];
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
	/* Called at CTL_READY, before GO, with the workspace tmpfs's mount
	 * fd (the hook owns it) and the jail's host uid: copy-in and
	 * the before-scan.  -1 with ERR: a setup error, nothing runs. */
	int (*on_ready)(void *arg, int ws_fd, uint32_t host_uid, struct sbx_err *err);
	void *ready_arg;
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
