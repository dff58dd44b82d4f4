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
 */
#ifndef SBX_SUPERVISE_RELAY_H
#define SBX_SUPERVISE_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "supervise/capture.h"

#define RELAY_BUF_SIZE (128 * 1024)

struct out_stream {
	const char *name;   /* "stdout" / "stderr" */
	int src;            /* read end of the jail's pipe; -1 after EOF */
	int dest;           /* passthrough destination (1 or 2); -1 = none */
	bool dest_dead;     /* EPIPE etc. on dest: keep counting, stop writing */
	bool splice_ok;     /* splice() to dest works (tried first) */
	int copy_fd;        /* --stdout/--stderr FILE; -1 = none */
	int copy_errno;     /* first write error on copy_fd */
	bool capture;       /* keep admitted bytes in cap */
	struct capbuf cap;
	uint64_t bytes;     /* raw bytes the program wrote to this stream */
	bool crossed;       /* this stream carried the first byte past the limit */
};

struct out_budget {
	uint64_t limit;     /* LIMIT_UNLIMITED = none */
	uint64_t admitted;  /* bytes kept, both streams together */
	bool truncated;
};

enum pump_result { PUMP_MORE, PUMP_EOF, PUMP_TRUNCATED };

/* Set S up; the caller then fills dest/copy_fd/capture. */
void out_stream_init(struct out_stream *s, const char *name, int src);
void out_stream_close(struct out_stream *s);

/*
 * Move what is readable on S->src (one read or splice; call again while the
 * fd stays readable).  PUMP_TRUNCATED exactly once: when this call crossed
 * the limit.  -1 with ERR filled only when capture memory runs out.
 */
int relay_pump(struct out_stream *s, struct out_budget *b, unsigned char *buf,
	       struct sbx_err *err);

/* The marker text for limit L, e.g. "\n[sbx: output truncated at 4096 bytes]\n". */
int relay_marker(uint64_t limit, char *buf, size_t size);

/* Bigger pipe buffers for throughput; failure is harmless. */
void relay_grow_pipe(int fd);

#endif
