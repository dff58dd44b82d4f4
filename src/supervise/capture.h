/*
 * capture.h - capture mode (--json): bounded byte buffers and their
 * conversion to valid UTF-8 for the result record (private to supervise/).
 *
 * Bytes are buffered raw and decoded once at the end, never per read(), so a
 * multibyte character split across two reads stays whole.  Invalid input
 * becomes U+FFFD (Unicode "maximal subpart" practice) and sets lossy.
 */
#ifndef SBX_SUPERVISE_CAPTURE_H
#define SBX_SUPERVISE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "record/result.h"
#include "base/utf8.h"

struct capbuf {
	unsigned char *data;
	size_t len, cap;
};

/* Append N bytes; grows by doubling. -1 with errno ENOMEM. */
int capbuf_append(struct capbuf *b, const void *p, size_t n);
void capbuf_free(struct capbuf *b);

/*
 * Decode IN[0..LEN) into OUT (NUL-terminated valid UTF-8; embedded NULs are
 * kept and counted in out->len).  CUT: the bytes were truncated at a limit,
 * so an incomplete sequence at the very end is dropped (the cut fell inside a
 * character) instead of becoming U+FFFD.  -1 with errno ENOMEM.
 */
int utf8_sanitize(const unsigned char *in, size_t len, bool cut, struct captured *out);

#endif
