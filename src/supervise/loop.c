/*
 * loop.c - the supervisor's running jail: one epoll loop over the output
 * pipes and their sinks, the stdin relay, the control socket, the init's
 * pidfd, a signalfd and one timerfd, until the init is reaped and the pipes
 * are drained.  Each turn first makes the epoll set match what each stream
 * waits for, so no read or write ever blocks the loop.
 *
 * In this file, in order: the init's side of the control protocol (the
 * messages it sends, READY's fds, GO and TERM sent back, SIGKILL through
 * its pidfd, reaping: the init is only ever signalled through its pidfd,
 * never by pid, and never after it was reaped, as a recycled pid could be
 * anyone's); the deadlines the timer enforces (the setup timeout, the wall
 * deadline, the meter's CPU and memory samples, the kill grace, the exit
 * grace and the output close deadline: the timerfd is armed at the earliest
 * absolute CLOCK_MONOTONIC deadline, and every check is now >= deadline, so
 * a late wake-up never cancels an escalation); then the loop and what wakes
 * it.  The three act on one another, so they are one file.
 */
#include "supervise/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/procstate.h"
#include "jail/ctl.h"
#include "supervise/sockmem.h"

/* Each part acts on the others: the loop on the deadlines and the init,
 * the deadlines on the init, the init's messages on the meter. */
static void sup_kill_init(struct sup *s);
static void sup_term_jail(struct sup *s, int64_t since);
static void sup_drain_ctl(struct sup *s);
static int64_t sup_tree_cpu_ms(struct sup *s);
static void sup_check_files_at_end(struct sup *s);
static void sup_give_up_output(struct sup *s);


/* ---- the init: its messages, signals and reaping -------------------------- */

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* ---- killing the jail ---------------------------------------------------- */

/* SIGKILL of the init ends every process of its pid namespace. */
static void sup_kill_init(struct sup *s)
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
static void sup_term_jail(struct sup *s, int64_t since)
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
static void sup_job_stop(struct sup *s, int sig)
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

/* Stage 3 (supervise.h): the caller's work on the workspace tmpfs before
 * the program runs. */
