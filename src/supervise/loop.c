/*
 * loop.c - the supervisor's epoll loop over the output pipes and their
 * sinks, the stdin relay, the control socket, the init's pidfd, a
 * signalfd and the timerfd (deadlines.c), until the init is reaped and
 * the pipes are drained.  Each turn first makes the epoll set match what
 * each stream waits for, so no read or write ever blocks the loop.
 */
#include "base/procstate.h"
#include "supervise/internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

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

int sup_watch(struct sup *s, int fd, unsigned events, enum tag tag)
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
