/*
 * test_capture.c - capture mode's UTF-8 repair:
 * the record is valid UTF-8 whatever bytes the program wrote, characters
 * split across reads stay whole, and a cut at the output limit never leaves
 * half a character.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "supervise/capture.h"

#define FFFD "\xef\xbf\xbd"

static struct captured conv(const char *in, size_t len, bool cut)
{
	struct captured c = { 0 };

	cr_assert_eq(utf8_sanitize((const unsigned char *)in, len, cut, &c), 0);
	cr_assert_not_null(c.text);
	cr_assert_eq(c.text[c.len], '\0');
	return c;
}

static void expect(const char *in, size_t len, bool cut, const char *want, size_t want_len,
		   bool lossy)
{
	struct captured c = conv(in, len, cut);

	cr_assert_eq(c.len, want_len, "len %zu, want %zu", c.len, want_len);
	cr_assert_eq(memcmp(c.text, want, want_len), 0, "got '%s'", c.text);
	cr_assert_eq(c.lossy, lossy);
	free(c.text);
}

#define EXPECT(in, cut, want, lossy) \
	expect(in, sizeof(in) - 1, cut, want, sizeof(want) - 1, lossy)

Test(capture, valid_multibyte_text_is_kept_as_is)
{
	EXPECT("a\xc3\xa9\xe0\xa4\x80\xe4\xbd\xa0\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", false,
	       "a\xc3\xa9\xe0\xa4\x80\xe4\xbd\xa0\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", false);
}

/* Buffered, then decoded once: a character split across two pipe reads
 * must come out whole. */
Test(capture, multibyte_split_across_chunks_stays_whole)
{
	struct capbuf b = { 0 };
	struct captured c = { 0 };
	static const char smile[] = "\xf0\x9f\x98\x80";

	for (int i = 0; i < 65535; i++)
		cr_assert_eq(capbuf_append(&b, "a", 1), 0);
	cr_assert_eq(capbuf_append(&b, smile, 1), 0);     /* end of one read */
	cr_assert_eq(capbuf_append(&b, smile + 1, 3), 0); /* start of the next */
	cr_assert_eq(utf8_sanitize(b.data, b.len, false, &c), 0);
	cr_assert_not(c.lossy);
	cr_assert_eq(c.len, 65535 + 4);
	cr_assert_eq(memcmp(c.text + 65535, smile, 4), 0);
	free(c.text);
	capbuf_free(&b);
}

Test(capture, byte_ff_becomes_replacement)
{
	EXPECT("x\xffy", false, "x" FFFD "y", true);
}

/* CESU-8 encodes surrogates, which UTF-8 forbids: each ill-formed byte is
 * one U+FFFD (Unicode's maximal-subpart practice). */
Test(capture, cesu_surrogate_becomes_replacement)
{
	EXPECT("\xed\xa0\x80", false, FFFD FFFD FFFD, true);
}

/* Overlong "/" (C0 AF) was a classic path-check bypass; never pass it on. */
Test(capture, overlong_becomes_replacement)
{
	EXPECT("\xc0\xaf", false, FFFD FFFD, true);
	EXPECT("\xe0\x80\xaf", false, FFFD FFFD FFFD, true);
}

Test(capture, above_u10ffff_becomes_replacement)
{
	EXPECT("\xf4\x90\x80\x80", false, FFFD FFFD FFFD FFFD, true);
}

/* A sequence cut off by the end of the stream is one U+FFFD, not dropped. */
Test(capture, truncated_sequence_at_eof_is_one_replacement)
{
	EXPECT("ab\xe4\xbd", false, "ab" FFFD, true);
}

Test(capture, nul_bytes_are_kept_and_counted)
{
	EXPECT("a\0b", false, "a\0b", false);
}

/* At the output limit the cut falls on a code-point boundary: the partial
 * character is dropped, not turned into U+FFFD. */
Test(capture, cut_at_limit_trims_to_code_point_boundary)
{
	EXPECT("ab\xe4\xbd", true, "ab", false);
	EXPECT("ab\xf0\x9f\x98", true, "ab", false);
	EXPECT("ab\xe4\xbd\xa0", true, "ab\xe4\xbd\xa0", false);
}

/* Only a valid prefix is trimmed: invalid bytes before the cut still count. */
Test(capture, cut_at_limit_still_replaces_invalid_bytes)
{
	EXPECT("a\xff", true, "a" FFFD, true);
	EXPECT("a\xbf", true, "a" FFFD, true);
}

Test(capture, empty_input_gives_empty_string)
{
	struct captured c = conv("", 0, false);

	cr_assert_eq(c.len, 0);
	cr_assert_not(c.lossy);
	free(c.text);
}

Test(capture, seq_len_reports_maximal_subpart)
{
	size_t prefix;

	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xe4\xbd\xa0", 3, &prefix), 3);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xe4\xbdx", 3, &prefix), 0);
	cr_assert_eq(prefix, 2);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xed\xa0", 2, &prefix), 0);
	cr_assert_eq(prefix, 1);
}
