/*
 * test_uidrange.c - the uid-range file and the host id databases a root
 * caller's jail uid is checked against (jail/uidrange.c).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "jail/uidrange.h"

static int parse(const char *text, struct uid_range *r, struct sbx_err *err)
{
	return uidrange_parse(text, strlen(text), "/etc/sbx/uid-range", r, err);
}

Test(uidrange, empty_file_is_the_default_range)
{
	struct uid_range r = { 0 };
	struct sbx_err err = { 0 };

	cr_assert_eq(parse("# nothing\n\n", &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.first, UIDRANGE_DEFAULT_FIRST);
	cr_assert_eq(r.count, UIDRANGE_DEFAULT_COUNT);
}

Test(uidrange, first_and_count_with_comments)
{
	struct uid_range r = { 0 };
	struct sbx_err err = { 0 };

	cr_assert_eq(parse("first 1900000000  # ours\n\tcount 1000\r\n", &r, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(r.first, 1900000000u);
	cr_assert_eq(r.count, 1000u);
}

/* A typo must not silently fall back to the default range. */
Test(uidrange, errors_name_file_line_and_column)
{
	struct uid_range r = { 7, 7 };
	struct sbx_err err = { 0 };

	cr_assert_eq(parse("first 10\nfrist 3\n", &r, &err), -1);
	cr_assert(strstr(err.msg, "/etc/sbx/uid-range:2:1: unknown key 'frist'"), "%s", err.msg);
	cr_assert_eq(parse("count -1\n", &r, &err), -1);
	cr_assert(strstr(err.msg, ":1:7: 'count' wants one number"), "%s", err.msg);
	cr_assert_eq(parse("first 0\n", &r, &err), -1);
	cr_assert_eq(parse("first 1 2\n", &r, &err), -1);
	cr_assert_eq(parse("first 99999999999\n", &r, &err), -1);
	cr_assert_eq(r.first, 7u, "R changed on error");
}

/* ids above 2^31-1 are negative to signed code (and (uid_t)-1 is "none") */
Test(uidrange, a_range_past_the_signed_boundary_is_refused)
{
	struct uid_range r;
	struct sbx_err err = { 0 };

	cr_assert_eq(parse("first 2147483000\ncount 1000\n", &r, &err), -1);
	cr_assert(strstr(err.msg, "ends past 2147483646"), "%s", err.msg);
	cr_assert_eq(parse("first 2147482647\ncount 1000\n", &r, &err), 0, "%s", err.msg);
}

Test(uidrange, ids_of_accounts_subids_nobody_and_systemd_are_taken)
{
	const char *passwd = "root:x:0:0::/root:/bin/sh\nsvc:x:2000000001:5::/:/bin/false\n";
	const char *group = "g:x:2000000003:\n";
	const char *subuid = "bob:2000000010:5\n";
	const char *db[4] = { passwd, group, subuid, "" };
	size_t len[4] = { strlen(passwd), strlen(group), strlen(subuid), 0 };

	cr_assert_eq(uidrange_taken(db, len, 2000000000u), 0);
	cr_assert_eq(uidrange_taken(db, len, 2000000001u), 2000000002u);
	cr_assert_eq(uidrange_taken(db, len, 2000000003u), 2000000004u);
	/* a subordinate range is skipped whole */
	cr_assert_eq(uidrange_taken(db, len, 2000000012u), 2000000015u);
	cr_assert_eq(uidrange_taken(db, len, 2000000015u), 0);
	cr_assert_eq(uidrange_taken(db, len, 65534u), 65535u);
	cr_assert_eq(uidrange_taken(db, len, 61184u), 65520u);
	/* gid 5 of svc is a group field, not a uid */
	cr_assert_eq(uidrange_taken(db, len, 5u), 0);
}
