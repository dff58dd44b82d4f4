/*
 * relay.c - the output relay: jail pipes -> sbx's stdout/stderr, the capture
 * buffers and the --stdout/--stderr copies, all within one byte budget.
 *
 * Memory stays constant whatever the program prints (a flood must not grow sbx):
 * passthrough uses splice() (no copy through user space) or one fixed
 * buffer; capture keeps at most the budget.  Bytes are counted raw.
 *
 * No write blocks the event loop, whatever the destination does (a reader
 * that stopped reading, a stopped terminal): a blocked write would freeze the
 * wall/CPU/kill deadlines and SIGINT handling with the jail still running.
 * sbx's fd 1/2 keep their blocking mode -- their file description is shared
 * with the caller's shell, which O_NONBLOCK would break -- so each write is
 * made non-blocking on its own:
 *   - pipe -> pipe splice with SPLICE_F_NONBLOCK (non-blocking on both ends;
 *     bytes not moved stay in the jail's pipe: back-pressure, nothing lost);
 *   - pipes: pwritev2(RWF_NOWAIT), non-blocking per call;
 *   - sockets: send(MSG_DONTWAIT), non-blocking per call;
 *   - ttys are reopened through /proc/self/fd/N with O_NONBLOCK: a private
 *     description of the same tty (they support no RWF_NOWAIT);
 *   - when that is refused (no /proc, another user's tty after su), or a
 *     kernel lacks RWF_NOWAIT on pipes: poll(POLLOUT, 0), then a write that
 *     a 20 ms timer cuts short (no SA_RESTART; write_timer) -- POLLOUT
 *     on a tty only promises one byte of room, so any size could block;
 *   - regular files and /dev/null (epoll refuses them) never block.
 * Splice is not used for ttys and sockets: their splice_write honours only
 * the file's own O_NONBLOCK.  A tail that does not fit waits in the sink's
 * buffer (RELAY_PEND_SIZE) and the stream stops reading until the loop sees
 * EPOLLOUT; after the init is reaped the close deadline (pushed on while the
 * reader keeps taking bytes) bounds the wait for one that takes nothing.
 */
#include "supervise/relay.h"
#include "base/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/procstate.h"
#include "policy/policy.h"

#define SPLICE_CHUNK (1024 * 1024)

static void sink_init(struct out_sink *k)
{
	memset(k, 0, sizeof(*k));
	k->fd = k->wfd = k->own_fd = -1;
}

void out_stream_init(struct out_stream *s, const char *name, int src)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->src = src;
	sink_init(&s->dest);
	sink_init(&s->copy);
	s->splice_ok = true;
	s->tail = '\n';
}

static void sink_close(struct out_sink *k, bool owned)
{
	if (k->own_fd >= 0)
		close(k->own_fd);
	if (owned && k->fd >= 0)
		close(k->fd);
	free(k->pend);
	sink_init(k);
}

void out_stream_close(struct out_stream *s)
{
	if (s->src >= 0)
		close(s->src);
	s->src = -1;
	sink_close(&s->dest, false); /* sbx's own 1/2 */
	sink_close(&s->copy, true);
	capbuf_free(&s->cap);
}

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

void relay_grow_pipe(int fd)
{
	/* 1 MiB is the unprivileged maximum (fs.pipe-max-size) */
	(void)fcntl(fd, F_SETPIPE_SZ, 1024 * 1024);
}

int relay_marker(uint64_t limit, char *buf, size_t size)
{
	return snprintf(buf, size, "\n[sbx: output truncated at %" PRIu64 " bytes]\n", limit);
}

bool relay_pollable(int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events };
	int ep cleanup_fd = epoll_create1(EPOLL_CLOEXEC);

	return ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0;
}

/* ---- sinks: where bytes go, without blocking ------------------------------ */