static int ready_hook(struct sup *s)
{
	struct sbx_err e = { 0 };
	int fd = s->ws_fd;

	if (!s->req->hooks.workspace_ready)
		return 0;
	s->ws_fd = -1;
	if (fd < 0)
		err_set(&e, ERR_SETUP, EPROTO, "the jail's init sent no workspace tmpfs");
	else if (s->req->hooks.workspace_ready(s->req->hooks.arg, fd, s->jail.host_uid, &e) == 0)
		return 0;
	s->setup_errno = e.sys_errno;
	_Static_assert(sizeof(s->setup_text) >= sizeof(e.msg), "a hook's error fits whole");
	snprintf(s->setup_text, sizeof(s->setup_text), "%s", e.msg);
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

static void sup_drain_ctl(struct sup *s)
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

static void sup_reap_init(struct sup *s)
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

/* ---- deadlines: the timer and the meter ----------------------------------- */

/* Drop what is still undelivered (the jail's pipes and the pending tails). */
static void sup_give_up_output(struct sup *s)
{
	s->dl_close = 0;
	for (int i = 0; i < 2; i++) {
		out_stream_close_src(&s->out[i], s->epfd);
		relay_abandon(&s->out[i]);
	}
}

/*
 * RLIMIT_DATA bounds each process, not the tree: 64 children of 500 MiB
 * each would take 32 GiB.  The jail's processes together must stay within
 * memory_mb; past it the jail is killed at once.
 */
static void check_memory(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t limit_kib, kib;

	if (mb == LIMIT_UNLIMITED || s->memory_exceeded)
		return;
	limit_kib = (int64_t)mb * 1024;
	kib = cputree_memory_kib(&s->cpu, limit_kib);
	/* page tables grow with no RSS, as fast as a process faults: while
	 * its mappings could take the tree past the limit, sample fast */
	s->memory_near_limit = kib > limit_kib / 2 || s->cpu.tables_read;
	if (kib > limit_kib) {
		s->memory_exceeded = true;
		s->memory_seen_kib = kib;
		vlog_line(&s->vlog, "tree memory %lld KiB > limit %lld KiB",
			  (long long)kib, (long long)limit_kib);
		sup_kill_init(s);
	}
}

/*
 * The files a tree wrote outlive it in the tmpfs: a program that wrote past
 * memory_mb and exited between two samples still holds that memory, so
 * its run is a memory-limit too, however fast it was.
 */
static void sup_check_files_at_end(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t kib;

	/* with a cgroup the kernel charged the files to memory.max as written */
	if (mb == LIMIT_UNLIMITED || s->memory_exceeded || s->cg.active || !s->go_sent)
		return;
	kib = cputree_tmpfs_kib(&s->cpu);
	if (kib > (int64_t)mb * 1024) {
		s->memory_exceeded = true;
		s->memory_seen_kib = kib;
		vlog_line(&s->vlog, "tmpfs files %lld KiB at the end > limit %lld KiB",
			  (long long)kib, (long long)mb * 1024);
	}
}

static int64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Fast while the tree churns (short lives between samples go unseen), slow
 * while it is still, and bounded by what the last sample cost us. */
static void next_sample(struct sup *s, int64_t now, int64_t cost_ns)
{
	int64_t next;

	if (s->cpu.churn)
		s->t_churn = now;
	/* a child that dies after the last sample takes its tail with it */
	next = now - s->t_churn < SAMPLE_FAST_FOR_NS ? SAMPLE_MIN_NS : SAMPLE_MAX_NS;
	/* near memory_mb, fast too: a process growing past it must meet the
	 * meter (memory-limit) before its RLIMIT_DATA backstop (an ENOMEM the
	 * record could not attribute) */
	if (s->memory_near_limit)
		next = SAMPLE_MIN_NS;
	if (next < cost_ns * SAMPLE_COST_SHARE)
		next = cost_ns * SAMPLE_COST_SHARE;
	s->sample_ns = next;
	s->dl_cpu = now + next;
}

/*
 * The next sample before the tree, spending CPU as fast as since the last
 * one, could spend the REMAINING_MS left: a sample that cost much (many
 * processes, emulation) pushed the next one out, and 4 busy children under
 * --cpu 1s used 3.2 s in the VM before the meter looked again.  By the
 * rate seen, not by the CPU count: a tree idle near its budget would make
 * the meter spin.
 */
static void sample_before_budget(struct sup *s, int64_t now, int64_t used_ms,
				 int64_t remaining_ms)
{
	int64_t spent_ms = used_ms - s->cpu_sampled_ms, wall_ns = now - s->t_cpu_sampled;
	int64_t by;

	if (s->t_cpu_sampled == 0 || spent_ms <= 0 || wall_ns <= 0)
		return;
	/* at spent_ms per wall_ns, the rest lasts remaining_ms / spent_ms of it */
	by = (int64_t)((double)wall_ns * (double)remaining_ms / (double)spent_ms);
	if (by < SAMPLE_MIN_NS)
		by = SAMPLE_MIN_NS;
	if (now + by < s->dl_cpu)
		s->dl_cpu = now + by;
}

/*
 * With a cgroup the kernel holds the tree to memory.max, but Linux 6.1
 * charges it nothing for netlink replies left unread: 8 x 200 sockets
 * held them with memory.peak at 4.5 MiB under --memory 64M.  Those
 * queues and memory.current together must stay within memory_mb.
 */
static void check_uncharged(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t limit_kib, nl, cur;

	if (mb == LIMIT_UNLIMITED || s->memory_exceeded)
		return;
	nl = cputree_uncharged_kib(&s->cpu);
	if (nl <= 0 || (cur = cgroup_memory_kib(&s->cg)) < 0)
		return;
	limit_kib = (int64_t)mb * 1024;
	if (cur + nl > limit_kib) {
		s->memory_exceeded = true;
		s->memory_seen_kib = cur + nl;
		vlog_line(&s->vlog, "cgroup memory %lld KiB + netlink queues %lld KiB > limit %lld KiB",
			  (long long)cur, (long long)nl, (long long)limit_kib);
		sup_kill_init(s);
	}
}

/* The tree's CPU so far: cpu.stat of its cgroup, else the meter's sample. */
static int64_t sup_tree_cpu_ms(struct sup *s)
{
	return s->cg.active ? cgroup_cpu_ms(&s->cg) : cputree_sample_ms(&s->cpu);
}

static void check_meter(struct sup *s, int64_t now)
{
	uint64_t budget = policy_limit(s->pol, LIM_CPU_TIME_MS);
	int64_t t0 = own_cpu_ns();
	int64_t used = sup_tree_cpu_ms(s);

	/* with a cgroup the kernel holds the tree to memory.max itself */
	if (used >= 0 && !s->cg.active)
		check_memory(s);
	else if (s->cg.active)
		check_uncharged(s);
	/* the memory check's cost too: smaps_rollup of processes that share
	 * pages after fork() walks their page tables (sbx spun at 90 %) */
	next_sample(s, now, own_cpu_ns() - t0);
	if (used < 0)
		return;
	used -= s->setup_cpu_ms;
	if (budget != LIMIT_UNLIMITED && (uint64_t)used < budget)
		sample_before_budget(s, now, used, (int64_t)budget - used);
	s->cpu_sampled_ms = used;
	s->t_cpu_sampled = now;
	if (budget != LIMIT_UNLIMITED && (uint64_t)used >= budget && !s->cpu_exceeded) {
		s->cpu_exceeded = true;
		/* spent by the first look after a SIGCONT: sbx was stopped (loop.c) */
		if (s->t_cont_unexplained != 0 && now - s->t_cont_unexplained < STOPPED_CONT_NS)
			s->sigstop_seen = true;
		vlog_line(&s->vlog, "tree CPU %lld ms >= budget %llu ms",
			  (long long)used, (unsigned long long)budget);
		sup_term_jail(s, now);
	}
}

static bool due(int64_t deadline, int64_t now)
{
	return deadline != 0 && now >= deadline;
}

static void sup_check_deadlines(struct sup *s)
{
	int64_t now = monotonic_ns();

	if (due(s->dl_setup, now)) {
		s->dl_setup = 0;
		s->setup_timed_out = true;
		sup_kill_init(s);
	}
	if (due(s->dl_wall, now)) {
		int64_t deadline = s->dl_wall;
		s->dl_wall = 0;
		sup_drain_ctl(s); /* an exit reported before the deadline wins the race */
		if (!s->target_exited && !s->init_reaped) {
			s->timed_out = true;
			sup_term_jail(s, deadline);
		}
	}
	if (due(s->dl_cpu, now))
		check_meter(s, now);
	if (due(s->dl_kill, now) || due(s->dl_exit_grace, now)) {
		s->dl_kill = s->dl_exit_grace = 0;
		sup_kill_init(s);
	}
	/* a reader that keeps taking bytes is slow, not stalled: it gets them
	 * all (finite: every writer died with the init) */
	bool moved = relay_progressed(&s->out[0]) | relay_progressed(&s->out[1]);
	if (s->dl_close != 0 && moved && s->dl_close < now + SETTLE_MARGIN_NS)
		s->dl_close = now + SETTLE_MARGIN_NS;
	/* a reader that takes nothing until the deadline loses the rest, not the run */
	if (due(s->dl_close, now))
		sup_give_up_output(s);
}

static void sup_arm_timer(struct sup *s)
{
	const int64_t all[] = { s->dl_setup, s->dl_wall, s->dl_cpu, s->dl_kill,
				s->dl_exit_grace, s->dl_close, s->out[0].batch_until,
				s->out[1].batch_until };
	struct itimerspec its;
	int64_t next = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] != 0 && (next == 0 || all[i] < next))
			next = all[i];
	/* the relay loop passes here per chunk: skip a syscall that changes nothing */
	if (next == s->timer_armed)
		return;
	s->timer_armed = next;
	memset(&its, 0, sizeof(its));
	if (next != 0) {
		its.it_value.tv_sec = next / 1000000000;
		its.it_value.tv_nsec = next % 1000000000;
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* ---- signals to sbx ------------------------------------------------------ */

static void on_signal(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGWINCH) {
			terminal_copy_size(&s->term);
			continue;
		}
		if (si.ssi_signo == SIGTSTP || si.ssi_signo == SIGTTIN || si.ssi_signo == SIGTTOU) {
			sup_job_stop(s, (int)si.ssi_signo);
			continue;
		}
		/* the end of a SIGSTOP of sbx, or a SIGCONT alone: the signs
		 * that tell them apart are in internal.h */
		if (si.ssi_signo == SIGCONT) {
			int64_t now = monotonic_ns();

			/* the meter looks at once either way: a sample costs little */
			if (s->dl_cpu != 0)
				s->dl_cpu = now;
			if (s->t_stop_sign == 0 || now - s->t_stop_sign > STOPPED_CONT_NS) {
				vlog_line(&s->vlog, "a SIGCONT with no sign of a stop of sbx yet");
				s->t_cont_unexplained = now;
				continue;
			}
			vlog_line(&s->vlog, "continued after a SIGSTOP of sbx");
			s->sigstop_seen = true;
			continue;
		}
		if (!procstate_is_abort((int)si.ssi_signo))
			continue;
		vlog_line(&s->vlog, "got signal %u", si.ssi_signo);
		/* the jail is gone: stop delivering to a slow or stalled reader too */
		if (s->init_reaped)
			sup_give_up_output(s);
		if (s->abort_sig) {
			sup_kill_init(s); /* asked twice: stop waiting for the grace */
			continue;
		}
		s->abort_sig = (int)si.ssi_signo;
		if (!s->go_sent)
			sup_kill_init(s); /* never send GO: the target must not start */
		else
			sup_term_jail(s, monotonic_ns());
	}
}

