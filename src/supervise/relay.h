/*
 * relay.h - move the program's stdout/stderr out of the jail, within the
 * output limit (private to supervise/).
 *
 * Both streams share one budget of raw bytes.  Passthrough relays to sbx's
 * own stdout/stderr (splice() when the destination allows it), capture mode
 * keeps bytes for the record, --stdout/--stderr FILE get byte-exact copies.
 * The first byte past the budget truncates: exactly one marker is written,
 * last, to the stream that crossed it; everything after is read and dropped
 * so the program never blocks or dies of a SIGPIPE that sbx caused.
 *
 * No write ever blocks the event loop: a destination that is full keeps the
 * unwritten tail in a bounded per-sink buffer (or, on the splice path, in
 * the jail's pipe) and the stream stops reading until the loop sees EPOLLOUT
 * on that sink (relay_sink_waiting / relay_flush).
 */
#ifndef SBX_SUPERVISE_RELAY_H
#define SBX_SUPERVISE_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "supervise/capture.h"

#define RELAY_BUF_SIZE (128 * 1024)
/* the pending tail plus room for the truncation marker behind it */
#define RELAY_PEND_SIZE (RELAY_BUF_SIZE + 128)

/* How bytes reach one sink without ever blocking (see relay.c). */
enum sink_kind {
	SINK_FILE,     /* epoll refuses it (regular file, /dev/null): never blocks */
	SINK_NONBLOCK, /* an O_NONBLOCK description (ours, or the caller's) */
	SINK_SOCKET,   /* send(MSG_DONTWAIT) */
	SINK_NOWAIT,   /* a pipe: pwritev2(RWF_NOWAIT) */
	SINK_TIMED,    /* poll(POLLOUT, 0), then a write cut short by a 20 ms timer */
};

struct out_sink {
	int fd;             /* sbx's fd 1/2 or the --stdout/--stderr FILE; -1 = none */
	int wfd;            /* fd actually written: fd, or own_fd */
	int own_fd;         /* our O_NONBLOCK reopen of fd (a tty); -1 = none */
	enum sink_kind kind;
	bool dead;          /* write error (EPIPE...): keep counting, stop writing */
	int error;          /* errno of that error */
	bool waiting;       /* full: wait for EPOLLOUT on wfd before writing again */
	bool watched;       /* wfd is in the loop's epoll set (loop.c) */
	unsigned char *pend; /* RELAY_PEND_SIZE; pending bytes are pend[off..len) */
	size_t off, len;
};

struct out_stream {
	const char *name;   /* "stdout" / "stderr" */
	int src;            /* read end of the jail's pipe; -1 after EOF */
	bool src_watched;   /* src is in the loop's epoll set (loop.c) */
	struct out_sink dest; /* passthrough destination (sbx's 1 or 2) */
	struct out_sink copy; /* --stdout/--stderr FILE */
	bool splice_ok;     /* splice() to dest works (tried first) */
	int copy_errno;     /* first write error on the copy (for the record) */
	bool capture;       /* keep admitted bytes in cap */
	struct capbuf cap;
	uint64_t bytes;     /* raw bytes the program wrote to this stream */
	uint64_t delivered; /* bytes the sinks took (reader progress) */
	uint64_t delivered_seen; /* delivered at the last relay_progressed() */
	bool crossed;       /* this stream carried the first byte past the limit */
	bool reader_gone;   /* dest broke (EPIPE), nothing else wanted the bytes:
			     * src was closed, the program gets SIGPIPE */
	int tail;           /* the last byte handed to dest; -1 = not known (a
			     * splice, dropped bytes); '\n' before any */
	int64_t moved_ns;   /* when a pump last moved bytes (loop.c) */
	int64_t batch_until; /* a fast stream, read at this time, not watched
			      * until then; 0 = read as soon as bytes come */
};

struct out_budget {
	uint64_t limit;     /* LIMIT_UNLIMITED = none */
	uint64_t admitted;  /* bytes kept, both streams together */
	bool truncated;
};

enum pump_result { PUMP_MORE, PUMP_EOF, PUMP_TRUNCATED };

/* Set S up; the caller then calls relay_set_dest/relay_set_copy, sets capture. */
void out_stream_init(struct out_stream *s, const char *name, int src);
void out_stream_close(struct out_stream *s);
/* Close S's source (the jail's pipe) alone, out of the epoll set EPFD. */
void out_stream_close_src(struct out_stream *s, int epfd);

/* Attach FD (not owned: sbx's 1/2) or a FILE copy (owned, closed by
 * out_stream_close) as a sink.  -1 with ERR filled when memory runs out. */
int relay_set_dest(struct out_stream *s, int fd, struct sbx_err *err);
int relay_set_copy(struct out_stream *s, int fd, struct sbx_err *err);

/*
 * Move what is readable on S->src (one read or splice; call again while the
 * fd stays readable).  PUMP_TRUNCATED exactly once: when this call crossed
 * the limit.  -1 with ERR filled only when capture memory runs out.
 */
int relay_pump(struct out_stream *s, struct out_budget *b, unsigned char *buf,
	       struct sbx_err *err);

/* Whether the loop should read S->src now (false while a sink is full). */
bool relay_reading(const struct out_stream *s, const struct out_budget *b);
/* Whether K waits for EPOLLOUT on K->wfd. */
bool relay_sink_waiting(const struct out_sink *k);
/* K reported EPOLLOUT (or an error): write what is pending. */
void relay_flush(struct out_stream *s, struct out_sink *k);
/* Whether S still holds bytes it has not delivered (pending tails). */
bool relay_holding(const struct out_stream *s);
/* Whether a sink took bytes since the last call (a slow reader, not a stalled one). */
bool relay_progressed(struct out_stream *s);
/*
 * Whether the reader of S's destination went away (EPIPE) and no other
 * sink (capture, --stdout/--stderr FILE) wants the bytes: then the loop
 * closes S->src, and the program's next write ends it with SIGPIPE, as a
 * shell pipeline (`sbx run -- yes | head -1`) would, instead of running on
 * into the output limit with every byte dropped.
 */
bool relay_reader_gone(const struct out_stream *s);

/* The close deadline passed: drop what could not be delivered. */
void relay_abandon(struct out_stream *s);

/* The marker text for limit L, e.g. "\n[sbx: output truncated at 4096 bytes]\n". */
int relay_marker(uint64_t limit, char *buf, size_t size);

/* Bigger pipe buffers for throughput; failure is harmless. */
void relay_grow_pipe(int fd);
/* Whether epoll can wait for EVENTS on FD: it refuses what can never block
 * (regular files, /dev/null and some other devices).  Relays of both
 * directions (relay.c's sinks, stdin.c's source) ask it once per fd. */
bool relay_pollable(int fd, uint32_t events);

#endif
