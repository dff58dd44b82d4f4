/*
 * spawn.c - start a jail: one clone() into new namespaces, then uid/gid maps.
 *
 * Runs in the supervisor.  The seccomp program is compiled here before the
 * clone so the target does no libseccomp work.  The child (the jail's init,
 * init.c) waits on a pipe until its maps are written, because until then it
 * has no valid uid inside its user namespace.  The maps are written through
 * /proc only once ownproc.c has checked it is this pid namespace's.
 * The policy's program stays with the supervisor, which answers the
 * notifications of its reporting twin (scnotify.h) with it.
 */
#include "base/ids.h"
#include "jail/internal.h"
#include "jail/scnotify.h"
#include "jail/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif

/*
 * Map the policy's uid/gid inside to one host id outside.  An unprivileged
 * caller can only map itself; a root caller maps to the run's own host id
 * from uidrange.c, so that the jail never runs as host root nor as an id
 * anything else on the host has.
 */
int jail_write_maps(int dirfd, pid_t pid, const struct jail_plan *plan, struct jail *out,
		    struct sbx_err *err)
{
	const struct policy *p = plan->policy;
	uint32_t out_uid = plan->map_uid, out_gid = plan->map_gid;
	char map[64];

	/* Unprivileged: setgroups must be denied before gid_map is writable
	 * (CVE-2014-8989: dropping groups could bypass negative ACLs).  Root
	 * keeps it allowed so that the init can drop root's groups. */
	if (!plan->host_root && ownproc_write(dirfd, pid, "setgroups", "deny", err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", p->uid, out_uid);
	if (ownproc_write(dirfd, pid, "uid_map", map, err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", p->gid, out_gid);
	if (ownproc_write(dirfd, pid, "gid_map", map, err) < 0)
		return -1;
	out->host_uid = out_uid;
	out->host_gid = out_gid;
	return 0;
}

static int clone_flags(const struct jail_spec *s)
{
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
		    CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_PIDFD | SIGCHLD;

	if (s->policy->network != NET_HOST)
		flags |= CLONE_NEWNET;
	/* the init unshares it once it is in the run's cgroup (init.c) */
	if (s->cgroup_fd >= 0)
		flags &= ~CLONE_NEWCGROUP;
	return flags;
}

/*
 * With a run cgroup: clone3 puts the init there as it is born, so nothing
 * of the jail is ever counted elsewhere.  A kernel before 5.7 (or a
 * seccomp profile that hides clone3) gets -1 with ENOSYS, E2BIG or EINVAL
 * and the caller falls back to clone + moving the init before waking it.
 */
static pid_t clone_jail(const struct jail_spec *s, int *pidfd)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
			stack_size, tls, set_tid, set_tid_size, cgroup;
	} a;
	int flags = clone_flags(s);
	pid_t pid;

	jail_note_bounding_set();
	if (s->cgroup_fd >= 0) {
		memset(&a, 0, sizeof(a));
		a.flags = (uint64_t)(unsigned)(flags & ~0xff) | CLONE_INTO_CGROUP;
		a.pidfd = (uintptr_t)pidfd;
		a.exit_signal = (uint64_t)(flags & 0xff);
		a.cgroup = (uint64_t)s->cgroup_fd;
		pid = syscall(SYS_clone3, &a, sizeof(a));
		if (pid >= 0 || (errno != ENOSYS && errno != E2BIG && errno != EINVAL))
			return pid;
	}
	return syscall(SYS_clone, flags, NULL, pidfd, NULL, 0);
}

/* Put PID into the run's cgroup unless clone3 did; the init is still
 * waiting for its maps, so nothing of the jail has run elsewhere. */
static int join_cgroup(const struct jail_spec *s, pid_t pid, struct sbx_err *err)
{
	char buf[32];
	int fd, n, e = 0;

	if (s->cgroup_fd < 0)
		return 0;
	fd = openat(s->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	/* an init already there (clone3) makes this write a no-op */
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (e)
		return err_set(err, ERR_SETUP, e, "moving the jail's init into its cgroup: %s "
			       "(give a --cgroup-parent you may move processes into)",
			       strerror(e));
	return 0;
}

/* Kill and reap a half-started init; nothing may be left behind. */
static void abort_init(pid_t pid, int pidfd)
{
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(pidfd);
}

/* The maps, or (self_maps) only the ids the init maps itself to. */
static int map_init(struct jail_plan *plan, int procfd, pid_t pid, int pidfd,
		    int sync_w, struct jail *out, struct sbx_err *err)
{
	int dirfd, rc = -1;

	if (plan->self_maps) {
		out->host_uid = plan->map_uid;
		out->host_gid = plan->map_gid;
		return 0;
	}
	if ((dirfd = ownproc_child_dir(procfd, pid, pidfd, err)) >= 0) {
		if (join_cgroup(plan->spec, pid, err) == 0)
			rc = jail_write_maps(dirfd, pid, plan, out, err);
		close(dirfd);
	}
	if (rc == 0 && write(sync_w, "g", 1) != 1)
		rc = err_set(err, ERR_SETUP, errno, "waking the jail init: %s",
			     strerror(errno));
	return rc;
}

static int finish_parent(struct jail_plan *plan, int procfd, pid_t pid, int pidfd,
			 int sv, int sync_w, struct jail *out, struct sbx_err *err)
{
	int rc = map_init(plan, procfd, pid, pidfd, sync_w, out, err);

	if (sync_w >= 0)
		close(sync_w);
	if (rc < 0) {
		abort_init(pid, pidfd);
		close(sv);
		return -1;
	}
	out->init_pid = pid;
	out->pidfd = pidfd;
	out->ctl_fd = sv;
	vlog_line(&plan->vlog, "clone + uid/gid maps%s (init is host pid %d)",
		  plan->self_maps ? " by the init" : "", (int)pid);
	return 0;
}

static int make_channels(int sv[2], int sync[2], bool need_sync, struct sbx_err *err)
{
	sync[0] = sync[1] = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return err_resource(err, "socketpair", errno);
	if (need_sync && pipe2(sync, O_CLOEXEC) < 0) {
		err_resource(err, "pipe2", errno);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	return 0;
}

/* Run by root, the jail needs its own host id: never host root's. */
static int root_checks(const struct jail_plan *plan, struct sbx_err *err)
{
	if (plan->host_root && (plan->spec->host_uid == 0 || plan->spec->host_gid == 0))
		return err_set(err, ERR_INTERNAL, EINVAL, "run by root without a host uid "
			       "from sbx's range (internal error)");
	return 0;
}

static void free_filters(struct jail_plan *plan, struct jail *out)
{
	sc_filter_free(&plan->prog);
	sc_filter_free(&plan->notify);
	sc_filter_free(&out->learn);
}

/* The policy's program, its reporting twin when the target can hand the
 * listener over, and with `sbx learn` the learning program. */
static int build_filters(const struct jail_spec *spec, struct jail_plan *plan,
			 struct jail *out, struct sbx_err *err)
{
	const struct seccomp_spec *sc = &spec->policy->seccomp;

	/* one mmap past RLIMIT_DATA can never succeed: refused by the filter
	 * instead, the record names it */
	if (sc_filter_build_run(sc, rlimit_data_bytes(spec->policy, spec->cgroup_fd >= 0),
				&plan->prog, err) < 0)
		return -1;
	if (spec->no_report) {
		out->no_report = "--no-syscall-report";
		return 0;
	}
	if (!sc_can_pass_listener(&plan->prog)) {
		out->no_report = "the policy refuses sendmsg or write, which the jail "
				 "needs to hand the filter's listener to sbx";
		return 0;
	}
	if (sc_filter_notify(&plan->prog, &plan->notify) < 0) {
		free_filters(plan, out);
		return err_set(err, ERR_SETUP, ENOMEM, "seccomp: out of memory");
	}
	if (spec->learn && sc_filter_build_learn(sc, &out->learn, err) < 0) {
		free_filters(plan, out);
		return -1;
	}
	return 0;
}

/* After the clone: the supervisor keeps the program it answers with. */
static void keep_answer(struct jail_plan *plan, struct jail *out)
{
	if (plan->notify.filter) {
		out->answer = plan->prog;
		plan->prog = (struct sock_fprog){ 0 };
	}
	sc_filter_free(&plan->prog);
	sc_filter_free(&plan->notify);
}

int jail_spawn(const struct jail_spec *spec, struct jail *out, struct sbx_err *err)
{
	struct jail_plan plan = {
		.spec = spec, .policy = spec->policy,
		.host_root = ids_host_root(), .ws_tree = -1, .pty_slave = -1,
		/* An unprivileged init can map its own euid (user_namespaces(7)),
		 * so it need not wait for the supervisor: one round trip less
		 * per start.  Root maps a uid of its range, which
		 * needs CAP_SETUID outside; a run cgroup may need the init moved
		 * before it runs: both keep the supervisor's maps. */
		.self_maps = !ids_host_root() && spec->cgroup_fd < 0,
		.vlog = { .on = spec->verbose, .who = "", .t0_ns = monotonic_ns() },
	};
	int sv[2], sync[2], pidfd = -1, procfd, rc, e;
	pid_t pid;

	/* read here: in its user namespace the init's own ids are unmapped */
	plan.map_uid = plan.host_root ? spec->host_uid : geteuid();
	plan.map_gid = plan.host_root ? spec->host_gid : getegid();
	memset(out, 0, sizeof(*out));
	out->init_pid = -1;
	out->pidfd = out->ctl_fd = -1;
	/* Before anything: a /proc of another pid namespace would point the
	 * uid/gid maps at another process. */
	procfd = ownproc_open(err);
	if (procfd < 0)
		return -1;
	if (root_checks(&plan, err) < 0 || ownproc_arg_area(procfd, &plan, err) < 0 ||
	    build_filters(spec, &plan, out, err) < 0) {
		close(procfd);
		return -1;
	}
	vlog_line(&plan.vlog, "seccomp filter compiled (%u instructions)", plan.prog.len);
	vlog_line(&plan.vlog, "seccomp refusals %s%s", plan.notify.filter ? "reported" : "not reported: ",
		  plan.notify.filter ? "" : out->no_report);
	/* run by root: the caller's directories, opened and cloned by sbx */
	if ((plan.host_root && hostbind_prepare(&plan, procfd, err) < 0) ||
	    make_channels(sv, sync, !plan.self_maps, err) < 0) {
		hostbind_close(&plan);
		free_filters(&plan, out);
		close(procfd);
		return -1;
	}
	if (plan.host_root)
		vlog_line(&plan.vlog, "binds cloned for host uid %u", spec->host_uid);
	plan.ctl_fd = sv[1];
	plan.sync_fd = sync[0];
	/* Raw clone: the child continues here like fork(), with a copy of
	 * the plan, argv and envp, in new namespaces. */
	pid = clone_jail(spec, &pidfd);
	if (pid == 0)
		init_main(&plan);
	e = errno;
	keep_answer(&plan, out);
	hostbind_close(&plan); /* the init has its copies */
	close(sv[1]);
	if (sync[0] >= 0)
		close(sync[0]);
	if (pid < 0) {
		close(procfd);
		close(sv[0]);
		if (sync[1] >= 0)
			close(sync[1]);
		jail_release(out);
		return jail_diagnose_clone(clone_flags(spec), e, err);
	}
	rc = finish_parent(&plan, procfd, pid, pidfd, sv[0], sync[1], out, err);
	close(procfd);
	if (rc < 0)
		jail_release(out);
	return rc;
}

void jail_release(struct jail *j)
{
	if (j->ctl_fd >= 0)
		close(j->ctl_fd);
	if (j->pidfd >= 0)
		close(j->pidfd);
	j->ctl_fd = j->pidfd = -1;
	sc_filter_free(&j->answer);
	sc_filter_free(&j->learn);
}