/* ---- the loop ------------------------------------------------------------ */


/*
 * A stream that keeps the pipe busy (bytes again within BATCH_GAP_NS, or a
 * big read) is read every BATCH_NS instead of on every write: a program
 * writing 8 KiB at a time woke sbx ~50,000 times a GiB, and those context
 * switches cost more than the copy.  A batch drains the pipe (1
 * MiB: 4 GB/s for 250 us, so the writer does not wait); the first quiet
 * read ends it, so a prompt or a line now and then still goes out at once;
 * and a destination that is full (a slow pipe reader) is waited for as
 * before, never by the clock.
 */
#define BATCH_NS (250 * 1000)
#define BATCH_GAP_NS (100 * 1000)
#define BATCH_BYTES (64 * 1024)
#define BATCH_QUIET_NS (10 * 1000 * 1000)
#define BATCH_READS 8 /* x RELAY_BUF_SIZE: the jail's pipe */

/* Bytes left in the jail's pipe that the destination did not take. */
static bool dest_limited(const struct out_stream *o, const struct out_budget *b)
{
	struct pollfd p = { .fd = o->src, .events = POLLIN };

	return !relay_reading(o, b) || (poll(&p, 1, 0) > 0 && (p.revents & POLLIN));
}

static void note_rate(struct out_stream *o, const struct out_stream *other,
		      const struct out_budget *b, uint64_t moved, bool batch)
{
	int64_t now = monotonic_ns();
	/* a batch's turn comes BATCH_NS after the last: any bytes keep it on
	 * (else a stream went in and out of it, and while out, a line on the
	 * other stream in the same turn could pass its last chunk) */
	bool fast = moved >= BATCH_BYTES ||
		    (moved > 0 && (batch || now - o->moved_ns < BATCH_GAP_NS));
	/* both streams busy: each write read at once keeps their interleaving
	 * (2>&1 into one file) as close as the pipes let it be */
	bool alone = other->moved_ns == 0 || now - other->moved_ns > BATCH_QUIET_NS;

	if (moved > 0)
		o->moved_ns = now;
	o->batch_until = 0;
	if (fast && alone && o->src >= 0 && !dest_limited(o, b))
		o->batch_until = now + BATCH_NS;
}

