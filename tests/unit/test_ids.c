/*
 * test_ids.c - the host's account names, read from /etc/passwd and
 * /etc/group without NSS (sbx is a static binary): they must
 * agree with what the C library's own lookups say for the files database.
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

/* ---- hostile lines ------------------------------------------------------ */

/* TEXT (LEN bytes) as a password file; the malloc'd path. */
static char *passwd_file(const char *text, size_t len)
{
	char *path = strdup("/tmp/sbx-ids-XXXXXX");
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Whether NAME is found in TEXT, and its uid. */
static bool uid_of(const char *text, size_t len, const char *name, uid_t *uid)
{
	char *path = passwd_file(text, len);
	bool found = ids_user_uid_in(path, name, uid);

	unlink(path);
	free(path);
	return found;
}

#define UID_OF(text, name, uid) uid_of(text, strlen(text), name, uid)

/* A long line (a big gecos) delays nothing; one past the 1 MiB line limit
 * ends the scan: not found, never an entry made of the line's rest. */
Test(ids, long_lines_are_skipped_whole_and_past_the_limit_end_the_scan)
{
	size_t big = 64 * 1024, huge = (1u << 20) + 4096;
	char *text = malloc(huge + 256);
	uid_t uid = 1;

	int n = sprintf(text, "long:x:7:7:");
	memset(text + n, 'g', big);
	strcpy(text + n + big, ":/:/bin/sh\nafter:x:8:8::/:/bin/sh\n");
	cr_assert(UID_OF(text, "after", &uid));
	cr_assert_eq(uid, 8);
	cr_assert(UID_OF(text, "long", &uid));
	cr_assert_eq(uid, 7);
	/* the rest of the huge line looks like an entry of its own */
	n = sprintf(text, "huge:x:9:9:");
	memset(text + n, 'g', huge);
	strcpy(text + n + huge, "\nafter:x:8:8::/:/bin/sh\n");
	memcpy(text + n + (1u << 20) - 64, "\0rest:x:0:0::/root:/bin/sh", 26);
	cr_assert_not(UID_OF(text, "rest", &uid), "the line's rest read as an entry");
	free(text);
}

/* A line with too few fields, or a uid that is not a decimal number, is
 * no entry; it hides nothing after it. */
Test(ids, malformed_lines_are_no_entries)
{
	const char *text = "nouid:x\nempty:x::1::/:\nword:x:abc:1::/:\nhex:x:0x10:1::/:\n"
			   "ok:x:5:5::/:/bin/sh\n";
	uid_t uid = 12345;

	cr_expect_not(UID_OF(text, "nouid", &uid));
	cr_expect_not(UID_OF(text, "empty", &uid));
	cr_expect_not(UID_OF(text, "word", &uid));
	cr_expect_not(UID_OF(text, "hex", &uid), "0x10 read as a uid: %u", (unsigned)uid);
	cr_expect_eq(uid, 12345, "a miss wrote the result");
	cr_expect(UID_OF(text, "ok", &uid));
	cr_expect_eq(uid, 5);
}

/* Attack: "-1" or a uid past 2^32 reads as (uid_t)-1, the "no id" of
 * chown and setresuid: a name must never translate to it. */
Test(ids, negative_and_overflowing_uids_are_no_account)
{
	const char *text = "neg:x:-1:1::/:\nbig:x:4294967296:1::/:\nmax:x:4294967295:1::/:\n";
	uid_t uid = 12345;

	cr_expect_not(UID_OF(text, "neg", &uid), "uid %u", (unsigned)uid);
	cr_expect_not(UID_OF(text, "big", &uid), "uid %u", (unsigned)uid);
	cr_expect_not(UID_OF(text, "max", &uid), "uid %u", (unsigned)uid);
	cr_expect_eq(uid, 12345);
}

/* A NUL ends the line's text for the C library: the name before it is
 * not a longer name, and the entry after the line is found. */
Test(ids, embedded_nuls_make_no_other_name)
{
	static const char text[] = "ev\0il:x:0:0::/root:/bin/sh\nnext:x:6:6::/:/bin/sh\n";
	uid_t uid = 12345;

	cr_expect_not(uid_of(text, sizeof(text) - 1, "evil", &uid));
	cr_expect_not(uid_of(text, sizeof(text) - 1, "il", &uid));
	cr_expect(uid_of(text, sizeof(text) - 1, "next", &uid));
	cr_expect_eq(uid, 6);
}

Test(ids, a_last_line_without_newline_and_crlf_lines)
{
	uid_t uid = 0;
	char *path = passwd_file("a:x:3:3::/home/a:/bin/sh\r\nlast:x:4:4::/home/last:/bin/sh", 55);
	char *home = ids_user_home_in(path, 4);

	cr_expect(ids_user_uid_in(path, "last", &uid));
	cr_expect_eq(uid, 4);
	cr_expect_str_eq(home ? home : "(none)", "/home/last");
	free(home);
	/* a CR ends the shell field, never the uid */
	cr_expect(ids_user_uid_in(path, "a", &uid));
	cr_expect_eq(uid, 3);
	unlink(path);
	free(path);
}

/* NIS compat lines ("+", "+name", "-name") are markers, not accounts:
 * they parse with uid 0 and must not make a name root. */
Test(ids, compat_lines_and_comments_are_no_accounts)
{
	const char *text = "+\n+nis:::::/evil:\n-bad:x:0:0::/:\n#c:x:0:0::/root:/bin/sh\n"
			   "nis:x:21:21::/home/nis:/bin/sh\n";
	uid_t uid = 12345;

	cr_expect_not(UID_OF(text, "+", &uid));
	cr_expect_not(UID_OF(text, "+nis", &uid));
	cr_expect_not(UID_OF(text, "-bad", &uid));
	cr_expect_not(UID_OF(text, "#c", &uid));
	cr_expect_not(UID_OF(text, "c", &uid));
	cr_expect(UID_OF(text, "nis", &uid));
	cr_expect_eq(uid, 21, "the compat marker's uid 0 was taken");
}

/* Duplicates: the first entry wins, as for glibc's files lookups. */
Test(ids, the_first_of_duplicate_names_or_uids_wins)
{
	const char *text = "dup:x:31:31::/first:/bin/sh\ndup:x:0:0::/root:/bin/sh\n"
			   "other:x:31:31::/second:/bin/sh\n";
	char *path = passwd_file(text, strlen(text));
	char *home = ids_user_home_in(path, 31);
	uid_t uid = 12345;

	cr_expect(ids_user_uid_in(path, "dup", &uid));
	cr_expect_eq(uid, 31, "a later duplicate made the name root");
	cr_expect_str_eq(home ? home : "(none)", "/first");
	free(home);
	unlink(path);
	free(path);
}

/* The same for groups: -1 is no group. */
Test(ids, a_group_of_gid_minus_one_is_none)
{
	const char *text = "neg:x:-1:\nok:x:40:a,b\n";
	char *path = passwd_file(text, strlen(text));
	gid_t gid = 12345;

	cr_expect_not(ids_group_gid_in(path, "neg", &gid), "gid %u", (unsigned)gid);
	cr_expect(ids_group_gid_in(path, "ok", &gid));
	cr_expect_eq(gid, 40);
	unlink(path);
	free(path);
}