/* A private O_NONBLOCK description of the same tty (see the top). */
static int reopen_nonblock(int fd)
{
	char path[40];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* O_NOCTTY: reopening a tty must never make it sbx's controlling tty */
	return open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

static int sink_setup(struct out_sink *k, int fd, const char *what, struct sbx_err *err)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	bool stat_ok = fstat(fd, &st) == 0;

	k->fd = k->wfd = fd;
	if (stat_ok && S_ISSOCK(st.st_mode))
		k->kind = SINK_SOCKET;
	else if (!relay_pollable(fd, EPOLLOUT))
		k->kind = SINK_FILE;
	else if (fl >= 0 && (fl & O_NONBLOCK))
		k->kind = SINK_NONBLOCK; /* the caller made it non-blocking */
	else if (stat_ok && S_ISFIFO(st.st_mode))
		k->kind = SINK_NOWAIT;
	else if ((k->own_fd = reopen_nonblock(fd)) >= 0) {
		k->kind = SINK_NONBLOCK;
		k->wfd = k->own_fd;
	} else {
		k->kind = SINK_TIMED;
	}
	if (k->kind == SINK_FILE)
		return 0;
	/* mapped, not touched: costs RSS only while a tail is pending */
	k->pend = malloc(RELAY_PEND_SIZE);
	if (!k->pend)
		return err_set(err, ERR_INTERNAL, ENOMEM, "relaying %s: out of memory", what);
	return 0;
}

int relay_set_dest(struct out_stream *s, int fd, struct sbx_err *err)
{
	struct stat st;

	if (sink_setup(&s->dest, fd, s->name, err) != 0)
		return -1;
	/* splice is non-blocking only into a pipe, and harmless into a file */
	s->splice_ok = s->dest.kind == SINK_FILE ||
		       (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode));
	return 0;
}

int relay_set_copy(struct out_stream *s, int fd, struct sbx_err *err)
{
	if (sink_setup(&s->copy, fd, s->name, err) != 0) {
		close(fd);
		s->copy.fd = s->copy.wfd = -1;
		return -1;
	}
	return 0;
}

/*
 * The timer of write_timed(): a POSIX timer on SIGRTMIN (outside the abort
 * set), true; else ITIMER_REAL, false.  SIGALRM, an abort signal the
 * supervisor holds blocked for its signalfd, never cut the write short and
 * ended the run `aborted`, "interrupted by SIGALRM" (Linux 6.1, whose pipes
 * take no RWF_NOWAIT); so ITIMER_REAL is only the fallback, its SIGALRM let
 * through around the write (procstate_alarm_open).  Not the only timer: a
 * caller's SIGALRM that came while the itimer's was pending (sbx stopped,
 * or starved) merged into it and was lost.  The fallback is for
 * the caller's `ulimit -i 0`, where timer_create() fails: one byte a write
 * took over 30 s for 229 KB in CI's emulated VM.
 */
static bool write_timer(timer_t *out)
{
	static int state; /* 0 not tried, 1 made, -1 refused */
	static timer_t timer;
	struct sigevent ev;

	if (state == 0) {
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = procstate_timer_signal();
		state = procstate_catch_timer_signal() == 0 &&
				timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0 ? 1 : -1;
	}
	*out = timer;
	return state == 1;
}

/* Arm write_timed()'s timer for 20 ms, or disarm it. */
static void write_timer_set(bool posix, timer_t timer, bool on)
{
	struct itimerspec spec = { .it_value = { .tv_nsec = on ? 20 * 1000 * 1000 : 0 } };
	struct itimerval val = { .it_value = { .tv_usec = on ? 20 * 1000 : 0 } };

	if (posix)
		timer_settime(timer, 0, &spec, NULL);
	else
		setitimer(ITIMER_REAL, &val, NULL);
}

/* A write that gives up after 20 ms; -1 with EAGAIN when cut short. */
static ssize_t write_timed(int fd, const unsigned char *p, size_t n)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	timer_t timer;
	bool posix;
	ssize_t w;
	int saved;

	if (poll(&pfd, 1, 0) == 0) {
		errno = EAGAIN;
		return -1;
	}
	posix = write_timer(&timer);
	/* no timer: POLLOUT promises room for one byte, so one byte cannot block */
	if (!posix && procstate_alarm_open() != 0)
		return write(fd, p, 1);
	write_timer_set(posix, timer, true);
	w = write(fd, p, n);
	saved = errno;
	write_timer_set(posix, timer, false);
	if (!posix)
		procstate_alarm_close();
	errno = saved == EINTR ? EAGAIN : saved;
	return w;
}

