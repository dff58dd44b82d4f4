/*
 * control.c - the supervisor's side of the jail's init: the control
 * messages it sends (READY, SETUP_FAILED, STARTED, EXEC_FAILED, EXITED)
 * and the fds attached to READY, GO and TERM sent back, SIGKILL through
 * its pidfd, and reaping it.  The init is only ever signalled through its
 * pidfd, never by pid, and never after it was reaped (a recycled pid could
 * be anyone's).
 */
#include "supervise/internal.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/ctl.h"
#include "supervise/sockmem.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* ---- killing the jail ---------------------------------------------------- */

/* SIGKILL of the init ends every process of its pid namespace. */
void sup_kill_init(struct sup *s)
{
	/* a reaped init's pidfd could only name nothing; never signal then */
	if (s->init_reaped || s->init_killed)
		return;
	s->init_killed = true;
	/* the whole cgroup at once: nothing forked in between escapes */
	if (cgroup_kill(&s->cg))
		vlog_line(&s->vlog, "cgroup.kill written");
	if (syscall(SYS_pidfd_send_signal, s->jail.pidfd, SIGKILL, NULL, 0) != 0 &&
	    errno != ESRCH)
		vlog_line(&s->vlog, "pidfd_send_signal: %s", strerror(errno));
	vlog_line(&s->vlog, "SIGKILL to the jail's init");
}

static int ctl_send_value(struct sup *s, uint32_t type, int32_t value)
{
	struct ctl_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.value = value;
	if (s->ctl_fd < 0)
		return -1;
	if (send(s->ctl_fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(m))
		return -1;
	return 0;
}

static int ctl_send(struct sup *s, uint32_t type)
{
	return ctl_send_value(s, type, 0);
}

/*
 * SIGTERM to every jail process (by the init), SIGKILL at the grace deadline
 * counted from SINCE: the wall deadline itself for a timeout, so a late
 * wake-up of a loaded sbx never extends wall + grace.  A wake-up later than
 * that (sbx was stopped past the deadline) counts the grace from now: a
 * grace already spent would SIGKILL the init at once, before it reports
 * what it saw while sbx could not look (the target's end, its own wall
 * bound), and the program would get no time for the SIGTERM it gets only
 * now.
 */
void sup_term_jail(struct sup *s, int64_t since)
{
	int64_t now = monotonic_ns();

	if (s->term_sent || s->init_reaped)
		return;
	s->term_sent = true;
	if (ctl_send(s, CTL_TERM) != 0) {
		sup_kill_init(s);
		return;
	}
	if (now - since > STOPPED_LATE_NS)
		since = now;
	s->dl_kill = since + s->grace_ns;
	vlog_line(&s->vlog, "CTL_TERM sent; SIGKILL in %lld ms", (long long)(s->grace_ns / MS));
}

/* ---- the caller's job control --------------------------------------------- */

/* Stop every jail process: the cgroup's freezer (nothing the program can
 * see), else SIGSTOP from the init.  Whether the jail is held. */
static bool hold_jail(struct sup *s)
{
	if (!s->go_sent || s->init_reaped)
		return false; /* before GO the program does not run yet */
	s->frozen = cgroup_freeze(&s->cg, true);
	return s->frozen || ctl_send(s, CTL_STOP) == 0;
}

/* HELD_NS: how long it was held, which the init's own wall bound skips;
 * sent before the thaw, so the init reads it before it checks the bound. */
static void release_jail(struct sup *s, int64_t held_ns)
{
	bool frozen = s->frozen;
	int64_t ms = held_ns / MS + 1;

	if (ctl_send_value(s, CTL_HELD, ms > INT32_MAX ? INT32_MAX : (int32_t)ms) != 0)
		vlog_line(&s->vlog, "CTL_HELD: %s", strerror(errno));
	s->frozen = false;
	if (frozen && !cgroup_freeze(&s->cg, false))
		vlog_line(&s->vlog, "cgroup.freeze 0: %s", strerror(errno));
	if (!frozen && ctl_send(s, CTL_CONT) != 0)
		vlog_line(&s->vlog, "CTL_CONT: %s", strerror(errno));
}

/* A deadline later by NS, unless it is not armed. */
static void postpone(int64_t *deadline, int64_t ns)
{
	if (*deadline != 0)
		*deadline += ns;
}

/*
 * The caller's Ctrl-Z (SIGTSTP; SIGTTIN or SIGTTOU for a background job).
 * The jail has a session of its own (TIOCSTI), so the terminal stopped
 * sbx alone and the jail ran on unwatched: burners ran 10 s past a 2 s
 * wall limit and used 4x their CPU budget.  Hold the jail, then stop sbx
 * by the same signal at its default action (the kernel drops it for an
 * orphaned process group, where nobody could continue sbx: then the
 * jail goes on at once); once continued, release the jail.  The time it
 * was held does not count against the wall limit.
 */
void sup_job_stop(struct sup *s, int sig)
{
	const struct timespec zero = { 0, 0 };
	sigset_t one, cont;
	bool held = hold_jail(s);
	int64_t t0 = monotonic_ns(), held_ns;

	vlog_line(&s->vlog, "got signal %d: %s, sbx stops", sig,
		  held ? "jail held" : "no jail to hold");
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigemptyset(&cont);
	sigaddset(&cont, SIGCONT);
	/* -i: the caller's shell gets its terminal as it left it while sbx is
	 * stopped, and the jail gets raw mode back once sbx continues */
	terminal_restore(&s->term);
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL); /* stopped here until SIGCONT */
	pthread_sigmask(SIG_BLOCK, &one, NULL);
	/* the SIGCONT that ended our own stop says nothing of a SIGSTOP */
	(void)sigtimedwait(&cont, NULL, &zero);
	if (s->term.saved && s->term.master >= 0 && terminal_raw(&s->term) != 0)
		vlog_line(&s->vlog, "-i: raw mode again after the stop: %s", strerror(errno));
	if (!held)
		return;
	held_ns = monotonic_ns() - t0;
	release_jail(s, held_ns);
	s->stopped_ns += held_ns;
	vlog_line(&s->vlog, "continued: the jail was held %lld ms", (long long)(held_ns / MS));
	/* kill_grace is not postponed: a run being torn down still ends on time */
	postpone(&s->dl_wall, held_ns);
	postpone(&s->dl_setup, held_ns);
	postpone(&s->dl_exit_grace, held_ns);
	postpone(&s->dl_close, held_ns);
}