/* One read of stream I; a batch's turn, or DRAIN, reads until the pipe is
 * empty. */
static int pump_output(struct sup *s, int i, bool batch, bool drain)
{
	struct out_stream *o = &s->out[i];
	uint64_t before = o->bytes, last;
	int r, reads = 0;

	do {
		last = o->bytes;
		r = relay_pump(o, &s->budget, s->buf, s->err);
	} while (r == PUMP_MORE && (batch || drain) && ++reads < BATCH_READS &&
		 o->bytes - last >= RELAY_BUF_SIZE);
	if (r < 0)
		return -1;
	if (r == PUMP_EOF)
		out_stream_close_src(o, s->epfd);
	if (r == PUMP_MORE && relay_reader_gone(o)) {
		o->reader_gone = true;
		out_stream_close_src(o, s->epfd);
	}
	if (r == PUMP_TRUNCATED) {
		s->output_limited = true;
		sup_kill_init(s); /* output-limit: the policy says kill */
	}
	note_rate(o, &s->out[1 - i], &s->budget, o->bytes - before, batch);
	return 0;
}


/* Keep the stdin relay's epoll registration matching what it waits for. */
static void update_stdin_watch(struct sup *s)
{
	unsigned events = 0;
	int fd = stdin_want(&s->in, &events);

	if (fd == s->in_fd && events == s->in_events)
		return;
	if (s->in_fd >= 0)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->in_fd, NULL);
	s->in_fd = fd;
	s->in_events = events;
	if (fd >= 0 && sup_watch(s, fd, events, TAG_STDIN) != 0) {
		stdin_close(&s->in); /* cannot wait on it: the program gets EOF */
		s->in_fd = -1;
	}
}

