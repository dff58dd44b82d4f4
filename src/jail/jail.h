/*
 * jail.h - build a jail from an effective policy and start one command in it.
 *
 * jail_spawn() clones the jail's init with new user, mount, pid, net (unless
 * NET_HOST), ipc, uts and cgroup namespaces, writes its uid/gid maps, and
 * returns.  The init (init.c) builds the root filesystem, then waits for
 * CTL_GO; on GO it forks the target, which sets rlimits, closes fds, drops
 * capabilities, sets no_new_privs, loads the seccomp filter and execs.
 * The init reaps everything and reports over the control socket (ctl.h).
 *
 * The supervisor (src/supervise/) owns the other side: it sends GO, reads
 * reports, and kills the whole jail by SIGKILL to the init's pidfd (the end
 * of the pid namespace's init ends every process in it).
 */
#ifndef SBX_JAIL_H
#define SBX_JAIL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "policy/policy.h"

struct jail_spec {
	const struct policy *policy;
	char *const *argv;     /* argv[0]: absolute, or resolved on the jail's PATH */
	char *const *envp;     /* the complete environment of the target */
	const char *workspace_host; /* host dir bound rw at policy->workspace; NULL = none */
	/* No host dir: the disposable workspace is a tmpfs of workspace_mb made
	 * in the jail (workspace_fd -1) or the one an earlier jail made (an fd
	 * of its root, workspace_fd >= 0); CTL_READY carries it. */
	bool workspace_tmpfs;
	unsigned long long workspace_mb;
	int workspace_fd;
	int workdir_fd;        /* -w: the directory's fd in sbx (run by root, bound from
				* it, idmapped: hostbind.c); -1 = none */
	uint32_t host_uid;     /* run by root: the jail's host uid and gid (uidrange.h) */
	uint32_t host_gid;
	int stdin_fd;          /* become the target's fd 0, 1, 2 (dup'ed in the init) */
	int stdout_fd;
	int stderr_fd;
	bool verbose;          /* log each setup step to stderr with timings */
	/* -i: the program's 0, 1, 2 are a pty of the jail's own devpts (its
	 * controlling terminal, in a session of its own); the init sends the
	 * master with CTL_READY and the stdio fds above are unused */
	bool interactive;
	/* the run's cgroup v2 (O_DIRECTORY fd), or -1: the init is cloned into
	 * it, gets a cgroup namespace rooted there, and the cgroup, not
	 * RLIMIT_AS and RLIMIT_NPROC, bounds memory and processes */
	int cgroup_fd;
	bool learn;            /* `sbx learn`: also build the learning program */
	bool no_report;        /* refusals answered in the kernel, unreported */
};

struct jail {
	pid_t init_pid; /* host pid of the init (informational; signal via pidfd) */
	int pidfd;      /* O_CLOEXEC pidfd of the init */
	int ctl_fd;     /* supervisor's end of the control socket (O_CLOEXEC) */
	uint32_t host_uid; /* host uid the jail's processes run as */
	uint32_t host_gid;
	/* The policy's program, to answer the listener's notifications with
	 * (scnotify.h); filter NULL when the target loads it without one,
	 * and then NO_REPORT says why.  LEARN: `sbx learn`'s program. */
	struct sock_fprog answer, learn;
	const char *no_report;
};

/*
 * Start the jail.  On success the init is alive and building the root;
 * read ctl messages for CTL_READY / CTL_SETUP_FAILED before sending CTL_GO.
 * On failure nothing is left behind and err says which step and what to do.
 */
int jail_spawn(const struct jail_spec *spec, struct jail *out, struct sbx_err *err);

/* Close the supervisor's fds of J and free its programs (does not signal). */
void jail_release(struct jail *j);

/*
 * 0 when /proc is the procfs of sbx's own pid namespace, as jail_spawn
 * requires; else -1 with err (ERR_SETUP) saying how to mount one.  Checked
 * before every run (cmd/run.c), and by `sbx doctor`.
 */
int jail_check_own_proc(struct sbx_err *err);

/*
 * After the jail's clone(FLAGS) of the jail failed with E; find which namespace
 * and which mechanism refused it, and fill ERR with that and its fix.
 * jail_diagnose_resource: WHAT failed with E (EMFILE, ENFILE, EAGAIN):
 * name the limit and the ulimit that raises it.  Both return -1.
 */
int jail_diagnose_clone(int flags, int e, struct sbx_err *err);
/* Why writing the jail's uid or gid map failed with E, with its fix, when
 * the cause is known (an empty capability bounding set); else NULL. */
const char *jail_map_refusal(int e);
/* After a proc mount or a /proc/sys write failed with E: for EROFS, or
 * EPERM where mounts cover parts of /proc, the runtime's masks and their
 * fix (run's message and doctor's line alike); else NULL. */
const char *jail_proc_refusal(int e);
/* Before the jail's clone: note the bounding set for jail_map_refusal. */
void jail_note_bounding_set(void);
int jail_diagnose_resource(const char *what, int e, struct sbx_err *err);
/* The number a sysctl or other small /proc file holds; -1 when it is
 * absent or unreadable.  The one reader of the settings the diagnosis
 * names, for run's messages and doctor's lines alike. */
long jail_read_long(const char *path);

#endif
