/*
 * supervise.c - supervise_run(): spawn the jail and stay in control of it.
 *
 * One epoll loop over the output pipes, the control socket, the init's
 * pidfd, a signalfd and one timerfd armed at the earliest absolute
 * CLOCK_MONOTONIC deadline (64-bit ns; every check is now >= deadline, so a
 * late wake-up never cancels an escalation).  Phases: wait for CTL_READY
 * (bounded), send CTL_GO, run under the wall/CPU/output limits, settle when
 * the init is reaped and the pipes are drained, then classify (classify.c).
 * The jail is only ever signalled through the init's pidfd, never by pid,
 * and never after the init was reaped (requirements item 34).
 */
#include "supervise/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jail/ctl.h"
#include "jail/jail.h"
#include "supervise/internal.h"
#include "supervise/sockmem.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#define MS (INT64_C(1000000))
#define SETUP_TIMEOUT_NS (10000 * MS)
/* The meter samples every 10 ms while the tree changes (births, deaths)
 * and for a second after, 100 ms once it is still, and never spends more
 * than 1/SAMPLE_COST_SHARE of one CPU: a sample that cost C waits >= C *
 * share. */
#define SAMPLE_MIN_NS (10 * MS)
#define SAMPLE_MAX_NS (100 * MS)
#define SAMPLE_FAST_FOR_NS (1000 * MS)
#define SAMPLE_COST_SHARE 20
#define SETTLE_MARGIN_NS (1000 * MS)
/* capture mode with an unlimited output limit still keeps memory bounded */
#define CAPTURE_CEILING (UINT64_C(64) << 20)

/* TAG_OUT/TAG_ERR: the jail pipes (EPOLLIN); the DEST/COPY tags: sbx sinks (EPOLLOUT) */
enum tag {
	TAG_CTL, TAG_PIDFD, TAG_SIGNAL, TAG_TIMER, TAG_OUT, TAG_ERR, TAG_STDIN,
	TAG_OUT_DEST, TAG_ERR_DEST, TAG_OUT_COPY, TAG_ERR_COPY, TAG_COUNT
};

/* ---- killing the jail ---------------------------------------------------- */

/* SIGKILL of the init ends every process of its pid namespace. */
static void kill_init(struct sup *s)
{
	/* a reaped init's pidfd could only name nothing; never signal then */
	if (s->init_reaped || s->init_killed)
		return;
	s->init_killed = true;
	if (syscall(SYS_pidfd_send_signal, s->jail.pidfd, SIGKILL, NULL, 0) != 0 &&
	    errno != ESRCH)
		vlog_line(&s->vlog, "pidfd_send_signal: %s", strerror(errno));
	vlog_line(&s->vlog, "SIGKILL to the jail's init");
}