/*
 * Read a jail pipe only while its sinks have room, and wait for EPOLLOUT on
 * a full sink: a write to a stalled reader never blocks the loop, so the
 * deadlines and signals keep working (a blocked write froze them all).
 */
static void update_out_watch(struct sup *s, int i)
{
	struct out_stream *o = &s->out[i];
	struct out_sink *sinks[2] = { &o->dest, &o->copy };
	const enum tag tags[2] = { TAG_OUT_DEST + i, TAG_OUT_COPY + i };
	bool want = relay_reading(o, &s->budget) && !o->batch_until;

	if (want != o->src_watched) {
		if (want)
			o->src_watched = sup_watch(s, o->src, EPOLLIN, TAG_OUT + i) == 0;
		else if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, o->src, NULL) == 0)
			o->src_watched = false;
	}
	for (int k = 0; k < 2; k++) {
		struct out_sink *sk = sinks[k];
		want = relay_sink_waiting(sk);
		if (want == sk->watched)
			continue;
		if (!want) {
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, sk->wfd, NULL);
			sk->watched = false;
		} else if (sup_watch(s, sk->wfd, EPOLLOUT, tags[k]) == 0) {
			sk->watched = true;
		} else {
			/* cannot wait for it: treat like a reader that went away */
			sk->dead = true;
			sk->error = errno;
			relay_flush(o, sk);
		}
	}
}

static bool settled(const struct sup *s)
{
	return s->init_reaped && s->out[0].src < 0 && s->out[1].src < 0 &&
	       !relay_holding(&s->out[0]) && !relay_holding(&s->out[1]);
}

/* A batched stream is read when its time comes, and whenever the other
 * stream is read, and first (handle_ready): its earlier bytes go out
 * before the other's later ones, as without batching. */
static void batches_due(struct sup *s, bool ready[TAG_COUNT], bool batch[2])
{
	int64_t now = monotonic_ns();
	bool any = ready[TAG_OUT] || ready[TAG_OUT + 1];

	for (int i = 0; i < 2; i++)
		any = any || (s->out[i].batch_until && now >= s->out[i].batch_until);
	for (int i = 0; any && i < 2; i++)
		if (s->out[i].batch_until) {
			s->out[i].batch_until = 0;
			ready[TAG_OUT + i] = batch[i] = true;
		}
}

/* Bytes waiting in stream I's jail pipe; 0 when unknown. */
static int pending_bytes(const struct out_stream *o)
{
	int n = 0;

	if (o->src < 0 || ioctl(o->src, FIONREAD, &n) != 0)
		return 0;
	return n;
}

