/*
 * test_cputree.c - the meter's parser of /proc/PID/stat: a program picks
 * its own name (comm, up to 15 bytes, any of them), so the fields must be
 * found after the LAST ')' whatever the name holds.
 */
#include <criterion/criterion.h>

#include "supervise/cputree.h"

/* A real line's shape; comm "evil) R 1 1 1" tries to shift every field. */
#define STAT_TAIL " S 7 7 7 0 -1 4194560 100 0 0 0 250 30 12 3 20 0 1 0 98765 4096000 321 " \
		  "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0"

Test(cputree, parses_the_fields_after_the_last_paren)
{
	struct cpu_proc p;

	cr_assert_eq(cputree_parse_stat("42 (evil) R 1 1 1)" STAT_TAIL, &p), 0);
	cr_assert_eq(p.ppid, 7);
	cr_assert_eq(p.own[0], 250);
	cr_assert_eq(p.own[1], 30);
	cr_assert_eq(p.cc[0], 12);
	cr_assert_eq(p.cc[1], 3);
	cr_assert_eq(p.start, 98765);
	cr_assert_eq(p.rss_pages, 321);
	cr_assert_eq(p.vsize_kib, 4000, "vsize bounds the page tables");
}

Test(cputree, a_name_with_spaces_and_no_fields_is_refused)
{
	struct cpu_proc p;

	cr_assert_neq(cputree_parse_stat("42 (a b c)", &p), 0);
	cr_assert_neq(cputree_parse_stat("no paren at all", &p), 0);
}

Test(cputree, negative_child_times_are_refused)
{
	struct cpu_proc p;

	cr_assert_neq(cputree_parse_stat("42 (x) S 7 7 7 0 -1 4194560 100 0 0 0 250 30 -12 3 20 0 "
					 "1 0 98765 4096000 321",
					 &p),
		      0);
}