static int ctl_send(struct sup *s, uint32_t type)
{
	struct ctl_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	if (s->ctl_fd < 0)
		return -1;
	if (send(s->ctl_fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(m))
		return -1;
	return 0;
}

/*
 * SIGTERM to every jail process (by the init), SIGKILL at the grace deadline
 * counted from SINCE: the wall deadline itself for a timeout, so a late
 * wake-up of sbx never extends wall + grace (requirements items 21, 25).
 */
static void term_jail(struct sup *s, int64_t since)
{
	if (s->term_sent || s->init_reaped)
		return;
	s->term_sent = true;
	if (ctl_send(s, CTL_TERM) != 0) {
		kill_init(s);
		return;
	}
	s->dl_kill = since + s->grace_ns;
	vlog_line(&s->vlog, "CTL_TERM sent; SIGKILL in %lld ms", (long long)(s->grace_ns / MS));
}

/* ---- control messages ---------------------------------------------------- */

static void start_run(struct sup *s)
{
	uint64_t wall = policy_limit(s->pol, LIM_WALL_TIME_MS);
	uint64_t cpu = policy_limit(s->pol, LIM_CPU_TIME_MS);

	s->dl_setup = 0;
	/* a signal before GO: the target never runs (requirements item 29) */
	if (s->abort_sig) {
		kill_init(s);
		return;
	}
	if (ctl_send(s, CTL_GO) != 0) {
		s->setup_errno = errno;
		snprintf(s->setup_text, sizeof(s->setup_text), "sending GO to the jail's init");
		s->setup_failed = true;
		kill_init(s);
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
		/* building the root is sbx's work, not the program's (item 4) */
		s->setup_cpu_ms = cputree_sample_ms(&s->cpu);
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
		snprintf(s->setup_text, sizeof(s->setup_text), "%s", m->text);
		kill_init(s); /* nothing ran; nothing to wait for */
		break;
	case CTL_STARTED:
		s->started = true;
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
static void take_ctl_fd(struct sup *s, const struct ctl_msg *m, int fd)
{
	struct statfs sfs;

	if (m->type == CTL_READY && !s->ready && fstatfs(fd, &sfs) == 0) {
		if (sfs.f_type == PROC_SUPER_MAGIC && s->cpu.proc_fd < 0) {
			cputree_use_jail_proc(&s->cpu, fd);
			return;
		}
		if (sfs.f_type == TMPFS_MAGIC) {
			cputree_use_tmpfs(&s->cpu, fd);
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
		take_ctl_fd(s, m, fds[i]);
	return n;
}

static void drain_ctl(struct sup *s)
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

static void reap_init(struct sup *s)
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
	drain_ctl(s); /* EXITED may still be queued behind the init's death */
	vlog_line(&s->vlog, "init reaped");
}

/* ---- signals to sbx ------------------------------------------------------ */

/* Drop what is still undelivered (the jail's pipes and the pending tails). */
static void give_up_output(struct sup *s)
{
	s->dl_close = 0;
	for (int i = 0; i < 2; i++) {
		out_stream_close_src(&s->out[i], s->epfd);
		relay_abandon(&s->out[i]);
	}
}

static void on_signal(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo != SIGINT && si.ssi_signo != SIGTERM && si.ssi_signo != SIGHUP)
			continue;
		vlog_line(&s->vlog, "got signal %u", si.ssi_signo);
		/* the jail is gone: stop delivering to a slow or stalled reader too */
		if (s->init_reaped)
			give_up_output(s);
		if (s->abort_sig) {
			kill_init(s); /* asked twice: stop waiting for the grace */
			continue;
		}
		s->abort_sig = (int)si.ssi_signo;
		if (!s->go_sent)
			kill_init(s); /* never send GO (requirements item 29) */
		else
			term_jail(s, monotonic_ns());
	}
}

/* ---- deadlines ----------------------------------------------------------- */

/*
 * RLIMIT_AS bounds each process, not the tree: 64 children of 500 MiB
 * each would take 32 GiB.  The jail's processes together must stay within
 * memory_mb; past it the jail is killed at once (requirements item 16).
 */
static void check_memory(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t limit_kib, kib;

	if (mb == LIMIT_UNLIMITED || s->memory_exceeded)
		return;
	limit_kib = (int64_t)mb * 1024;
	kib = cputree_memory_kib(&s->cpu, limit_kib);
	if (kib > limit_kib) {
		s->memory_exceeded = true;
		s->memory_seen_kib = kib;
		vlog_line(&s->vlog, "tree memory %lld KiB > limit %lld KiB",
			  (long long)kib, (long long)limit_kib);
		kill_init(s);
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
	if (next < cost_ns * SAMPLE_COST_SHARE)
		next = cost_ns * SAMPLE_COST_SHARE;
	s->sample_ns = next;
	s->dl_cpu = now + next;
}

static void check_meter(struct sup *s, int64_t now)
{
	uint64_t budget = policy_limit(s->pol, LIM_CPU_TIME_MS);
	int64_t t0 = own_cpu_ns();
	int64_t used = cputree_sample_ms(&s->cpu);

	if (used >= 0)
		check_memory(s);
	/* the memory check's cost too: smaps_rollup of processes that share
	 * pages after fork() walks their page tables (sbx spun at 90 %) */
	next_sample(s, now, own_cpu_ns() - t0);
	if (used < 0)
		return;
	used -= s->setup_cpu_ms;
	s->cpu_sampled_ms = used;
	if (budget != LIMIT_UNLIMITED && (uint64_t)used >= budget && !s->cpu_exceeded) {
		s->cpu_exceeded = true;
		vlog_line(&s->vlog, "tree CPU %lld ms >= budget %llu ms",
			  (long long)used, (unsigned long long)budget);
		term_jail(s, now);
	}
}

static bool due(int64_t deadline, int64_t now)
{
	return deadline != 0 && now >= deadline;
}

static void check_deadlines(struct sup *s)
{
	int64_t now = monotonic_ns();

	if (due(s->dl_setup, now)) {
		s->dl_setup = 0;
		s->setup_timed_out = true;
		kill_init(s);
	}
	if (due(s->dl_wall, now)) {
		int64_t deadline = s->dl_wall;
		s->dl_wall = 0;
		drain_ctl(s); /* an exit reported before the deadline wins the race */
		if (!s->target_exited && !s->init_reaped) {
			s->timed_out = true;
			term_jail(s, deadline);
		}
	}
	if (due(s->dl_cpu, now))
		check_meter(s, now);
	if (due(s->dl_kill, now) || due(s->dl_exit_grace, now)) {
		s->dl_kill = s->dl_exit_grace = 0;
		kill_init(s);
	}
	/* a reader that keeps taking bytes is slow, not stalled: it gets them
	 * all (finite: every writer died with the init) */
	bool moved = relay_progressed(&s->out[0]) | relay_progressed(&s->out[1]);
	if (s->dl_close != 0 && moved && s->dl_close < now + SETTLE_MARGIN_NS)
		s->dl_close = now + SETTLE_MARGIN_NS;
	/* a reader that takes nothing until the deadline loses the rest, not the run */
	if (due(s->dl_close, now))
		give_up_output(s);
}

static void arm_timer(struct sup *s)
{
	const int64_t all[] = { s->dl_setup, s->dl_wall, s->dl_cpu, s->dl_kill,
				s->dl_exit_grace, s->dl_close };
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

/* ---- the loop ------------------------------------------------------------ */

void out_stream_close_src(struct out_stream *o, int epfd)
{
	if (o->src < 0)
		return;
	if (o->src_watched)
		epoll_ctl(epfd, EPOLL_CTL_DEL, o->src, NULL);
	o->src_watched = false;
	close(o->src);
	o->src = -1;
}

static int pump_output(struct sup *s, int i)
{
	int r = relay_pump(&s->out[i], &s->budget, s->buf, s->err);

	if (r < 0)
		return -1;
	if (r == PUMP_EOF)
		out_stream_close_src(&s->out[i], s->epfd);
	if (r == PUMP_TRUNCATED) {
		s->output_limited = true;
		kill_init(s); /* output-limit: the policy says kill (spec §5) */
	}
	return 0;
}

static int watch(struct sup *s, int fd, unsigned events, enum tag tag)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
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
	if (fd >= 0 && watch(s, fd, events, TAG_STDIN) != 0) {
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
	bool want = relay_reading(o, &s->budget);

	if (want != o->src_watched) {
		if (want)
			o->src_watched = watch(s, o->src, EPOLLIN, TAG_OUT + i) == 0;
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
		} else if (watch(s, sk->wfd, EPOLLOUT, tags[k]) == 0) {
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

static int handle_ready(struct sup *s, const bool ready[TAG_COUNT])
{
	/* control first: an exit reported in the same turn beats a deadline */
	if (ready[TAG_CTL])
		drain_ctl(s);
	if (ready[TAG_PIDFD])
		reap_init(s);
	for (int i = 0; i < 2; i++) {
		if (ready[TAG_OUT_DEST + i])
			relay_flush(&s->out[i], &s->out[i].dest);
		if (ready[TAG_OUT_COPY + i])
			relay_flush(&s->out[i], &s->out[i].copy);
		if (ready[TAG_OUT + i] && s->out[i].src >= 0 && pump_output(s, i) != 0)
			return -1;
	}
	if (ready[TAG_STDIN])
		stdin_pump(&s->in);
	if (ready[TAG_SIGNAL])
		on_signal(s);
	if (ready[TAG_TIMER]) {
		uint64_t expirations;
		(void)!read(s->tfd, &expirations, sizeof(expirations));
		s->timer_armed = -1; /* fired: disarmed until set again */
	}
	return 0;
}

static int event_loop(struct sup *s)
{
	struct epoll_event evs[TAG_COUNT + 2];

	while (!settled(s)) {
		bool ready[TAG_COUNT] = { false };

		update_stdin_watch(s);
		update_out_watch(s, 0);
		update_out_watch(s, 1);
		arm_timer(s);
		int n = epoll_wait(s->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), -1);
		if (n < 0 && errno != EINTR)
			return err_set(s->err, ERR_INTERNAL, errno, "epoll_wait: %s",
				       strerror(errno));
		for (int i = 0; i < n; i++)
			if (evs[i].data.u32 < TAG_COUNT)
				ready[evs[i].data.u32] = true;
		if (handle_ready(s, ready) != 0) {
			kill_init(s);
			return -1;
		}
		check_deadlines(s);
	}
	return 0;
}

/* ---- setup and teardown -------------------------------------------------- */

/* Block the signals the loop reads; SIGPIPE from a closed sbx stdout is an
 * EPIPE to handle, not a death that would lose the record. */
static int block_signals(struct sup *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	/* SIGCHLD stays blocked and out of the signalfd: the pidfd says when */
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return err_set(s->err, ERR_SETUP, errno, "sigprocmask: %s", strerror(errno));
	sigdelset(&set, SIGCHLD);
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0)
		return err_set(s->err, ERR_SETUP, errno, "signalfd: %s", strerror(errno));
	return 0;
}

static int open_copy(const char *path, const char *option, struct sbx_err *err)
{
	/* O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of hanging sbx,
	 * and this description is ours alone, so a full FIFO never blocks the loop */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		      0644);

	if (fd < 0)
		return err_set(err, ERR_USAGE, errno, "%s: cannot create '%s': %s; "
			       "give a writable path", option, path, strerror(errno));
	return fd;
}

/* One output pipe: our read end (CLOEXEC, non-blocking), the jail's write end. */
static int make_output(struct sup *s, int i, int *jail_fd)
{
	static const char *const names[2] = { "stdout", "stderr" };
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		return err_set(s->err, ERR_SETUP, errno, "pipe2 for the program's %s: %s",
			       names[i], strerror(errno));
	relay_grow_pipe(p[0]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	out_stream_init(&s->out[i], names[i], p[0]);
	*jail_fd = p[1];
	s->out[i].capture = s->req->capture;
	if (!s->req->capture &&
	    relay_set_dest(&s->out[i], i == 0 ? STDOUT_FILENO : STDERR_FILENO, s->err) != 0)
		return -1;
	return 0;
}

static int prepare_copies(struct sup *s)
{
	const char *const paths[2] = { s->req->stdout_copy, s->req->stderr_copy };
	const char *const options[2] = { "--stdout", "--stderr" };

	struct stat st[2] = { { 0 } };

	for (int i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		int fd = open_copy(paths[i], options[i], s->err);
		if (fd < 0 || relay_set_copy(&s->out[i], fd, s->err) != 0)
			return -1;
		/* two descriptions of one regular file each write from offset 0:
		 * stdout's bytes were overwritten by stderr's, silently */
		if (fstat(fd, &st[i]) == 0 && i == 1 && paths[0] && S_ISREG(st[1].st_mode) &&
		    st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino)
			return err_set(s->err, ERR_USAGE, 0, "--stderr %s is the same file as "
				       "--stdout %s: the copies would overwrite each other; "
				       "give two files", paths[1], paths[0]);
	}
	return 0;
}

static int make_loop_fds(struct sup *s)
{
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return err_set(s->err, ERR_SETUP, errno, "epoll_create1: %s", strerror(errno));
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->tfd < 0)
		return err_set(s->err, ERR_SETUP, errno, "timerfd_create: %s", strerror(errno));
	if (watch(s, s->tfd, EPOLLIN, TAG_TIMER) != 0 ||
	    watch(s, s->sigfd, EPOLLIN, TAG_SIGNAL) != 0 ||
	    watch(s, s->out[0].src, EPOLLIN, TAG_OUT) != 0 ||
	    watch(s, s->out[1].src, EPOLLIN, TAG_ERR) != 0)
		return err_set(s->err, ERR_SETUP, errno, "epoll_ctl: %s", strerror(errno));
	s->out[0].src_watched = s->out[1].src_watched = true;
	return 0;
}

static int watch_jail(struct sup *s)
{
	s->ctl_fd = s->jail.ctl_fd;
	if (watch(s, s->ctl_fd, EPOLLIN, TAG_CTL) != 0 ||
	    watch(s, s->jail.pidfd, EPOLLIN, TAG_PIDFD) != 0)
		return err_set(s->err, ERR_SETUP, errno, "epoll_ctl on the jail's fds: %s",
			       strerror(errno));
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void sup_cleanup(struct sup *s)
{
	for (int i = 0; i < 2; i++)
		out_stream_close(&s->out[i]); /* closes the --stdout/--stderr copies */
	stdin_close(&s->in);
	cputree_free(&s->cpu);
	close_fd(&s->epfd);
	close_fd(&s->tfd);
	close_fd(&s->sigfd);
	free(s->buf);
	s->buf = NULL;
}

/* Wait for the init after a failure inside the loop: sbx never leaves a jail. */
static void reap_blocking(struct sup *s)
{
	siginfo_t info;

	kill_init(s);
	memset(&info, 0, sizeof(info));
	while (syscall(SYS_waitid, P_PIDFD, s->jail.pidfd, &info, WEXITED | __WALL, NULL) != 0 &&
	       errno == EINTR)
		;
	s->init_reaped = true;
}

static int spawn(struct sup *s, int fds[3])
{
	struct jail_spec spec = {
		.policy = s->pol,
		.argv = s->req->argv,
		.envp = s->req->envp,
		.workspace_host = s->req->workspace_host,
		.stdin_fd = fds[0],
		.stdout_fd = fds[1],
		.stderr_fd = fds[2],
		.verbose = s->req->verbose,
	};
	int rc = jail_spawn(&spec, &s->jail, s->err);

	/* the jail has its copies now; ours would keep the pipes from EOF */
	for (int i = 0; i < 3; i++)
		close_fd(&fds[i]);
	if (rc != 0)
		return -1;
	s->jail_up = true;
	s->dl_setup = monotonic_ns() + SETUP_TIMEOUT_NS;
	vlog_line(&s->vlog, "jail spawned (init pid %d)", (int)s->jail.init_pid);
	return 0;
}

static int prepare(struct sup *s, int fds[3])
{
	uint64_t limit = policy_limit(s->pol, LIM_OUTPUT_BYTES);

	s->budget.limit = limit;
	if (s->req->capture && limit == LIMIT_UNLIMITED)
		s->budget.limit = CAPTURE_CEILING;
	s->buf = malloc(RELAY_BUF_SIZE);
	if (!s->buf)
		return err_set(s->err, ERR_INTERNAL, ENOMEM, "out of memory");
	if (block_signals(s) != 0 || stdin_open(s->req->stdin_spec, &fds[0], &s->in, s->err) != 0 ||
	    make_output(s, 0, &fds[1]) != 0 || make_output(s, 1, &fds[2]) != 0 ||
	    prepare_copies(s) != 0 || make_loop_fds(s) != 0)
		return -1;
	return 0;
}

static void sup_init(struct sup *s, const struct run_request *req, struct result *res,
		     struct sbx_err *err)
{
	memset(s, 0, sizeof(*s));
	s->req = req;
	s->pol = req->policy;
	s->res = res;
	s->err = err;
	s->epfd = s->tfd = s->sigfd = s->ctl_fd = s->in_fd = -1;
	s->in.src = s->in.dst = -1;
	out_stream_init(&s->out[0], "stdout", -1);
	out_stream_init(&s->out[1], "stderr", -1);
	cputree_init(&s->cpu, 0);
	s->timer_armed = -1;
	s->vlog = (struct vlog){ .on = req->verbose, .who = "supervise ",
				 .t0_ns = monotonic_ns() };
	/* the init's grace too (policy.h): the same value on both sides */
	s->grace_ns = (int64_t)policy_kill_grace_ms(s->pol) * MS;
}

int supervise_run(const struct run_request *req, struct result *res, struct sbx_err *err)
{
	struct sup s;
	int fds[3] = { -1, -1, -1 };
	int rc = 0;

	sup_init(&s, req, res, err);
	res->policy = req->policy;
	res->command = req->argv;
	res->capture = req->capture;
	if (prepare(&s, fds) != 0 || spawn(&s, fds) != 0) {
		for (int i = 0; i < 3; i++)
			close_fd(&fds[i]);
		sup_cleanup(&s);
		result_from_err(res, err);
		return -1;
	}
	if (watch_jail(&s) != 0 || event_loop(&s) != 0) {
		reap_blocking(&s);
		result_from_err(res, err);
		rc = -1;
	} else {
		sup_classify(&s);
	}
	jail_release(&s.jail);
	sup_cleanup(&s);
	return rc;
}
