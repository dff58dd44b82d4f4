/*
 * test_err.c - err_print (base/err.h): an error is one line on a terminal
 * whatever the caller's values in it hold.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

static char *printed(const char *prefix, const char *msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	err_print(f, prefix, msg);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* -C $'a\nb' split the error over two lines. */
Test(err_print, a_newline_in_a_value_stays_on_the_line)
{
	char *s = printed("sbx: ", "working directory /a\nb: No such file");

	cr_assert_str_eq(s, "sbx: working directory /a\\nb: No such file\n");
	free(s);
}

/* An ESC sequence or a C1 CSI (U+009B) in a value never reaches the terminal. */
Test(err_print, controls_are_shown_not_sent)
{
	char *s = printed("", "'\x1b[2J\x7f\xc2\x9b" "1m\r'");

	cr_assert_str_eq(s, "'\\x1b[2J\\x7f\\x9b1m\\x0d'\n");
	free(s);
}

/* Text, tabs and other UTF-8 pass as they are. */
Test(err_print, text_and_utf8_pass_unchanged)
{
	char *s = printed("sbx: ", "caf\xc3\xa9\tna\xc2\xa0ve \xe2\x82\xac");

	cr_assert_str_eq(s, "sbx: caf\xc3\xa9\tna\xc2\xa0ve \xe2\x82\xac\n");
	free(s);
}

/* A message too long for its buffer was cut mid-word with nothing to say
 * so (a long path in an error, doctor's lines, the record's message). */
Test(text_cut, a_message_too_long_ends_with_the_cut_mark)
{
	struct sbx_err e = { 0 };
	char path[1500];

	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	err_set(&e, ERR_USAGE, 0, "-b %s: no such file", path);
	size_t n = strlen(e.msg);
	cr_assert_eq(n, sizeof(e.msg) - 1);
	cr_assert_str_eq(e.msg + n - 6, " [cut]");

	err_set(&e, ERR_USAGE, 0, "short");
	cr_assert_str_eq(e.msg, "short");
	err_prefix(&e, "-p %s", path);
	cr_assert_str_eq(e.msg + strlen(e.msg) - 6, " [cut]");
}

Test(text_cut, an_append_that_fits_is_whole_and_one_that_does_not_is_marked)
{
	char buf[32] = "status";

	text_append(buf, sizeof(buf), "; %s", "more");
	cr_assert_str_eq(buf, "status; more");
	text_append(buf, sizeof(buf), "; %s", "a note far too long for the rest");
	cr_assert_eq(strlen(buf), sizeof(buf) - 1);
	cr_assert_str_eq(buf + sizeof(buf) - 7, " [cut]");
	/* full: later notes leave the mark in place */
	text_append(buf, sizeof(buf), "; later");
	cr_assert_str_eq(buf + sizeof(buf) - 7, " [cut]");
}

/* The mark goes between characters: never half of a UTF-8 sequence. */
Test(text_cut, the_mark_never_splits_a_utf8_character)
{
	char buf[16] = "";

	text_append(buf, sizeof(buf), "%s", "abcdefgh\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	cr_assert_str_eq(buf, "abcdefgh [cut]");
}