/* ---- control messages ---------------------------------------------------- */

/* The caller's work on the workspace tmpfs before the program runs. */
static int ready_hook(struct sup *s)
{
	struct sbx_err e = { 0 };
	int fd = s->ws_fd;

	if (!s->req->on_ready)
		return 0;
	s->ws_fd = -1;
	if (fd < 0)
		err_set(&e, ERR_SETUP, EPROTO, "the jail's init sent no workspace tmpfs");
	else if (s->req->on_ready(s->req->ready_arg, fd, s->jail.host_uid, &e) == 0)
		return 0;
	s->setup_errno = e.sys_errno;
	snprintf(s->setup_text, sizeof(s->setup_text), "%.499s", e.msg);
	s->setup_failed = true;
	sup_kill_init(s);
	return -1;
}

static void start_run(struct sup *s)
{
	uint64_t wall = policy_limit(s->pol, LIM_WALL_TIME_MS);
	uint64_t cpu = policy_limit(s->pol, LIM_CPU_TIME_MS);

	s->dl_setup = 0;
	/* a signal before GO: the target never runs */
	if (s->abort_sig) {
		sup_kill_init(s);
		return;
	}
	if (ready_hook(s) < 0)
		return;
	/* -i: without the pty the program would have no stdio at all */
	if (s->req->interactive && (s->setup_failed || s->term.master < 0)) {
		if (!s->setup_failed)
			snprintf(s->setup_text, sizeof(s->setup_text),
				 "-i: the jail's init sent no pty");
		s->setup_failed = true;
		sup_kill_init(s);
		return;
	}
	vlog_line(&s->vlog, "workspace ready");
	cputree_sockets_baseline(&s->cpu); /* nothing of the program runs yet */
	if (ctl_send(s, CTL_GO) != 0) {
		s->setup_errno = errno;
		snprintf(s->setup_text, sizeof(s->setup_text), "sending GO to the jail's init");
		s->setup_failed = true;
		sup_kill_init(s);
		return;
	}
	s->go_sent = true;
	s->t_go = monotonic_ns();
	if (wall != LIMIT_UNLIMITED)
		s->dl_wall = s->t_go + (int64_t)wall * MS;
	/* one meter samples the tree for both CPU and memory */
	if (cpu != LIMIT_UNLIMITED || policy_limit(s->pol, LIM_MEMORY_MB) != LIMIT_UNLIMITED) {
		s->cpu.init_pid = s->jail.init_pid;
		s->sample_ns = SAMPLE_MIN_NS;
		s->t_churn = s->t_go; /* the target is being born */
		s->dl_cpu = s->t_go + s->sample_ns;
		/* building the root is sbx's work, not charged to the program */
		s->setup_cpu_ms = sup_tree_cpu_ms(s);
		if (s->setup_cpu_ms < 0)
			s->setup_cpu_ms = 0;
	}
	vlog_line(&s->vlog, "CTL_GO sent");
}

