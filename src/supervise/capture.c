/*
 * capture.c - bounded capture buffers and UTF-8 repair for --json.
 *
 * The record must be valid UTF-8 JSON whatever bytes the program wrote
 * (or nothing could parse it): the decoder in utf8.c replaces each maximal
 * ill-formed subpart with one U+FFFD.
 */
#include "supervise/capture.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int capbuf_append(struct capbuf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n) {
			if (cap > SIZE_MAX / 2) {
				errno = ENOMEM;
				return -1;
			}
			cap *= 2;
		}
		unsigned char *d = realloc(b->data, cap);
		if (!d)
			return -1;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void capbuf_free(struct capbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int utf8_sanitize(const unsigned char *in, size_t len, bool cut, struct captured *out)
{
	bool lossy = false;
	size_t n;
	char *text = utf8_repair(in, len, cut, &n, &lossy);

	if (!text)
		return -1;
	free(out->text);
	out->text = text;
	out->len = n;
	out->lossy = lossy;
	return 0;
}
