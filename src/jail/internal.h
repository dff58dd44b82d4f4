/*
 * internal.h - what the files of src/jail/ share; not for other modules.
 *
 * The folder by the process that runs each file:
 *  - the supervisor, before and at the clone: spawn.c (jail_spawn: the
 *    plan, the clone, the maps), ownproc.c (the /proc the maps go
 *    through, and the maps), hostbind.c (run by root: the caller's
 *    directories opened and cloned by sbx), seccomp.c with
 *    seccomp_names.c, scgroups.c and scarch.h (the filter, compiled once),
 *    scnotify.c (its reporting twin and the listener's hand-over),
 *    uidrange.c with uiddb.c (run by root: the run's own host uid), and
 *    diagnose.c (why a clone, a map, a mount or sethostname failed; doctor
 *    asks it too);
 *  - the jail's init, pid 1: init.c (its life, in order), mount.c with
 *    mountpoint.c (the root), etc.c (a synthesized /etc), net.c (lo),
 *    ucount.c (the namespace's own quotas), caps.c;
 *  - the target, vforked by the init: target.c (the last steps before
 *    exec), rlimit.c, caps.c, and the filter's load (seccomp.c).
 *
 * spawn.c fills a struct jail_plan in the supervisor (the seccomp program is
 * compiled there, once), clones the init, and the init (init.c) and the
 * target (target.c) work from their copy of it: nothing is parsed after the
 * clone.  The init allocates only for its mounts (mount.c's lists of
 * submounts and sources, hostbind.c's trees), in the copy of the address
 * space the clone gave it; the target allocates nothing.
 *
 * Steps that run inside the jail return -1 with a struct sbx_err naming the
 * step ("mount /usr (bind from /usr): Permission denied"); the init sends
 * it to the supervisor as CTL_SETUP_FAILED.
 */
#ifndef SBX_JAIL_INTERNAL_H
#define SBX_JAIL_INTERNAL_H

#include <linux/filter.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/log.h"
#include "jail/ctl.h"
#include "jail/jail.h"

/* Where the new root is assembled inside the jail's mount namespace. */
#define JAIL_BUILD_DIR "/tmp"

struct jail_plan {
	const struct jail_spec *spec;
	const struct policy *policy;
	struct sock_fprog prog; /* the policy's filter, compiled before clone */
	struct sock_fprog notify; /* its twin that reports refusals (scnotify.h);
				   * filter NULL = no report */
	int ctl_fd;             /* the init's end of the control socket */
	int pty_slave;          /* -i: the program's terminal, opened by the init; -1 */
	int sync_fd;            /* read end: one byte once the maps are written */
	bool host_root;         /* sbx runs as root: drop groups in the init */
	bool self_maps;         /* the init writes its own maps (spawn.c) */
	uint32_t map_uid, map_gid; /* the host ids the jail's uid/gid map to */
	/* run by root (hostbind.c): detached trees the supervisor made of
	 * the command-line binds (one per policy mount, -1 = none) and of the
	 * workspace, inherited by the init through the clone */
	int *host_trees;
	int ws_tree;
	struct vlog vlog;       /* -v, timed from jail_spawn */
	/* sbx's argv and environ strings, [start, end) as /proc/self/stat
	 * gives them: the init wipes its copy (init_drop_privileges). */
	uintptr_t arg_start, arg_end, env_start, env_end;
};

/* init.c: the jail's pid 1; never returns. */
__attribute__((noreturn)) void init_main(struct jail_plan *plan);

/* target.c: the pre-exec steps of the target; never returns. */
__attribute__((noreturn)) void target_main(const struct jail_plan *plan, int report_fd);

/* What the target writes on its CLOEXEC report pipe when it cannot exec. */
enum report_stage { REPORT_SETUP = 1, REPORT_EXEC = 2 };
struct target_report {
	int32_t stage;
	int32_t sys_errno;
	char text[1024]; /* as long as an error's text (struct sbx_err) */
};

/* What the supervisor's meters read, from the mounts mount.c made. */
struct jail_fs {
	int proc;                   /* the jail's own proc (verified), or -1 */
	int tmpfs[CTL_MAX_FDS - 4]; /* mount fds of its tmpfs: root, /dev, tmpfs entries */
	size_t ntmpfs;
	int ws;                     /* the workspace tmpfs (spec->workspace_tmpfs), or -1 */
	int pty_master;             /* -i: the master of the program's pty, or -1 */
};

/* mount.c: build the root from the policy's mounts, pivot into it, and
 * fill *FS (the caller closes its fds). */
int mount_build_root(const struct jail_plan *plan, struct jail_fs *fs, struct sbx_err *err);

/* mount.c: one build of the root. */
#define MOUNT_MAX_DEFERRED 16

/* A bind source opened before the new root hides the host. */
struct bind_src {
	int fd;       /* O_PATH fd, or -1 */
	char *link;   /* the source is a symlink: its target */
	bool skip;    /* optional and missing */
	int procfs;   /* is or carries a procfs: carries_procfs() */
	bool premade; /* fd is a tree hostbind.c made: attach it as it is */
};

struct root_build {
	const struct jail_plan *plan;
	int root_fd;                  /* mount fd of the new root */
	int proc_fd;                  /* the first PROC mount, opened O_RDONLY */
	struct bind_src *srcs;        /* one per policy mount */
	struct bind_src ws;           /* the workspace */
	int deferred[MOUNT_MAX_DEFERRED]; /* mount fds made read-only at the end */
	size_t ndeferred;
	struct jail_fs *fs;           /* the meter's fds, kept as they are made */
};

/* diagnose.c: the Seccomp: mode of this process (0, 2; -1 unknown); after a
 * mount call failed with E (EPERM, ENOSYS) in the init, the message naming
 * the filter that answered and the calls it refuses, or NULL when no filter
 * answers any of them so (the kernel refused). */