static void on_ctl_msg(struct sup *s, const struct ctl_msg *m)
{
	switch (m->type) {
	case CTL_READY:
		if (!s->ready) {
			s->ready = true;
			start_run(s);
		}
		break;
	case CTL_SETUP_FAILED:
		s->setup_failed = true;
		s->setup_errno = m->sys_errno;
		text_mark_cut(s->setup_text, sizeof(s->setup_text),
			      snprintf(s->setup_text, sizeof(s->setup_text), "%s", m->text));
		sup_kill_init(s); /* nothing ran; nothing to wait for */
		break;
	case CTL_STARTED:
		s->started = true;
		s->notify.target_pid = m->value;
		break;
	case CTL_LISTENER:
		if (s->notify.fd < 0)
			notify_none(&s->notify, m->sys_errno,
				    m->value ? "the jail's listener did not prove one" : NULL);
		break;
	case CTL_EXEC_FAILED:
		s->exec_failed = true;
		s->exec_errno = m->sys_errno;
		break;
	case CTL_EXITED:
		if (!s->target_exited) {
			s->target_exited = true;
			s->target_status = m->value;
			s->target_evidence = m->sys_errno;
			s->target_cpu_ns = m->cpu_ns;
			s->target_procs = m->procs;
			s->t_exit = monotonic_ns();
			s->dl_wall = 0;
			/* the init tears down the rest within kill_grace; else we do */
			s->dl_exit_grace = s->t_exit + s->grace_ns + SETTLE_MARGIN_NS;
		}
		break;
	default:
		vlog_line(&s->vlog, "ignoring unknown control message type %u", m->type);
	}
}

static void close_ctl(struct sup *s)
{
	if (s->ctl_fd >= 0)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->ctl_fd, NULL);
	s->ctl_eof = true;
}

/* Only with READY, only once: a procfs directory, tmpfs roots, a
 * sock_diag socket (the meter's sources, told apart by the kernel). */
