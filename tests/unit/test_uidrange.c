/*
 * test_uidrange.c - the uid-range file and the host id databases a root
 * caller's jail uid is checked against (jail/uidrange.c, jail/uiddb.c):
 * hostile and odd lines of the account files, and nsswitch.conf.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail/uiddb.h"
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
	struct uid_range r = { 7, 7, false };
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

/* ---- the account files, streamed ---------------------------------------- */

#define LO 2000000000u
#define HI (2000000000ull + 65536)

/* TEXT (LEN bytes) read as KIND, fed in chunks of STEP bytes. */
static void scan_in(struct id_set *s, enum uid_db kind, const char *text, size_t len,
		    size_t step)
{
	struct uid_scan sc;

	id_set_init(s, LO, HI);
	uid_scan_init(&sc, kind, s);
	for (size_t at = 0; at < len; at += step)
		uid_scan_feed(&sc, text + at, len - at < step ? len - at : step);
	uid_scan_end(&sc);
}

static bool is_free(struct id_set *s, uint64_t id)
{
	return id_set_next_free(s, id) == id;
}

/* Whether ID is taken after reading the passwd TEXT (NUL-terminated). */
static bool passwd_takes(const char *text, uint64_t id)
{
	struct id_set s;
	bool taken;

	scan_in(&s, UIDDB_PASSWD, text, strlen(text), 1 << 16);
	taken = !is_free(&s, id);
	id_set_free(&s);
	return taken;
}

Test(uidrange, ids_of_accounts_subids_nobody_and_systemd_are_taken)
{
	const char *passwd = "root:x:0:0::/root:/bin/sh\nsvc:x:2000000001:2000000099::/:/bin/false\n";
	const char *group = "g:x:2000000003:\n";
	const char *subuid = "bob:2000000010:5\n";
	struct id_set s;
	struct uid_scan sc;

	id_set_init(&s, LO, HI);
	uid_scan_init(&sc, UIDDB_PASSWD, &s);
	uid_scan_feed(&sc, passwd, strlen(passwd));
	uid_scan_init(&sc, UIDDB_GROUP, &s);
	uid_scan_feed(&sc, group, strlen(group));
	uid_scan_init(&sc, UIDDB_SUBUID, &s);
	uid_scan_feed(&sc, subuid, strlen(subuid));
	cr_assert(is_free(&s, 2000000000u));
	cr_assert_eq(id_set_next_free(&s, 2000000001u), 2000000002u);
	cr_assert_eq(id_set_next_free(&s, 2000000003u), 2000000004u);
	/* a subordinate range is skipped whole */
	cr_assert_eq(id_set_next_free(&s, 2000000012u), 2000000015u);
	cr_assert(is_free(&s, 2000000015u));
	/* svc's gid field is no uid */
	cr_assert(is_free(&s, 2000000099u));
	id_set_free(&s);
}

/* Attack: an account whose line is longer than any buffer (a 2 MiB gecos
 * field, a 2 MiB name before its uid), or which comes after such a line,
 * was read as no account. */
Test(uidrange, lines_of_any_length_are_read_to_their_ids)
{
	size_t big = 2u << 20;
	char *text = malloc(3 * big + 256), *p = text;

	memset(p, 'n', big);
	p += big;
	p += sprintf(p, ":x:2000000005:100:");
	memset(p, 'g', big);
	p += big;
	p += sprintf(p, ":/:/bin/sh\nnext:x:2000000006:100::/:/bin/sh\n");
	*p = '\0';
	cr_assert(passwd_takes(text, 2000000005u), "the id after a 2 MiB name");
	cr_assert(passwd_takes(text, 2000000006u), "the line after a 2 MiB field");
	cr_assert_not(passwd_takes(text, 2000000007u));
	free(text);
}

/* Lines with too few fields name nothing, and take nothing from the next. */
Test(uidrange, lines_with_missing_fields_name_no_other_id)
{
	const char *text = "bob\nbob:x\nbob:x:\n:::\n\ncut:x:2000000011\nok:x:2000000012:1::/:\n";

	cr_assert(passwd_takes(text, 2000000011u), "a line that ends after its uid");
	cr_assert(passwd_takes(text, 2000000012u));
	cr_assert_not(passwd_takes(text, 2000000000u));
	cr_assert_not(passwd_takes(text, 2000000013u));
}

