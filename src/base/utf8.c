/*
 * utf8.c - UTF-8 validation and lossy repair (see utf8.h).
 */
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char replacement[3] = { 0xEF, 0xBF, 0xBD };

/* Allowed range of the second byte for lead byte C (Table 3-7). */
static void second_range(unsigned char c, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xBF;
	if (c == 0xE0)
		*lo = 0xA0; /* overlong 3-byte forms */
	else if (c == 0xED)
		*hi = 0x9F; /* UTF-16 surrogates (CESU-8) */
	else if (c == 0xF0)
		*lo = 0x90; /* overlong 4-byte forms */
	else if (c == 0xF4)
		*hi = 0x8F; /* above U+10FFFF */
}

static size_t lead_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	if (c >= 0xF0 && c <= 0xF4)
		return 4;
	return 0; /* 80-BF continuation, C0/C1 overlong leads, F5-FF */
}

size_t utf8_seq_len(const unsigned char *s, size_t avail, size_t *valid_prefix)
{
	size_t need = lead_len(s[0]), i;
	unsigned char lo, hi;

	*valid_prefix = 1;
	if (need <= 1)
		return need;
	second_range(s[0], &lo, &hi);
	for (i = 1; i < need; i++) {
		if (i >= avail)
			return 0;
		if (s[i] < lo || s[i] > hi)
			return 0;
		*valid_prefix = i + 1;
		lo = 0x80;
		hi = 0xBF;
	}
	return need;
}

/* One pass: count output bytes (OUT NULL) or write them. Returns length. */
static size_t decode(const unsigned char *in, size_t len, bool cut, unsigned char *out,
		     bool *lossy)
{
	size_t i = 0, o = 0;

	while (i < len) {
		size_t prefix, n = utf8_seq_len(in + i, len - i, &prefix);
		if (n > 0) {
			if (out)
				memcpy(out + o, in + i, n);
			o += n;
			i += n;
			continue;
		}
		/* a cut inside the last character: drop it, the marker says why */
		if (cut && i + prefix == len && lead_len(in[i]) > prefix)
			break;
		if (out)
			memcpy(out + o, replacement, sizeof(replacement));
		o += sizeof(replacement);
		i += prefix;
		*lossy = true;
	}
	return o;
}

char *utf8_repair(const unsigned char *in, size_t len, bool cut, size_t *out_len,
		  bool *lossy)
{
	bool changed = false;
	size_t n = decode(in, len, cut, NULL, &changed);
	unsigned char *text = malloc(n + 1);

	if (!text)
		return NULL;
	decode(in, len, cut, text, &changed);
	text[n] = '\0';
	*out_len = n;
	if (changed)
		*lossy = true;
	return (char *)text;
}

bool utf8_is_valid(const unsigned char *in, size_t len)
{
	size_t prefix;

	for (size_t i = 0, n; i < len; i += n)
		if ((n = utf8_seq_len(in + i, len - i, &prefix)) == 0)
			return false;
	return true;
}
