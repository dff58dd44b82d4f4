/*
 * relay.c - the output relay: jail pipes -> sbx's stdout/stderr, the capture
 * buffers and the --stdout/--stderr copies, all within one byte budget.
 *
 * Memory stays constant whatever the program prints (requirements item 40):
 * passthrough uses splice() (no copy through user space) or one fixed
 * buffer; capture keeps at most the budget.  Bytes are counted raw.
 */
#include "supervise/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"

#define SPLICE_CHUNK (1024 * 1024)

void out_stream_init(struct out_stream *s, const char *name, int src)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->src = src;
	s->dest = -1;
	s->copy_fd = -1;
	s->splice_ok = true;
}

void out_stream_close(struct out_stream *s)
{
	if (s->src >= 0)
		close(s->src);
	s->src = -1;
	capbuf_free(&s->cap);
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

/* Write everything; waits out EAGAIN on a non-blocking destination. */
static int write_full(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			(void)poll(&pfd, 1, -1);
			continue;
		}
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Passthrough: a broken destination (reader gone) stops writing, never the run. */
static void to_dest(struct out_stream *s, const void *p, size_t n)
{
	if (s->dest < 0 || s->dest_dead || n == 0)
		return;
	if (write_full(s->dest, p, n) != 0)
		s->dest_dead = true;
}

static void to_copy(struct out_stream *s, const void *p, size_t n)
{
	if (s->copy_fd < 0 || s->copy_errno || n == 0)
		return;
	if (write_full(s->copy_fd, p, n) != 0)
		s->copy_errno = errno ? errno : EIO;
}

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
	/* capture mode appends the marker after UTF-8 repair (supervise.c) */
	to_dest(s, marker, (size_t)n);
}

/* Fast path: splice straight to dest.  Returns bytes, 0 EOF, -1 fall back. */
static ssize_t pump_splice(struct out_stream *s, uint64_t room)
{
	size_t want = room < SPLICE_CHUNK ? (size_t)room : SPLICE_CHUNK;
	ssize_t n;

	for (;;) {
		n = splice(s->src, NULL, s->dest, NULL, want, SPLICE_F_MOVE);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			/* a non-blocking destination is full: wait for room */
			struct pollfd pfd = { .fd = s->dest, .events = POLLOUT };
			struct pollfd in = { .fd = s->src, .events = POLLIN };
			if (poll(&in, 1, 0) == 0)
				return -2; /* nothing to read after all */
			(void)poll(&pfd, 1, -1);
			continue;
		}
		if (errno == EPIPE) {
			s->dest_dead = true;
			return -1;
		}
		s->splice_ok = false; /* EINVAL: this destination takes no splice */
		return -1;
	}
}

static bool can_splice(const struct out_stream *s, const struct out_budget *b)
{
	return s->splice_ok && s->dest >= 0 && !s->dest_dead && s->copy_fd < 0 &&
	       !s->capture && !b->truncated && remaining(b) > 0;
}

static int admit(struct out_stream *s, struct out_budget *b, const unsigned char *buf,
		 size_t n, struct sbx_err *err)
{
	if (s->capture && capbuf_append(&s->cap, buf, n) != 0)
		return err_set(err, ERR_INTERNAL, errno,
			       "capturing %s: out of memory after %zu bytes; "
			       "lower the output limit (--output)", s->name, s->cap.len);
	to_dest(s, buf, n);
	to_copy(s, buf, n);
	b->admitted += n;
	return 0;
}

int relay_pump(struct out_stream *s, struct out_budget *b, unsigned char *buf,
	       struct sbx_err *err)
{
	uint64_t room = remaining(b);
	ssize_t n;

	if (can_splice(s, b)) {
		n = pump_splice(s, room);
		if (n == -2)
			return PUMP_MORE;
		if (n == 0)
			return PUMP_EOF;
		if (n > 0) {
			s->bytes += (uint64_t)n;
			b->admitted += (uint64_t)n;
			return PUMP_MORE;
		}
	}
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
