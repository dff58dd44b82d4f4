/*
 * test_ids.c - the host's account names: they must agree with what the C
 * library's own lookups say, and a name that is no account is none.
 */
#include <criterion/criterion.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ids.h"

Test(ids, root_and_nobody_are_what_the_password_file_says)
{
	const char *names[] = { "root", "nobody" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct passwd *pw = getpwnam(names[i]);
		uid_t uid = 12345;
		char *home;

		if (!pw) {
			cr_log_warn("no %s in the password database: skipped", names[i]);
			continue;
		}
		cr_assert(ids_user_uid(names[i], &uid), "%s not found", names[i]);
		cr_expect_eq(uid, pw->pw_uid, "%s", names[i]);
		home = ids_user_home(pw->pw_uid);
		cr_assert_not_null(home, "no home for uid %u", (unsigned)pw->pw_uid);
		cr_expect_str_eq(home, pw->pw_dir);
		free(home);
	}
}

Test(ids, the_root_group_is_found)
{
	gid_t gid = 12345;

	cr_assert(ids_group_gid("root", &gid));
	cr_expect_eq(gid, 0);
}

/* A name that is no account, or a prefix of one, is not found: the
 * nsjail importer then reads it as a number or gives up with a note. */
Test(ids, unknown_names_and_prefixes_are_not_found)
{
	uid_t uid = 12345;
	gid_t gid = 12345;

	cr_expect_not(ids_user_uid("sbx-no-such-user", &uid));
	cr_expect_not(ids_user_uid("roo", &uid));
	cr_expect_not(ids_user_uid("", &uid));
	cr_expect_not(ids_group_gid("sbx-no-such-group", &gid));
	cr_expect_not(ids_group_gid("roo", &gid));
	cr_expect_eq(uid, 12345, "a miss must not write the result");
	cr_expect_eq(gid, 12345, "a miss must not write the result");
	cr_expect_null(ids_user_home(4000000001u));
}
