/*
 * init.c - the jail's pid 1: build the jail, start the target, reap, report.
 *
 * Life: wait for the uid/gid maps -> become the jail user -> tie our life
 * to the supervisor's -> build the root, hostname, lo -> with -i, open
 * the program's pty -> CTL_READY (the master with it) -> wait
 * for CTL_GO -> drop every capability, wipe sbx's argv/environ copy ->
 * fork the target -> CTL_STARTED or CTL_EXEC_FAILED -> reap
 * everything; when the target ends, CTL_EXITED, then SIGTERM the rest,
 * kill_grace, SIGKILL, reap, _exit.  The end of pid 1 ends the namespace.
 *
 * Every signal keeps SIG_DFL: a pid namespace's init ignores signals from
 * inside it that it has no handler for, so the program cannot kill us.
 * Only _exit() is used here (no atexit handlers, no LSan in the child).
 */
#include "jail/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fds.h"
#include "policy/policy.h"
#include "base/procstate.h"

static void send_msg(int fd, uint32_t type, int32_t value, int32_t sys_errno,
		     const char *text)
{
	struct ctl_msg m = { .type = type, .value = value, .sys_errno = sys_errno };

	if (text)
		text_mark_cut(m.text, sizeof(m.text),
			      snprintf(m.text, sizeof(m.text), "%s", text));
	while (send(fd, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Fail closed: report the step and leave; nothing has run. */
__attribute__((noreturn)) static void setup_failed(const struct jail_plan *plan,
						   const struct sbx_err *err)
{
	vlog_line(&plan->vlog, "setup failed: %s", err->msg);
	send_msg(plan->ctl_fd, CTL_SETUP_FAILED, 0, err->sys_errno, err->msg);
	_exit(1);
}

/*
 * sbx's own 0, 1, 2 (a terminal, a directory, the caller's files) must not
 * stay open in the jail's pid 1: the program could reach them through
 * /proc/1/fd.  They become /dev/null, except the spec's fds and, with -v,
 * fd 2, where the init logs.
 */
static void neutral_stdio(const struct jail_plan *plan)
{
	const struct jail_spec *s = plan->spec;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; null >= 0 && fd <= 2; fd++) {
		if (fd == s->stdin_fd || fd == s->stdout_fd || fd == s->stderr_fd ||
		    fd == plan->ctl_fd || fd == plan->sync_fd || (fd == 2 && s->verbose))
			continue;
		dup2(null, fd);
	}
	if (null > 2)
		close(null);
}

/* The init keeps only what it needs: the supervisor's other fds go (the
 * trees hostbind.c made stay until they are mounted).  Fail closed: an
 * old kernel without close_range must not keep them. */
static void close_inherited(const struct jail_plan *plan)
{
	const struct jail_spec *s = plan->spec;
	int keep[FDS_KEEP_MAX] = { 0, 1, 2, plan->ctl_fd, plan->sync_fd,
				   s->stdin_fd, s->stdout_fd, s->stderr_fd,
				   s->workspace_tmpfs ? s->workspace_fd : -1, plan->ws_tree };
	size_t nkeep = 10;
	struct sbx_err err = { 0 };

	_Static_assert(10 + JAIL_MAX_HOST_TREES <= FDS_KEEP_MAX, "the init keeps every tree");
	for (size_t i = 0; plan->host_trees && i < plan->policy->nmounts; i++)
		if (plan->host_trees[i] >= 0 && nkeep < FDS_KEEP_MAX)
			keep[nkeep++] = plan->host_trees[i];
	if (fds_close_except(keep, nkeep) < 0) {
		err_set(&err, ERR_SETUP, errno, "closing the init's inherited fds "
			"(no close_range, no /proc/self/fd): %s", strerror(errno));
		setup_failed(plan, &err);
	}
	neutral_stdio(plan);
}

static int become_jail_user(const struct jail_plan *plan, struct sbx_err *err)
{
	const struct policy *p = plan->policy;

	if (setresgid(p->gid, p->gid, p->gid) < 0)
		return err_set(err, ERR_SETUP, errno, "setresgid(%u): %s", p->gid,
			       strerror(errno));
	/* Run by root: root's supplementary groups must not follow the jail. */
	if (plan->host_root && setgroups(0, NULL) < 0)
		return err_set(err, ERR_SETUP, errno, "setgroups(0): %s",
			       strerror(errno));
	if (setresuid(p->uid, p->uid, p->uid) < 0)
		return err_set(err, ERR_SETUP, errno, "setresuid(%u): %s", p->uid,
			       strerror(errno));
	return 0;
}

/*
 * If sbx dies, even by SIGKILL, the jail dies: PDEATHSIG (set after the
 * uid change, which clears it), then check the supervisor did not die
 * before that (its end of the control socket would be closed).
 */
static void tie_to_supervisor(const struct jail_plan *plan)
{
	struct pollfd pfd = { .fd = plan->ctl_fd, .events = POLLIN };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(1);
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
		_exit(1);
}

/* Fills *FS with the meter's fds (the jail's proc, its tmpfs mounts);
 * returns the fd finish_jail() sets the namespace quotas through. */
static int build_root(const struct jail_plan *plan, struct jail_fs *fs)
{
	const struct policy *p = plan->policy;
	const char *host = p->hostname ? p->hostname : "sbx";
	struct sbx_err err = { 0 };
	int ucount_fd;

	if (become_jail_user(plan, &err) < 0)
		setup_failed(plan, &err);
	tie_to_supervisor(plan);
	/* The host /proc's view of our user namespace's quotas, kept for after
	 * the root is built: building it (open_tree, fsmount) needs mount
	 * namespaces that max_mnt_namespaces=0 would refuse (ucount.c). */
	if ((ucount_fd = ucount_open(&err)) < 0)
		setup_failed(plan, &err);
	/* the jail's own netns only: the host's is not ours to change */
	if (p->network != NET_HOST && net_limit_dgram_queue(&err) < 0)
		setup_failed(plan, &err);
	/* before the root is built, so that a refusal is explained by what
	 * the host's files show (a container runtime's marker files) */
	if (sethostname(host, strlen(host)) < 0) {
		int e = errno;
		const char *filter = jail_hostname_refusal(e);

		err_set(&err, ERR_SETUP, e, "sethostname(%s): %s%s%s", host, strerror(e),
			filter ? ": " : "", filter ? filter : "");
		setup_failed(plan, &err);
	}
	/* Not dumpable: the target (same uid) cannot open the fds in /proc/1/fd to
	 * reach the control socket, nor ptrace us. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0) {
		err_set(&err, ERR_SETUP, errno, "prctl(PR_SET_DUMPABLE): %s",
			strerror(errno));
		setup_failed(plan, &err);
	}
	/* the proc fd comes from the mount just made, never from a path a
	 * bind could cover (a host /proc would meter every host process) */
	if (mount_build_root(plan, fs, &err) < 0)
		setup_failed(plan, &err);
	return ucount_fd;
}

/*
 * -i: a pty of the jail's own devpts (mount.c), opened in the new root
 * so the program's ttyname is its /dev/pts/N.  The slave comes from the
 * master itself (TIOCGPTPEER), never by a path the jail could replace.
 * O_NOCTTY: the init must not take it as its own terminal; the target
 * does (target.c).
 */
static void open_pty(struct jail_plan *plan, struct jail_fs *fs)
{
	struct sbx_err err = { 0 };
	int unlock = 0;

	fs->pty_master = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fs->pty_master < 0 || ioctl(fs->pty_master, TIOCSPTLCK, &unlock) < 0 ||
	    (plan->pty_slave = ioctl(fs->pty_master, TIOCGPTPEER,
				     O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		err_set(&err, ERR_SETUP, errno, "-i: opening a pty in the jail's /dev/pts "
			"(the policy must mount a dev at /dev): %s", strerror(errno));
		setup_failed(plan, &err);
	}
	vlog_line(&plan->vlog, "init: pty opened");
}

/*
 * The rest of the jail, after READY went out: the supervisor fills the
 * workspace meanwhile, one wake-up's wait less before GO (a faster start).
 * Nothing of the program runs before GO, so the quotas are still set
 * before anything of its does.
 */
static void finish_jail(const struct jail_plan *plan, int ucount_fd)
{
	const struct policy *p = plan->policy;
	struct sbx_err err = { 0 };

	if (p->network == NET_LOOPBACK && net_loopback_up(&err) < 0)
		setup_failed(plan, &err);
	/* Before anything of the program's runs: its share of the caller's
	 * inotify and namespace quotas. */
	if (ucount_limit_jail(ucount_fd, &err) < 0)
		setup_failed(plan, &err);
	vlog_line(&plan->vlog, "jail ready");
}

/* Block until CTL_GO; CTL_TERM or a vanished supervisor ends us. */
static void wait_for_go(const struct jail_plan *plan)
{
	struct ctl_msg m;

	for (;;) {
		ssize_t n = recv(plan->ctl_fd, &m, sizeof(m), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(m) || m.type == CTL_TERM)
			_exit(0);
		if (m.type == CTL_GO)
			return;
	}
}

/* What the init peeks at on the target's zombie, before the reap. */
struct exit_probe {
	int status_fd;    /* its /proc/PID/status, -1 = none */
	int proc_fd;      /* the jail's own /proc, -1 = none */
	int64_t cpu_soft; /* RLIMIT_CPU's soft limit in ns, 0 = none */
};

/* The processes of the jail now, the init and zombies included (both
 * count against RLIMIT_NPROC), from its own /proc; -1 if it cannot say. */
static int32_t count_procs(int proc_fd)
{
	int fd = proc_fd < 0 ? -1 : openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int32_t n = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		n += e->d_name[0] >= '1' && e->d_name[0] <= '9';
	closedir(d);
	return n;
}

/* The seccomp filter itself killed it: the kernel marks the task that the
 * filter kills SECCOMP_MODE_DEAD ("Seccomp: 3"); a SIGSYS that anyone sent
 * leaves it 2. */
static bool killed_by_filter(int status_fd)
{
	char text[8192];
	const char *p;
	ssize_t n;

	if (status_fd < 0 || (n = pread(status_fd, text, sizeof(text) - 1, 0)) <= 0)
		return false;
	text[n] = '\0';
	p = strstr(text, "\nSeccomp:\t");
	return p && strncmp(p + 10, "3\n", 2) == 0;
}

/* PID's CPU as the kernel counts it for RLIMIT_CPU: the tick-based
 * process PROF clock, which any process may read.  -1 if it cannot. */
static int64_t prof_ns(pid_t pid)
{
	clockid_t prof = (clockid_t)(~(unsigned)pid << 3) | 0; /* CPUCLOCK_PROF */
	struct timespec ts;

	if (clock_gettime(prof, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Kernel evidence of what killed the target (SI, its zombie, peeked): its
 * CPU at RLIMIT_CPU's soft limit makes a SIGXCPU the kernel's, not one
 * that anyone sent at 1 ms.  The kernel's CPU count goes to *CPU_NS. */
static int32_t exit_evidence(const siginfo_t *si, const struct exit_probe *ep,
			     int64_t *cpu_ns)
{
	*cpu_ns = prof_ns(si->si_pid);
	if (si->si_code != CLD_KILLED && si->si_code != CLD_DUMPED)
		return 0;
	if (si->si_status == SIGSYS && killed_by_filter(ep->status_fd))
		return CTL_EV_SECCOMP_KILL;
	if (si->si_status == SIGXCPU && ep->cpu_soft > 0 && *cpu_ns >= ep->cpu_soft)
		return CTL_EV_CPU_RLIMIT;
	return 0;
}

/* Reap every zombie; the target's with its evidence.  1: children remain. */
static int reap_children(pid_t target, const struct exit_probe *ep, int *status,
			 struct ctl_msg *exited, bool *target_done)
{
	siginfo_t si;
	int st;

	for (;;) {
		memset(&si, 0, sizeof(si));
		/* peek first: only the unreaped zombie still shows what killed it */
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
			return errno == ECHILD ? 0 : 1;
		if (si.si_pid == 0)
			return 1;
		if (si.si_pid == target) {
			exited->sys_errno = exit_evidence(&si, ep, &exited->cpu_ns);
			/* before anything is killed: a tree held at the process
			 * limit is seen whole, however short the run */
			exited->procs = count_procs(ep->proc_fd);
		}
		if (waitpid(si.si_pid, &st, WNOHANG) != si.si_pid)
			return 1;
		if (si.si_pid == target) {
			*status = st;
			exited->value = st;
			*target_done = true;
		}
	}
}

static void drain_signalfd(int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
}

/* After the target: SIGTERM, up to kill_grace for them to go, SIGKILL. */
__attribute__((noreturn)) static void teardown(const struct jail_plan *plan, int sfd)
{
	uint64_t grace = policy_kill_grace_ms(plan->policy);
	int64_t deadline;
	bool unused = false;
	struct ctl_msg unused_msg;
	int st;

	deadline = monotonic_ns() + (int64_t)grace * 1000000;
	kill(-1, SIGTERM);
	while (reap_children(-1, NULL, &st, &unused_msg, &unused)) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		int64_t now = monotonic_ns();

		if (now >= deadline)
			break;
		poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
		drain_signalfd(sfd);
	}
	kill(-1, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

/* Tell the supervisor whether the target exec'd (EOF) or why it did not. */
static void report_start(const struct jail_plan *plan, int report_fd, pid_t pid)
{
	struct target_report r;
	ssize_t n;

	memset(&r, 0, sizeof(r));
	while ((n = read(report_fd, &r, sizeof(r))) < 0 && errno == EINTR)
		;
	close(report_fd);
	if (n == 0) {
		vlog_line(&plan->vlog, "target started");
		send_msg(plan->ctl_fd, CTL_STARTED, (int32_t)pid, 0, NULL);
	} else if (n == (ssize_t)sizeof(r) && r.stage == REPORT_EXEC) {
		r.text[sizeof(r.text) - 1] = '\0';
		send_msg(plan->ctl_fd, CTL_EXEC_FAILED, 0, r.sys_errno, r.text);
	} else {
		/* Fail closed: the target never exec'd; end the jail. */
		r.text[sizeof(r.text) - 1] = '\0';
		vlog_line(&plan->vlog, "target setup failed: %s", r.text);
		send_msg(plan->ctl_fd, CTL_SETUP_FAILED, 0, r.sys_errno,
			 n == (ssize_t)sizeof(r) ? r.text : "target setup: bad report");
		kill(-1, SIGKILL);
		while (wait(NULL) > 0 || errno == EINTR)
			;
		_exit(1);
	}
}

/*
 * The init's own wall bound.  The supervisor ends the run at the wall
 * limit, but a supervisor stopped by SIGSTOP (which it cannot catch) left
 * the jail running unwatched past it.  The init is in the jail, where no
 * such stop reaches it: past the wall limit, the kill grace and a second
 * more, it ends the jail itself.  The caller's own stops (Ctrl-Z) do not
 * count: CTL_STOP pauses the bound and CTL_HELD moves it by the time held.
 */
struct wall_bound {
	int64_t at; /* monotonic ns; 0: none (no wall limit) */
	bool paused;
	bool fired;
};

#define WALL_BOUND_SLACK_MS 1000

static struct wall_bound wall_bound_start(const struct jail_plan *plan)
{
	uint64_t wall = policy_limit(plan->policy, LIM_WALL_TIME_MS);
	uint64_t ms;

	if (wall == LIMIT_UNLIMITED)
		return (struct wall_bound){ 0 };
	ms = wall + policy_kill_grace_ms(plan->policy) + WALL_BOUND_SLACK_MS;
	return (struct wall_bound){ .at = monotonic_ns() + (int64_t)ms * 1000000 };
}

/* The poll timeout until the bound, in ms (-1: none). */
static int wall_bound_wait_ms(const struct wall_bound *b)
{
	int64_t left;

	if (!b->at || b->paused || b->fired)
		return -1;
	left = (b->at - monotonic_ns()) / 1000000 + 1;
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

static void wall_bound_check(struct wall_bound *b)
{
	if (b->at && !b->paused && !b->fired && monotonic_ns() >= b->at) {
		b->fired = true;
		kill(-1, SIGKILL);
	}
}

static void ctl_event(const struct jail_plan *plan, struct wall_bound *bound)
{
	struct ctl_msg m;
	ssize_t n = recv(plan->ctl_fd, &m, sizeof(m), MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n != (ssize_t)sizeof(m)) {
		/* The supervisor is gone: nobody may outlive it. */
		kill(-1, SIGKILL);
		_exit(1);
	}
	if (m.type == CTL_TERM)
		kill(-1, SIGTERM);
	/* the caller stopped sbx (Ctrl-Z): the jail, in its own session, would
	 * run on unwatched; only the init reaches every process of it */
	else if (m.type == CTL_STOP) {
		bound->paused = true;
		kill(-1, SIGSTOP);
	} else if (m.type == CTL_CONT) {
		kill(-1, SIGCONT);
	} else if (m.type == CTL_HELD && m.value > 0) {
		/* a frozen cgroup sent no CTL_STOP: the hold ends here either way */
		bound->paused = false;
		if (bound->at)
			bound->at += (int64_t)m.value * 1000000;
	}
}

/* What to peek at on the target's zombie: its status in the jail's /proc
 * (none without one) and the RLIMIT_CPU soft limit it had (rlimit.c: the
 * caller's `ulimit -t` may be below the policy's). */
static struct exit_probe open_exit_probe(const struct jail_plan *plan, int proc,
					 pid_t pid)
{
	struct exit_probe ep = { .status_fd = -1, .proc_fd = proc,
				 .cpu_soft = rlimit_cpu_soft_ns(plan->policy) };
	char path[32];

	if (proc < 0)
		return ep;
	snprintf(path, sizeof(path), "%d/status", (int)pid);
	ep.status_fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
	return ep;
}

__attribute__((noreturn)) static void supervise_target(const struct jail_plan *plan,
						       pid_t target, int sfd, struct exit_probe ep)
{
	struct ctl_msg exited = { .type = CTL_EXITED, .cpu_ns = -1, .procs = -1 };
	struct wall_bound bound = wall_bound_start(plan);
	bool done = false;
	int status = 0;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = plan->ctl_fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};

		if (poll(pfd, 2, wall_bound_wait_ms(&bound)) < 0 && errno != EINTR)
			_exit(1);
		/* a hold's CTL_HELD first: it moves the bound the clock passed */
		if (pfd[0].revents)
			ctl_event(plan, &bound);
		wall_bound_check(&bound);
		if (pfd[1].revents || bound.fired) {
			drain_signalfd(sfd);
			reap_children(target, &ep, &status, &exited, &done);
			if (done) {
				if (bound.fired)
					exited.sys_errno |= CTL_EV_WALL_BOUND;
				while (send(plan->ctl_fd, &exited, sizeof(exited), MSG_NOSIGNAL) < 0 &&
				       errno == EINTR)
					;
				teardown(plan, sfd);
			}
		}
	}
}

__attribute__((noreturn)) static void start_target(struct jail_plan *plan, int proc_fd)
{
	const struct jail_spec *s = plan->spec;
	struct sbx_err err = { 0 };
	int report[2], sfd;
	sigset_t chld;
	pid_t pid;

	/* SIGCHLD stays SIG_DFL; blocked, it is read from a signalfd. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || pipe2(report, O_CLOEXEC) < 0) {
		err_set(&err, ERR_SETUP, errno, "signalfd/pipe in the jail init: %s",
			strerror(errno));
		setup_failed(plan, &err);
	}
	/* vfork: the target shares the init's memory until its execve, so
	 * the kernel copies no page tables (a fork was the most expensive
	 * step of a start-up).  target.c writes nothing the init
	 * reads and allocates nothing; the init waits meanwhile. */
	pid = vfork();
	/* a host filter that refuses vfork (none known) still gets a jail */
	if (pid < 0 && (errno == ENOSYS || errno == EPERM))
		pid = fork();
	if (pid == 0) {
		close(report[0]);
		target_main(plan, report[1]);
	}
	if (pid < 0) {
		err_resource(&err, "fork of the target", errno);
		setup_failed(plan, &err);
	}
	close(report[1]);
	/* The init must not hold the program's pipes or pty open after it:
	 * the supervisor's relay ends on their EOF. */
	if (plan->pty_slave >= 0)
		close(plan->pty_slave);
	for (int i = 0; i < 3; i++) {
		int fd = i == 0 ? s->stdin_fd : i == 1 ? s->stdout_fd : s->stderr_fd;

		if (fd > 2)
			close(fd);
	}
	report_start(plan, report[0], pid);
	supervise_target(plan, pid, sfd, open_exit_probe(plan, proc_fd, pid));
}

/* CTL_READY, with the jail's /proc (FS->proc, the init keeps it), a
 * sock_diag socket in its network namespace, its workspace tmpfs (marked
 * by the message's value) and its tmpfs mounts attached (SCM_RIGHTS). */
static void send_ready(const struct jail_plan *plan, struct jail_fs *fs)
{
	struct ctl_msg m = { .type = CTL_READY };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[CTL_MAX_FDS];
	size_t n = 0;

	fds[0] = fs->proc;
	n = fs->proc >= 0 ? 1 : 0;
	/* the jail's own network namespace only: the host's holds the host's sockets */
	if (plan->policy->network != NET_HOST &&
	    (fds[n] = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) >= 0)
		n++;
	if (fs->ws >= 0) {
		m.value = (int32_t)n + 1;
		fds[n++] = fs->ws;
	}
	if (fs->pty_master >= 0)
		fds[n++] = fs->pty_master;
	for (size_t i = 0; i < fs->ntmpfs && n < CTL_MAX_FDS; i++)
		fds[n++] = fs->tmpfs[i];
	if (n > 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	while (sendmsg(plan->ctl_fd, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	for (size_t i = fs->proc >= 0 ? 1 : 0; i < n; i++)
		close(fds[i]);
	fs->ntmpfs = 0;
	fs->ws = -1;
	fs->pty_master = -1;
}

/*
 * The init is a memory copy of sbx: its /proc/1/cmdline and environ are
 * sbx's host command line (bind sources, -e values, the policy path) and
 * environment (the caller's tokens), readable by the program.  Nothing
 * after GO may point into them (the target's argv and env, the policy's
 * strings are heap copies), so they go.
 */
static void wipe_host_args(const struct jail_plan *plan)
{
	static const char name[] = "sbx-init";
	char *args = (char *)plan->arg_start;
	size_t len = plan->arg_end - plan->arg_start;

	if (len > 0) {
		memset(args, 0, len);
		memcpy(args, name, len - 1 < sizeof(name) - 1 ? len - 1 : sizeof(name) - 1);
	}
	if (plan->env_end > plan->env_start)
		memset((char *)plan->env_start, 0, plan->env_end - plan->env_start);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

/*
 * At GO, after every setup step that needs a capability, before the
 * target: the init keeps nothing the program could take over.  What it
 * still does (fork, reap, kill(-1) of processes with its own uid, the
 * control socket) needs no capability.
 */
static void init_drop_privileges(const struct jail_plan *plan)
{
	struct sbx_err err = { 0 };

	wipe_host_args(plan);
	if (caps_drop_all(&err) < 0) {
		err_prefix(&err, "the jail init: ");
		setup_failed(plan, &err);
	}
	/* Nothing the init might exec could raise its privileges again. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		err_set(&err, ERR_SETUP, errno, "prctl(PR_SET_NO_NEW_PRIVS) in the "
			"jail init: %s", strerror(errno));
		setup_failed(plan, &err);
	}
	vlog_line(&plan->vlog, "init: capabilities dropped, host argv/environ wiped");
}

/*
 * Its uid/gid maps, written here (self_maps, through
 * /proc/self, which names this process in any procfs of an ancestor pid
 * namespace), or by the supervisor, which then writes one byte.
 */
static int await_maps(struct jail_plan *plan, struct sbx_err *err)
{
	struct jail unused;
	char go;
	int self, rc;

	if (plan->self_maps) {
		self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (self < 0)
			return err_set(err, ERR_SETUP, errno, "opening /proc/self in the "
				       "jail's init: %s", strerror(errno));
		rc = jail_write_maps(self, 0, plan, &unused, err);
		close(self);
		return rc;
	}
	/* No byte means the supervisor failed the maps or died: leave. */
	if (read(plan->sync_fd, &go, 1) != 1)
		_exit(1);
	close(plan->sync_fd);
	plan->sync_fd = -1;
	return 0;
}

void init_main(struct jail_plan *plan)
{
	struct sbx_err err = { 0 };
	struct jail_fs fs;
	int ucount_fd;

	/* The jail's tree is built with a known umask, not the caller's. */
	umask(JAIL_UMASK);
	/* SIG_DFL again (sbx catches them, relay.c): caught, the program could
	 * send them to its pid 1 and cut the init's system calls short */
	signal(procstate_timer_signal(), SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	close_inherited(plan);
	/* in a user namespace without maps the init has no valid uid yet */
	if (await_maps(plan, &err) < 0)
		setup_failed(plan, &err);
	/* in the run's cgroup now: the jail sees it as its root (spawn.c) */
	if (plan->spec->cgroup_fd >= 0 && unshare(CLONE_NEWCGROUP) != 0) {
		err_set(&err, ERR_SETUP, errno, "unshare(CLONE_NEWCGROUP): %s", strerror(errno));
		setup_failed(plan, &err);
	}
	ucount_fd = build_root(plan, &fs);
	fs.pty_master = -1;
	if (plan->spec->interactive)
		open_pty(plan, &fs);
	send_ready(plan, &fs);
	finish_jail(plan, ucount_fd);
	wait_for_go(plan);
	init_drop_privileges(plan);
	start_target(plan, fs.proc);
}