static void take_ctl_fd(struct sup *s, const struct ctl_msg *m, int fd, bool ws)
{
	struct statfs sfs;
	unsigned pty_n;

	if (m->type == CTL_LISTENER) {
		if (notify_adopt(&s->notify, fd, &s->jail.answer, &s->jail.learn) == 0 &&
		    sup_watch(s, fd, EPOLLIN, TAG_NOTIFY) != 0)
			(void)notify_start(&s->notify); /* cannot wait on it: serve it now */
		return;
	}
	if (m->type == CTL_READY && !s->ready && fstatfs(fd, &sfs) == 0) {
		/* the workspace is metered like any tmpfs of the jail (memory) */
		if (ws && sfs.f_type == TMPFS_MAGIC && s->ws_fd < 0) {
			int meter = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (meter >= 0)
				cputree_use_tmpfs(&s->cpu, meter);
			s->ws_fd = fd;
			return;
		}
		if (sfs.f_type == PROC_SUPER_MAGIC && s->cpu.proc_fd < 0) {
			cputree_use_jail_proc(&s->cpu, fd);
			return;
		}
		if (sfs.f_type == TMPFS_MAGIC) {
			cputree_use_tmpfs(&s->cpu, fd);
			return;
		}
		/* -i: the master of the program's pty (only a master answers TIOCGPTN) */
		if (s->req->interactive && s->term.master < 0 && ioctl(fd, TIOCGPTN, &pty_n) == 0) {
			if (terminal_attach(s, fd) != 0)
				s->setup_failed = true;
			return;
		}
		/* the host's namespace would charge the host's sockets to the jail */
		if (s->pol->network != NET_HOST && s->cpu.diag_fd < 0 && sockmem_is_diag(fd)) {
			cputree_use_sock_diag(&s->cpu, fd);
			return;
		}
	}
	close(fd);
}

/* One message; fds attached to CTL_READY are the jail's /proc and its tmpfs
 * roots (init.c), told apart by their file system type. */
static ssize_t recv_ctl(struct sup *s, struct ctl_msg *m)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	ssize_t n = recvmsg(s->ctl_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	int fds[CTL_MAX_FDS];
	size_t nfds;

	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len < CMSG_LEN(sizeof(int)))
		return n;
	nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (nfds > CTL_MAX_FDS)
		nfds = CTL_MAX_FDS;
	memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
	for (size_t i = 0; i < nfds; i++)
		take_ctl_fd(s, m, fds[i], m->value > 0 && (size_t)m->value == i + 1);
	return n;
}

void sup_drain_ctl(struct sup *s)
{
	struct ctl_msg m;
	ssize_t n;

	while (!s->ctl_eof) {
		memset(&m, 0, sizeof(m));
		n = recv_ctl(s, &m);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_ctl(s);
			return;
		}
		if ((size_t)n < offsetof(struct ctl_msg, text))
			continue; /* truncated message: ignore */
		m.text[sizeof(m.text) - 1] = '\0';
		on_ctl_msg(s, &m);
	}
}

/* ---- the init's end ------------------------------------------------------ */

void sup_reap_init(struct sup *s)
{
	siginfo_t info;
	struct rusage ru;

	memset(&info, 0, sizeof(info));
	memset(&ru, 0, sizeof(ru));
	if (syscall(SYS_waitid, P_PIDFD, s->jail.pidfd, &info, WEXITED | WNOHANG | __WALL,
		    &ru) != 0) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		vlog_line(&s->vlog, "waitid(P_PIDFD): %s", strerror(errno));
		s->rusage_ok = false;
	} else if (info.si_pid == 0) {
		return; /* not exited yet */
	} else {
		s->rusage_ok = true;
		s->init_ru = ru;
		s->init_code = info.si_code;
		s->init_status = info.si_status;
	}
	s->init_reaped = true;
	s->t_init_dead = monotonic_ns();
	s->dl_wall = s->dl_kill = s->dl_cpu = s->dl_exit_grace = s->dl_setup = 0;
	s->dl_close = s->t_init_dead + s->grace_ns + SETTLE_MARGIN_NS;
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->jail.pidfd, NULL);
	sup_drain_ctl(s); /* EXITED may still be queued behind the init's death */
	vlog_line(&s->vlog, "init reaped");
	sup_check_files_at_end(s);
}

/* Wait for the init after a failure inside the loop: sbx never leaves a jail. */
void sup_reap_blocking(struct sup *s)
{
	siginfo_t info;

	sup_kill_init(s);
	memset(&info, 0, sizeof(info));
	while (syscall(SYS_waitid, P_PIDFD, s->jail.pidfd, &info, WEXITED | __WALL, NULL) != 0 &&
	       errno == EINTR)
		;
	s->init_reaped = true;
}
