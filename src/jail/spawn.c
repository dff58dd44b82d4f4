/*
 * spawn.c - start a jail: one clone() into new namespaces, then uid/gid maps.
 *
 * Runs in the supervisor.  The seccomp program is compiled here before the
 * clone so the target does no libseccomp work.  Until its maps are written
 * the child (the jail's init, init.c) has no valid uid inside its user
 * namespace: an unprivileged caller's init writes its own, otherwise it
 * waits on a pipe while the supervisor moves it into the run's cgroup and
 * writes them (ownproc.c, through a /proc checked to be this pid
 * namespace's).
 * The policy's program stays with the supervisor, which answers the
 * notifications of its reporting twin (scnotify.h) with it.
 */
#include "base/cleanup.h"
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

/* Run by root, the jail needs its own host id: never host root's. */
static int root_checks(const struct jail_plan *plan, struct sbx_err *err)
{
	if (plan->host_root && (plan->spec->host_uid == 0 || plan->spec->host_gid == 0))
		return err_set(err, ERR_INTERNAL, EINVAL, "run by root without a host uid "
			       "from sbx's range (internal error)");
	return 0;
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
	if (sc_filter_notify(&plan->prog, &plan->notify) < 0)
		return err_set(err, ERR_SETUP, ENOMEM, "seccomp: out of memory");
	if (spec->learn && sc_filter_build_learn(sc, &out->learn, err) < 0)
		return -1;
	return 0;
}

/* After the clone: the supervisor keeps the program it answers with. */
static void keep_answer(struct jail_plan *plan, struct jail *out)
{
	if (plan->notify.filter) {
		out->answer = plan->prog;
		plan->prog = (struct sock_fprog){ 0 };
	}
}

/* Kill and reap a half-started init; nothing may be left behind. */
static void abort_init(pid_t pid, int pidfd)
{
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(pidfd);
}

/* The init waits for its maps (unless it writes them itself: self_maps):
 * move it into the run's cgroup, write them, wake it by one byte. */
static int map_init(struct jail_plan *plan, int procfd, pid_t pid, int pidfd,
		    int sync_w, struct jail *out, struct sbx_err *err)
{
	int dirfd cleanup_fd = -1;

	if (plan->self_maps) {
		out->host_uid = plan->map_uid;
		out->host_gid = plan->map_gid;
		return 0;
	}
	if ((dirfd = ownproc_child_dir(procfd, pid, pidfd, err)) < 0 ||
	    join_cgroup(plan->spec, pid, err) < 0 ||
	    jail_write_maps(dirfd, pid, plan, out, err) < 0)
		return -1;
	if (write(sync_w, "g", 1) != 1)
		return err_set(err, ERR_SETUP, errno, "waking the jail init: %s",
			       strerror(errno));
	return 0;
}

/* What the plan holds until the clone has given the init its copy: the
 * compiled programs and, run by root, the trees of the binds. */
static void plan_release(struct jail_plan *plan)
{
	hostbind_close(plan);
	sc_filter_free(&plan->prog);
	sc_filter_free(&plan->notify);
}

/* Everything before the clone, then the clone and the maps; OUT keeps only
 * what a started jail needs, and jail_spawn releases it on failure. */
static int spawn(const struct jail_spec *spec, struct jail *out, struct sbx_err *err)
{
	struct jail_plan plan __attribute__((cleanup(plan_release))) = {
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
	int procfd cleanup_fd = -1, ctl cleanup_fd = -1, init_ctl cleanup_fd = -1;
	int sync_r cleanup_fd = -1, sync_w cleanup_fd = -1, sv[2], sync[2], pidfd = -1, e;
	pid_t pid;

	/* read here: in its user namespace the init's own ids are unmapped */
	plan.map_uid = plan.host_root ? spec->host_uid : geteuid();
	plan.map_gid = plan.host_root ? spec->host_gid : getegid();
	/* Before anything: a /proc of another pid namespace would point the
	 * uid/gid maps at another process. */
	if ((procfd = ownproc_open(err)) < 0 || root_checks(&plan, err) < 0 ||
	    ownproc_arg_area(procfd, &plan, err) < 0 || build_filters(spec, &plan, out, err) < 0)
		return -1;
	vlog_line(&plan.vlog, "seccomp filter compiled (%u instructions)", plan.prog.len);
	vlog_line(&plan.vlog, "seccomp refusals %s%s", plan.notify.filter ? "reported" : "not reported: ",
		  plan.notify.filter ? "" : out->no_report);
	/* run by root: the caller's directories, opened and cloned by sbx */
	if (plan.host_root) {
		if (hostbind_prepare(&plan, procfd, err) < 0)
			return -1;
		vlog_line(&plan.vlog, "binds cloned for host uid %u", spec->host_uid);
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return err_resource(err, "socketpair", errno);
	ctl = sv[0];
	init_ctl = sv[1];
	if (!plan.self_maps) {
		if (pipe2(sync, O_CLOEXEC) < 0)
			return err_resource(err, "pipe2", errno);
		sync_r = sync[0];
		sync_w = sync[1];
	}
	plan.ctl_fd = init_ctl;
	plan.sync_fd = sync_r;
	/* Raw clone: the child continues here like fork(), with a copy of
	 * the plan, argv and envp, in new namespaces. */
	pid = clone_jail(spec, &pidfd);
	if (pid == 0)
		init_main(&plan);
	e = errno;
	keep_answer(&plan, out);
	if (pid < 0)
		return jail_diagnose_clone(clone_flags(spec), e, err);
	if (map_init(&plan, procfd, pid, pidfd, sync_w, out, err) < 0) {
		abort_init(pid, pidfd);
		return -1;
	}
	out->init_pid = pid;
	out->pidfd = pidfd;
	out->ctl_fd = steal_fd(&ctl);
	vlog_line(&plan.vlog, "clone + uid/gid maps%s (init is host pid %d)",
		  plan.self_maps ? " by the init" : "", (int)pid);
	return 0;
}

int jail_spawn(const struct jail_spec *spec, struct jail *out, struct sbx_err *err)
{
	memset(out, 0, sizeof(*out));
	out->init_pid = -1;
	out->pidfd = out->ctl_fd = -1;
	if (spawn(spec, out, err) < 0) {
		jail_release(out);
		return -1;
	}
	return 0;
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