int jail_seccomp_mode(void);
const char *jail_mount_refusal(int e);
/* ... after sethostname() failed with E: the filter that answered, or NULL. */
const char *jail_hostname_refusal(int e);
/* mountpoint.c: destinations in the new root and fd-based mounts.  Each
 * returns -1 with errno set.
 * mp_make: create DST below ROOT_FD (missing parents too) without following
 *   any symlink; an O_PATH fd of it, of KIND (LEAF_LINK: a symlink to
 *   LINK_TARGET, returns 0).
 * mp_open_leaf: an O_PATH fd of LEAF in DIR, of KIND and not a symlink.
 * mp_attach: move the detached mount TREE onto DST_FD.
 * mp_clone: a recursive detached clone of SRC_FD with ATTRS (MOUNT_ATTR_*)
 *   set on every mount in it; *STEP names the failing step.
 * mp_clone_idmap: the same, idmapped by the user namespace USERNS_FD
 *   (MOUNT_ATTR_IDMAP, Linux 5.12); *IDMAP_REFUSED set when that step
 *   alone failed (the filesystem or kernel cannot: fall back to mp_clone).
 * mp_new_fs: a detached new filesystem of TYPE, OPTS "key", "value" pairs
 *   NULL-terminated (a NULL value: "key" is a flag), mount ATTRS; its mount fd.
 * mp_close2: close A and B (-1: skipped) keeping errno; returns RC. */
enum leaf_kind { LEAF_DIR, LEAF_FILE, LEAF_LINK };
int mp_make(const struct root_build *b, const char *dst, enum leaf_kind kind,
	    const char *link_target);
int mp_open_leaf(int dir, const char *leaf, enum leaf_kind kind);
int mp_attach(int tree, int dst_fd);
int mp_clone(int src_fd, unsigned attrs, const char **step);
int mp_clone_idmap(int src_fd, unsigned attrs, int userns_fd, const char **step,
		   bool *idmap_refused);
int mp_new_fs(const char *type, const char *const *opts, unsigned attrs);
int mp_close2(int a, int b, int rc);

/* etc.c: write passwd, group, hosts, nsswitch.conf, ld.so.cache into
 * ETC_FD (a directory in the new root). */
int etc_synthesize(const struct jail_plan *plan, int etc_fd, struct sbx_err *err);
/* True when a mount entry targets /etc or a path below it. */
bool etc_is_mounted(const struct policy *p);

/* net.c: bring lo up in the jail's network namespace. */
int net_loopback_up(struct sbx_err *err);
/* net.c: one datagram per unix receive queue from unconnected senders. */
int net_limit_dgram_queue(struct sbx_err *err);

/* rlimit.c: apply the policy's limits (strictest of policy and inherited);
 * RLIMIT_DATA (the memory backstop) separately, as the last step before
 * seccomp. */
int rlimit_apply(const struct policy *p, bool cgroup, struct sbx_err *err);
int rlimit_apply_memory(const struct policy *p, bool cgroup, struct sbx_err *err);
/* The RLIMIT_DATA that rlimit_apply_memory sets, in bytes; 0: none. */
uint64_t rlimit_data_bytes(const struct policy *p, bool cgroup);
/* rlimit.c: the RLIMIT_CPU soft limit rlimit_apply gives (the caller's
 * ulimit included), in ns; 0 = none. */
int64_t rlimit_cpu_soft_ns(const struct policy *p);

/* ownproc.c: /proc, checked to be the one of sbx's pid namespace (-1 and
 * err naming the fix when not); the init's /proc/<pid> directory, checked
 * to be the live child's; the argv/environ bounds into PLAN. */
int ownproc_open(struct sbx_err *err);
int ownproc_child_dir(int procfd, pid_t pid, int pidfd, struct sbx_err *err);
int ownproc_arg_area(int procfd, struct jail_plan *plan, struct sbx_err *err);
/* ownproc.c: write the uid/gid maps of the process whose /proc directory
 * is DIRFD (PID for messages, 0 = the caller's own: the init writing its
 * own); OUT gets the host ids mapped. */
int jail_write_maps(int dirfd, pid_t pid, const struct jail_plan *plan, struct jail *out,
		    struct sbx_err *err);
/* ownproc.c: write TEXT to NAME in the child's /proc directory DIRFD. */
int ownproc_write(int dirfd, pid_t pid, const char *name, const char *text,
		  struct sbx_err *err);

/* hostbind.c: run by root, before the clone: make PLAN's host_trees and
 * ws_tree (idmapped where the filesystem allows, else plain with one
 * warning); hostbind_close() closes the supervisor's copies. */
#define JAIL_MAX_HOST_TREES 48 /* binds sbx makes (hostbind.c; the init keeps their fds) */
int hostbind_prepare(struct jail_plan *plan, int procfd, struct sbx_err *err);
void hostbind_close(struct jail_plan *plan);

/* mount.c: whether the source FD is, or holds as a submount, a
 * procfs: 1 yes, 0 no, -1 cannot tell (read in the caller's /proc). */
int carries_procfs(int fd);

/* ucount.c: lower the jail's user-namespace limits (/proc/sys/user), so
 * the jail cannot use up its caller's per-user quotas; needs the init's
 * CAP_SYS_RESOURCE in the jail's user namespace.  ucount_open() opens the
 * directory while the host /proc is visible; ucount_limit_jail() writes
 * through it (after the root is built) and closes it. */
int ucount_open(struct sbx_err *err);
int ucount_limit_jail(int dirfd, struct sbx_err *err);

/* caps.c: drop every capability in every set and verify. */
int caps_drop_all(struct sbx_err *err);

#endif
