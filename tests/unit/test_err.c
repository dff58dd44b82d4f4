/*
 * test_err.c - err_print (base/err.h): an error is one line on a terminal
 * whatever the caller's values in it hold.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

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

/* -C $'a\nb' split the error over two lines (review a1). */
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