/* One non-blocking attempt; -1 with errno EAGAIN when K is full. */
static ssize_t sink_write_once(struct out_sink *k, const unsigned char *p, size_t n)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };
	ssize_t w;

	switch (k->kind) {
	case SINK_SOCKET:
		return send(k->wfd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	case SINK_NOWAIT:
		w = pwritev2(k->wfd, &iov, 1, -1, RWF_NOWAIT);
		if (w < 0 && errno == EOPNOTSUPP) {
			k->kind = SINK_TIMED; /* a kernel without RWF_NOWAIT on pipes */
			return write_timed(k->wfd, p, n);
		}
		return w;
	case SINK_TIMED:
		return write_timed(k->wfd, p, n);
	default:
		return write(k->wfd, p, n);
	}
}

/* Write what K takes now; the count taken.  Sets waiting or dead. */
static size_t sink_write_some(struct out_sink *k, const unsigned char *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = sink_write_once(k, p + done, n - done);
		if (w > 0) {
			done += (size_t)w;
			/* short: K is full (a timed write was cut); let the loop run */
			if (done < n && k->kind != SINK_FILE) {
				k->waiting = true;
				break;
			}
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN && k->kind != SINK_FILE) {
			k->waiting = true;
			break;
		}
		/* EPIPE (reader gone) etc.: a broken destination never ends the run */
		k->dead = true;
		k->error = w < 0 ? errno : EIO;
		k->off = k->len = 0;
		break;
	}
	return done;
}

static size_t sink_write(struct out_stream *s, struct out_sink *k, const unsigned char *p,
			 size_t n)
{
	size_t w = sink_write_some(k, p, n);

	s->delivered += w;
	return w;
}

/* Hand N bytes to K; what it cannot take now waits in K->pend. */
static void sink_put(struct out_stream *s, struct out_sink *k, const unsigned char *p, size_t n)
{
	if (k->fd < 0 || k->dead || n == 0)
		return;
	if (k == &s->dest)
		s->tail = p[n - 1];
	if (k->len == k->off) {
		size_t w = sink_write(s, k, p, n);
		k->off = k->len = 0;
		p += w;
		n -= w;
		if (k->dead || n == 0)
			return;
	}
	/* the stream reads only when nothing is pending; the marker fits too */
	if (!k->pend || k->len + n > RELAY_PEND_SIZE) {
		k->dead = true;
		k->error = ENOBUFS;
		return;
	}
	memcpy(k->pend + k->len, p, n);
	k->len += n;
	k->waiting = true;
}

bool relay_reader_gone(const struct out_stream *s)
{
	return s->dest.fd >= 0 && s->dest.dead && s->dest.error == EPIPE &&
	       s->copy.fd < 0 && !s->capture;
}

bool relay_sink_waiting(const struct out_sink *k)
{
	return k->fd >= 0 && !k->dead && k->waiting;
}

static void sync_copy_errno(struct out_stream *s)
{
	if (s->copy.dead && !s->copy_errno)
		s->copy_errno = s->copy.error ? s->copy.error : EIO;
}

void relay_flush(struct out_stream *s, struct out_sink *k)
{
	k->waiting = false; /* a splice wait holds nothing: read again */
	if (!k->dead && k->len > k->off)
		k->off += sink_write(s, k, k->pend + k->off, k->len - k->off);
	if (k->off == k->len)
		k->off = k->len = 0;
	sync_copy_errno(s);
}

bool relay_holding(const struct out_stream *s)
{
	return (!s->dest.dead && s->dest.len > s->dest.off) ||
	       (!s->copy.dead && s->copy.len > s->copy.off);
}

bool relay_progressed(struct out_stream *s)
{
	bool moved = s->delivered != s->delivered_seen;

	s->delivered_seen = s->delivered;
	return moved;
}

void relay_abandon(struct out_stream *s)
{
	if (s->dest.len > s->dest.off)
		s->tail = -1;
	s->dest.off = s->dest.len = 0;
	s->copy.off = s->copy.len = 0;
	s->dest.waiting = s->copy.waiting = false;
}

bool relay_reading(const struct out_stream *s, const struct out_budget *b)
{
	if (s->src < 0)
		return false;
	/* after truncation everything read is dropped: keep draining */
	return b->truncated || (!relay_sink_waiting(&s->dest) && !relay_sink_waiting(&s->copy));
}

/* ---- pumping one stream ---------------------------------------------------- */