/* Attack: a uid field other code reads as one of sbx's ids although it
 * is no plain decimal: each reading counts. */
Test(uidrange, every_reading_of_an_odd_uid_field_is_taken)
{
	static const struct {
		const char *line;
		uint64_t id;
		const char *why;
	} cases[] = {
		{ "a:x:+2000000001:1::/:\n", 2000000001u, "a sign, as strtoul reads it" },
		{ "a:x: \t2000000002:1::/:\n", 2000000002u, "leading blanks, as strtoul skips" },
		{ "a:x:2000000003abc:1::/:\n", 2000000003u, "trailing junk" },
		{ "a:x:0x77359404:1::/:\n", 2000000004u, "hex, as C's base 0 reads it" },
		{ "a:x:016715312005:1::/:\n", 2000000005u, "octal, as C's base 0 reads it" },
		{ "a:x:6294967302:1::/:\n", 2000000006u, "2^32 + id, wrapped by a parser "
							  "without overflow check" },
		{ "a:x:-2294967289:1::/:\n", 2000000007u, "negative, wrapped at 2^32" },
		{ "a:x:0002000000008:1::/:\n", 2000000008u, "leading zeros" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect(passwd_takes(cases[i].line, cases[i].id), "%s: %s", cases[i].why,
			  cases[i].line);
}

/* Numbers that are no id of the range take none of it. */
Test(uidrange, non_numeric_negative_and_overflowing_uids_take_nothing_in_range)
{
	const char *text = "a:x:abc:1::/:\nb:x:-1:1::/:\nc:x:4294967296:1::/:\n"
			   "d:x:0x10:1::/:\ne:x:99999999999999999999999:1::/:\n";
	struct id_set s;

	scan_in(&s, UIDDB_PASSWD, text, strlen(text), 7);
	cr_assert_eq(id_set_next_free(&s, LO), LO);
	cr_assert_eq(s.n, 0, "%zu spans taken in the range", s.n);
	id_set_free(&s);
}

/* An embedded NUL ends a C string, not the line: the uid before it and
 * the fields after it are read. */
Test(uidrange, embedded_nuls_hide_no_uid)
{
	static const char text[] = "a:x:2000000021\0:1::/:\nb\0:x:2000000022:1::/:\n"
				   "c:x:2000000023:1::/\0:\n";
	struct id_set s;

	scan_in(&s, UIDDB_PASSWD, text, sizeof(text) - 1, 3);
	for (uint64_t id = 2000000021u; id <= 2000000023u; id++)
		cr_expect_not(is_free(&s, id), "%llu", (unsigned long long)id);
	id_set_free(&s);
}

Test(uidrange, a_last_line_without_newline_and_crlf_lines_are_read)
{
	cr_assert(passwd_takes("a:x:2000000031:1::/:\r\nb:x:2000000032\r\n", 2000000031u));
	cr_assert(passwd_takes("a:x:2000000031:1::/:\r\nb:x:2000000032\r\n", 2000000032u));
	cr_assert(passwd_takes("a:x:1:1::/:\nlast:x:2000000033:1::/:/bin/sh", 2000000033u));
}

/* NIS compat lines, comments and duplicates: an id any of them names is
 * taken (glibc skips comments; another reader may not). */
Test(uidrange, compat_lines_comments_and_duplicates_are_taken)
{
	const char *text = "+\n+nis:::::\n+bob::2000000041:1::/:\n-eve:x:2000000042:1::/:\n"
			   "#old:x:2000000043:1::/:\n  # indented\ndup:x:2000000044:1::/:\n"
			   "dup2:x:2000000044:1::/:\n";

	for (uint64_t id = 2000000041u; id <= 2000000044u; id++)
		cr_expect(passwd_takes(text, id), "%llu", (unsigned long long)id);
	cr_expect_not(passwd_takes(text, 2000000045u));
}

/* Chunk boundaries anywhere (a read returns what it has) change nothing. */
Test(uidrange, the_same_ids_whatever_the_chunk_size)
{
	const char *text = "root:x:0:0::/:\n+a::2000000051:\nb:x:0x77359434:1\nc:x:2000000053\r\n"
			   "d:x: -2294967242:\ne:x:2000000055";
	struct id_set whole, bytes;

	scan_in(&whole, UIDDB_PASSWD, text, strlen(text), strlen(text));
	scan_in(&bytes, UIDDB_PASSWD, text, strlen(text), 1);
	for (uint64_t id = 2000000050u; id <= 2000000056u; id++)
		cr_expect_eq(is_free(&whole, id), is_free(&bytes, id), "%llu",
			     (unsigned long long)id);
	cr_expect_not(is_free(&whole, 2000000054u), "d's negative reading");
	id_set_free(&whole);
	id_set_free(&bytes);
}

/* shadow's tools read subordinate ids with C's base 0: a hex range is one. */
Test(uidrange, subordinate_ranges_in_any_notation_are_taken)
{
	const char *text = "a:0x77359464:4\nb:2000000110\nc:2000000200:-1\n";
	struct id_set s;

	scan_in(&s, UIDDB_SUBUID, text, strlen(text), 5);
	cr_assert_eq(id_set_next_free(&s, 2000000100u), 2000000104u, "hex first");
	cr_assert_not(is_free(&s, 2000000110u), "a range without a count");
	cr_assert(is_free(&s, 2000000199u));
	cr_assert_eq(id_set_next_free(&s, 2000000200u), HI, "a count of -1 is to the end");
	id_set_free(&s);
}

/* Attack: an account file that cannot be read whole: its unread ids
 * would look free.  A read error and a file past the limit both fail. */
Test(uidrange, a_file_not_read_whole_is_an_error_naming_it)
{
	char path[] = "/tmp/sbx-uiddb-XXXXXX";
	int fd = mkstemp(path);
	struct sbx_err err = { 0 };
	struct id_set s;
	char line[64];

	cr_assert(fd >= 0);
	for (int i = 0; i < 100; i++) {
		int n = snprintf(line, sizeof(line), "u%d:x:%d:1::/:\n", i, 2000000000 + i);
		cr_assert_eq(write(fd, line, (size_t)n), n);
	}
	id_set_init(&s, LO, HI);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(uiddb_scan_fd(fd, "/etc/passwd", UIDDB_PASSWD, 1000, &s, &err), -1);
	cr_assert(strstr(err.msg, "/etc/passwd: more than"), "%s", err.msg);
	cr_assert_eq(err.kind, ERR_SETUP);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(uiddb_scan_fd(fd, "/etc/passwd", UIDDB_PASSWD, 1 << 20, &s, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(id_set_next_free(&s, LO), LO + 100);
	close(fd);
	unlink(path);
	fd = open("/", O_RDONLY | O_DIRECTORY);
	cr_assert_eq(uiddb_scan_fd(fd, "/etc/group", UIDDB_GROUP, 1 << 20, &s, &err), -1);
	cr_assert(strstr(err.msg, "/etc/group: ") && strstr(err.msg, "while reading"), "%s",
		  err.msg);
	close(fd);
	id_set_free(&s);
}

/* ---- nsswitch.conf ------------------------------------------------------ */

static bool beyond(const char *text, bool *subid, char *others)
{
	return uiddb_nss_beyond_files(text, strlen(text), false, subid, others, 256);
}

Test(uidrange, files_only_needs_no_name_service)
{
	char others[256];
	bool subid;

	cr_assert_not(beyond("# c\npasswd:  files\ngroup: files # local\nhosts: dns\n",
			     &subid, others), "%s", others);
	cr_assert_not(subid);
	cr_assert_not(beyond("passwd: files [NOTFOUND=return]\ngroup:\tfiles\n", &subid,
			     others), "%s", others);
}

/* LDAP, sssd, systemd's userdb, NIS compat: sources sbx cannot read. */
Test(uidrange, other_sources_need_the_name_service)
{
	char others[256];
	bool subid;

	cr_assert(beyond("passwd: files systemd\ngroup: files systemd\n", &subid, others));
	cr_assert_str_eq(others, "passwd: systemd, group: systemd");
	cr_assert(beyond("passwd: files\ngroup: [SUCCESS=return] sss files\n", &subid, others));
	cr_assert_str_eq(others, "group: sss");
	cr_assert(beyond("passwd: compat\ngroup: files\n", &subid, others));
	/* no line: glibc's built-in default, which need not be files alone */
	cr_assert(beyond("passwd: files\n", &subid, others));
	cr_assert(strstr(others, "group: (no line"), "%s", others);
	cr_assert(beyond("", &subid, others));
}

/* Debian's default "files systemd" asked getent twice per root run; a
 * systemd that cannot name an id of the range needs no asking, one that
 * can (a range it gives out, a dropped-in record, a service of its own
 * ranges such as machined's containers) still does. */
Test(uidrange, a_systemd_source_that_cannot_name_the_range_needs_no_name_service)
{
	char others[256], *dir = strdup("/tmp/sbx-userdb-XXXXXX"), *svc = NULL, *f = NULL;
	const char *none[] = { "/nonexistent/userdb", NULL };
	bool subid;

	const char *deb = "passwd: files systemd\ngroup: files systemd\n";
	const char *sss = "passwd: files systemd sss\ngroup: files systemd\n";

	cr_assert_not(uiddb_nss_beyond_files(deb, strlen(deb), true, &subid, others,
					     sizeof(others)));
	cr_assert(uiddb_nss_beyond_files(sss, strlen(sss), true, &subid, others, sizeof(others)));
	cr_assert_str_eq(others, "passwd: sss");
	cr_assert(uiddb_systemd_known(2000000000u, 65536, none, "/nonexistent/run"));
	cr_assert_not(uiddb_systemd_known(61000, 1000, none, "/nonexistent/run"), "homed, dynamic");
	cr_assert_not(uiddb_systemd_known(1879048000u, 65536, none, "/nonexistent/run"),
		      "container users");
	cr_assert_not(uiddb_systemd_known(2147400000u, 65536, none, "/nonexistent/run"),
		      "the foreign range");
	cr_assert_not_null(mkdtemp(dir));
	const char *dirs[] = { dir, NULL };
	cr_assert(uiddb_systemd_known(2000000000u, 65536, dirs, dir), "empty: nothing known");
	cr_assert(asprintf(&svc, "%s/io.systemd.Home", dir) > 0 && mknod(svc, S_IFREG | 0600, 0) == 0);
	cr_assert_not(uiddb_systemd_known(2000000000u, 65536, dirs, "/nonexistent/run"),
		      "a dropped-in record");
	cr_assert(uiddb_systemd_known(2000000000u, 65536, none, dir), "homed's own service");
	cr_assert(asprintf(&f, "%s/io.systemd.Machine", dir) > 0 && mknod(f, S_IFREG | 0600, 0) == 0);
	cr_assert_not(uiddb_systemd_known(2000000000u, 65536, none, dir), "machined's service");
	unlink(svc), unlink(f), rmdir(dir);
	free(svc), free(f), free(dir);
}

Test(uidrange, a_subid_source_is_noticed)
{
	char others[256];
	bool subid;

	(void)beyond("passwd: files\ngroup: files\nsubid: sss\n", &subid, others);
	cr_assert(subid);
}

Test(uidrange, reserved_yes_and_no_parse_and_a_typo_is_refused)
{
	struct uid_range r = { 0 };
	struct sbx_err err = { 0 };

	cr_assert_eq(parse("reserved yes\n", &r, &err), 0, "%s", err.msg);
	cr_assert(r.reserved);
	cr_assert_eq(parse("reserved no # not yet\n", &r, &err), 0, "%s", err.msg);
	cr_assert_not(r.reserved);
	cr_assert_eq(parse("first 10\n", &r, &err), 0, "%s", err.msg);
	cr_assert_not(r.reserved, "the default is to ask the name service");
	cr_assert_eq(parse("reserved yes please\n", &r, &err), -1);
	cr_assert(strstr(err.msg, ":1:10: 'reserved' wants 'yes' or 'no'"), "%s", err.msg);
	cr_assert_eq(parse("reserved 1\n", &r, &err), -1);
}