/*
 * Which stream to read first when both have bytes (2>&1 into one file keeps
 * the program's order only as far as sbx guesses it): a batch's bytes are
 * older than the other's, which woke us as soon as they came; else the
 * fuller pipe, read to empty, holds the burst the other's line came after.
 * A stdout line after a stderr burst came out before the burst's last 16
 * KiB when sbx, slowed by a loaded machine, saw both in one turn.
 */
static int out_read_first(struct sup *s, const bool ready[TAG_COUNT], const bool batch[2])
{
	if (batch[1] != batch[0])
		return batch[1] ? 1 : 0;
	if (!ready[TAG_OUT] || !ready[TAG_OUT + 1])
		return 0;
	return pending_bytes(&s->out[1]) > pending_bytes(&s->out[0]) ? 1 : 0;
}

static int handle_ready(struct sup *s, const bool ready[TAG_COUNT], const bool batch[2])
{
	int first = out_read_first(s, ready, batch);
	bool both = ready[TAG_OUT] && ready[TAG_OUT + 1];

	/* control first: an exit reported in the same turn beats a deadline */
	if (ready[TAG_CTL])
		sup_drain_ctl(s);
	if (ready[TAG_PIDFD])
		sup_reap_init(s);
	for (int k = 0; k < 2; k++) {
		int i = k ? 1 - first : first;

		if (ready[TAG_OUT_DEST + i])
			relay_flush(&s->out[i], &s->out[i].dest);
		if (ready[TAG_OUT_COPY + i])
			relay_flush(&s->out[i], &s->out[i].copy);
		if (ready[TAG_OUT + i] && s->out[i].src >= 0 &&
		    pump_output(s, i, batch[i], both && k == 0) != 0)
			return -1;
	}
	if (ready[TAG_STDIN])
		stdin_pump(&s->in);
	/* the first refusal: from now on the thread answers, not the loop;
	 * a hang-up alone (no filtered task left) needs no thread */
	if (ready[TAG_NOTIFY]) {
		if (!notify_pending(&s->notify) || notify_start(&s->notify) == 0)
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->notify.fd, NULL);
		else
			notify_serve_one(&s->notify);
	}
	if (ready[TAG_SIGNAL])
		on_signal(s);
	if (ready[TAG_TIMER]) {
		uint64_t expirations;
		(void)!read(s->tfd, &expirations, sizeof(expirations));
		s->timer_armed = -1; /* fired: disarmed until set again */
	}
	return 0;
}

int sup_event_loop(struct sup *s)
{
	struct epoll_event evs[TAG_COUNT + 2];
	int64_t turn_began = monotonic_ns();

	while (!settled(s)) {
		bool ready[TAG_COUNT] = { false }, batch[2] = { false, false };

		update_stdin_watch(s);
		update_out_watch(s, 0);
		update_out_watch(s, 1);
		sup_arm_timer(s);
		/* signs of a stop of sbx (internal.h): a turn that took this long */
		int64_t now = monotonic_ns();
		if (now - turn_began > STOPPED_LATE_NS)
			s->t_stop_sign = now;
		int n = epoll_wait(s->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), -1);
		if (n < 0 && errno != EINTR)
			return err_set(s->err, ERR_INTERNAL, errno, "epoll_wait: %s",
				       strerror(errno));
		/* ... a wait cut short, or one that ended long after its timer */
		now = turn_began = monotonic_ns();
		if (n < 0 || (s->timer_armed > 0 && now - s->timer_armed > STOPPED_LATE_NS))
			s->t_stop_sign = now;
		/* what happened while sbx was stopped (the jail's end, say) is
		 * read before any deadline that passed meanwhile is acted on */
		if (n < 0)
			continue;
		for (int i = 0; i < n; i++)
			if (evs[i].data.u32 < TAG_COUNT)
				ready[evs[i].data.u32] = true;
		batches_due(s, ready, batch);
		if (handle_ready(s, ready, batch) != 0) {
			sup_kill_init(s);
			return -1;
		}
		sup_check_deadlines(s);
	}
	return 0;
}