static uint64_t remaining(const struct out_budget *b)
{
	if (b->limit == LIMIT_UNLIMITED)
		return UINT64_MAX;
	return b->admitted >= b->limit ? 0 : b->limit - b->admitted;
}

static void mark_truncated(struct out_stream *s, struct out_budget *b)
{
	char marker[96];
	int n = relay_marker(b->limit, marker, sizeof(marker));

	b->truncated = true;
	s->crossed = true;
	/* capture mode appends the marker after UTF-8 repair (classify.c) */
	sink_put(s, &s->dest, (const unsigned char *)marker, (size_t)n);
}

/* EAGAIN from a non-blocking splice: the jail's pipe is empty, or dest is full. */
static void splice_stalled(struct out_stream *s)
{
	struct pollfd in = { .fd = s->src, .events = POLLIN };

	if (poll(&in, 1, 0) > 0 && (in.revents & POLLIN) && s->dest.kind != SINK_FILE)
		s->dest.waiting = true; /* data left in the jail's pipe: wait for room */
}

/* Fast path: splice straight to dest.  Bytes, 0 EOF, -1 fall back, -2 nothing. */
static ssize_t pump_splice(struct out_stream *s, uint64_t room)
{
	size_t want = room < SPLICE_CHUNK ? (size_t)room : SPLICE_CHUNK;
	ssize_t n;

	for (;;) {
		n = splice(s->src, NULL, s->dest.wfd, NULL, want,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			splice_stalled(s);
			return -2;
		}
		if (errno == EPIPE) {
			s->dest.dead = true;
			s->dest.error = EPIPE;
			return -1;
		}
		s->splice_ok = false; /* EINVAL: this destination takes no splice */
		return -1;
	}
}

static bool can_splice(const struct out_stream *s, const struct out_budget *b)
{
	return s->splice_ok && s->dest.fd >= 0 && !s->dest.dead && s->copy.fd < 0 &&
	       !s->capture && !b->truncated && remaining(b) > 0;
}

static int admit(struct out_stream *s, struct out_budget *b, const unsigned char *buf,
		 size_t n, struct sbx_err *err)
{
	if (s->capture && capbuf_append(&s->cap, buf, n) != 0)
		return err_set(err, ERR_INTERNAL, errno,
			       "capturing %s: out of memory after %zu bytes; "
			       "lower the output limit (--output)", s->name, s->cap.len);
	sink_put(s, &s->dest, buf, n);
	sink_put(s, &s->copy, buf, n);
	sync_copy_errno(s);
	b->admitted += n;
	return 0;
}

int relay_pump(struct out_stream *s, struct out_budget *b, unsigned char *buf,
	       struct sbx_err *err)
{
	uint64_t room = remaining(b);
	ssize_t n;

	if (!relay_reading(s, b))
		return PUMP_MORE; /* a sink is full: the bytes wait in the jail's pipe */
	if (can_splice(s, b)) {
		n = pump_splice(s, room);
		if (n == -2)
			return PUMP_MORE;
		if (n == 0)
			return PUMP_EOF;
		if (n > 0) {
			s->tail = -1; /* spliced bytes are never seen */
			s->bytes += (uint64_t)n;
			s->delivered += (uint64_t)n;
			b->admitted += (uint64_t)n;
			return PUMP_MORE;
		}
	}
	/* sbx's stdout reader is gone (this splice or an earlier write saw
	 * EPIPE): read nothing more, the caller closes the pipe (SIGPIPE, as
	 * in a shell).  A batched turn read on the jail's 1 MiB backlog as
	 * output: `yes | head -1` ended output-limit (124), not 141, 3 times
	 * in 600 under load. */
	if (relay_reader_gone(s))
		return PUMP_MORE;
	do
		n = read(s->src, buf, RELAY_BUF_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return PUMP_MORE;
	if (n <= 0)
		return PUMP_EOF; /* EOF, or an error that ends this stream */
	s->bytes += (uint64_t)n;
	if (b->truncated)
		return PUMP_MORE; /* drain and discard: no SIGPIPE caused by sbx */
	size_t keep = (uint64_t)n < room ? (size_t)n : (size_t)room;
	if (admit(s, b, buf, keep, err) != 0)
		return -1;
	if ((size_t)n > keep) {
		mark_truncated(s, b);
		return PUMP_TRUNCATED;
	}
	return PUMP_MORE;
}
