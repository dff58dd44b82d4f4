/*
 * test_rootuid_db.c - run by root, the jail's host uid is nobody's account,
 * whatever the host's account databases look like: a password file of any
 * size, accounts only the system's name service knows (LDAP, sssd), files
 * that cannot be read.
 *
 * Each test runs sbx in a private mount namespace over an /etc of its own:
 * an overlay whose upper layer holds the test's passwd, nsswitch.conf or
 * uid-range, and, where the test says, a stand-in for getent(1) that logs
 * every call.  The host's /etc is never touched.  Root only (an unprivileged
 * caller's jail is the caller's own uid): each SKIPs with the reason.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define UNSHARE "/usr/bin/unshare"

/* The first ids of sbx's default range: where a jail's uid is chosen. */
#define RANGE_FIRST 2000000000ul
/* More ids than concurrent root runs on one machine hold at once: the
 * first id sbx finds unlocked lies among them. */
#define CLAIMED 64ul

#define REQUIRE_ROOT()                                                        \
	do {                                                                  \
		REQUIRE_USERNS();                                             \
		if (geteuid() != 0)                                           \
			cr_skip_test("SKIP: needs root (an unprivileged "     \
				     "caller's jail is the caller's own uid)"); \
		if (access(UNSHARE, X_OK) != 0)                               \
			cr_skip_test("SKIP: needs %s for a private /etc",     \
				     UNSHARE);                                \
	} while (0)

/* A private /etc: DIR/up is the overlay's upper layer. */
struct fake_etc {
	char *dir, *up, *log, *getent;
};

static void fake_etc_init(struct fake_etc *e)
{
	e->dir = make_temp_dir();
	e->up = xasprintf("%s/up", e->dir);
	e->log = xasprintf("%s/getent.log", e->dir);
	e->getent = NULL;
	cr_assert_eq(mkdir(e->up, 0755), 0);
	cr_assert_eq(chmod(e->up, 0755), 0); /* the merged /etc takes its mode */
	char *work = xasprintf("%s/work", e->dir);
	cr_assert_eq(mkdir(work, 0700), 0);
	free(work);
}

static void fake_etc_free(struct fake_etc *e)
{
	rm_tree(e->dir);
	free(e->dir);
	free(e->up);
	free(e->log);
	free(e->getent);
}

/* /etc/NAME in the private /etc is TEXT. */
static void fake_etc_put(struct fake_etc *e, const char *name, const char *text)
{
	char *path = put_test_file(e->up, name, text);

	cr_assert_eq(chmod(path, 0644), 0);
	free(path);
}

/* /usr/bin/getent is a script that appends its arguments to E->log and
 * then runs BODY ($1 the database, $2 the key). */
static void fake_getent(struct fake_etc *e, const char *body)
{
	char *text = xasprintf("#!/bin/sh\necho \"$*\" >> '%s'\n%s\n", e->log, body);

	e->getent = put_test_file(e->dir, "getent", text);
	cr_assert_eq(chmod(e->getent, 0755), 0);
	free(text);
}

/* The nsswitch.conf of a host whose accounts all live in files. */
static const char files_only[] = "passwd: files\ngroup: files\nshadow: files\n";

/* `sbx run -- sh -c 'echo the host uid'` over E's /etc. */
static void run_over(struct sbx_result *r, struct fake_etc *e)
{
	char *mounts = xasprintf("mount -t overlay overlay -o lowerdir=/etc,upperdir=%s,"
				 "workdir=%s/work /etc%s%s%s && exec \"$0\" \"$@\"",
				 e->up, e->dir, e->getent ? " && mount --bind '" : "",
				 e->getent ? e->getent : "",
				 e->getent ? "' /usr/bin/getent" : "");
	const char *prefix[] = { UNSHARE, "-m", "/bin/sh", "-c", mounts, NULL };
	struct sbx_opts o = { .prefix = prefix, .deadline_s = 120 };

	sbx_run(r, &o, SBX_ARGV("run", "--", "/bin/sh", "-c",
				"read a b c < /proc/self/uid_map; echo $b"));
	free(mounts);
}

/* The jail's host uid from the record (the uid_map line agrees). */
static unsigned long jail_host_uid(struct sbx_result *r)
{
	ASSERT_STATUS(r, "ok");
	cJSON *hu = cJSON_GetObjectItem(cJSON_GetObjectItem(r->record, "isolation"), "host_uid");
	cr_assert(cJSON_IsNumber(hu), "isolation: no host_uid");
	cr_assert_eq((unsigned long)hu->valuedouble, strtoul(r->out, NULL, 10), "out: %s",
		     r->out);
	return (unsigned long)hu->valuedouble;
}

/* Lines of the getent log: how many times sbx ran getent. */
static int getent_calls(const struct fake_etc *e)
{
	FILE *f = fopen(e->log, "r");
	int n = 0, c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * Attack: a host with many accounts (1.4 MB of /etc/passwd), some of them
 * in sbx's range after the first MiB.  A reader that stops at 1 MiB sees
 * those ids as free and gives the jail an account's uid: the account's
 * processes can then signal and trace the jail, and the jail owns the
 * account's files.
 */
Test(rootuid_db, an_account_past_the_first_mebibyte_of_passwd_keeps_its_uid)
{
	struct fake_etc e;
	struct sbx_result r;
	size_t cap = 1600 * 1024, n = 0;
	char *passwd = malloc(cap);
	unsigned long i;

	REQUIRE_ROOT();
	fake_etc_init(&e);
	n += (size_t)snprintf(passwd + n, cap - n, "root:x:0:0:root:/root:/bin/sh\n");
	for (i = 0; n < 1024 * 1024 + 100; i++)
		n += (size_t)snprintf(passwd + n, cap - n, "filler%06lu:x:%lu:%lu::/nonexistent:"
				      "/usr/sbin/nologin\n", i, 100000 + i, 100000 + i);
	for (i = 0; i < CLAIMED; i++)
		n += (size_t)snprintf(passwd + n, cap - n, "late%02lu:x:%lu:100::/home/late:"
				      "/bin/sh\n", i, RANGE_FIRST + i);
	for (i = 0; n < 1400 * 1024; i++)
		n += (size_t)snprintf(passwd + n, cap - n, "tail%06lu:x:%lu:%lu::/nonexistent:"
				      "/usr/sbin/nologin\n", i, 300000 + i, 300000 + i);
	fake_etc_put(&e, "passwd", passwd);
	fake_etc_put(&e, "nsswitch.conf", files_only);
	run_over(&r, &e);
	unsigned long uid = jail_host_uid(&r);
	cr_assert(uid < RANGE_FIRST || uid >= RANGE_FIRST + CLAIMED,
		  "the jail is host uid %lu, account late%02lu's (listed after the first MiB "
		  "of /etc/passwd)", uid, uid - RANGE_FIRST);
	sbx_result_free(&r);
	fake_etc_free(&e);
	free(passwd);
}

/*
 * Attack: accounts from LDAP or sssd are not in /etc/passwd, and a static
 * sbx cannot load the name service modules that know them.  An id the
 * system's database names must be skipped all the same.
 */
Test(rootuid_db, an_account_only_the_name_service_knows_keeps_its_uid)
{
	struct fake_etc e;
	struct sbx_result r;
	char *body = xasprintf("[ \"$1\" = passwd ] && [ \"$2\" -ge %lu ] && [ \"$2\" -lt %lu ] "
			       "&& { echo \"ldap$2:*:$2:100::/home/ldap:/bin/sh\"; exit 0; }\n"
			       "exit 2", RANGE_FIRST, RANGE_FIRST + CLAIMED);

	REQUIRE_ROOT();
	fake_etc_init(&e);
	fake_etc_put(&e, "nsswitch.conf", "passwd: files sss\ngroup: files sss\n");
	fake_getent(&e, body);
	run_over(&r, &e);
	unsigned long uid = jail_host_uid(&r);
	cr_assert(uid < RANGE_FIRST || uid >= RANGE_FIRST + CLAIMED,
		  "the jail is host uid %lu, which the name service gives to ldap%lu", uid, uid);
	cr_assert_geq(getent_calls(&e), 1, "sbx never asked getent");
	sbx_result_free(&r);
	fake_etc_free(&e);
	free(body);
}

/* A group of the name service with the jail's id is an account too: the
 * jail's gid is the same number, and the group's files would be its. */
Test(rootuid_db, a_group_only_the_name_service_knows_keeps_its_gid)
{
	struct fake_etc e;
	struct sbx_result r;
	char *body = xasprintf("[ \"$1\" = group ] && [ \"$2\" -ge %lu ] && [ \"$2\" -lt %lu ] "
			       "&& { echo \"ldapg$2:*:$2:\"; exit 0; }\nexit 2",
			       RANGE_FIRST, RANGE_FIRST + CLAIMED);

	REQUIRE_ROOT();
	fake_etc_init(&e);
	fake_etc_put(&e, "nsswitch.conf", "passwd: files ldap\ngroup: files ldap\n");
	fake_getent(&e, body);
	run_over(&r, &e);
	unsigned long uid = jail_host_uid(&r);
	cr_assert(uid < RANGE_FIRST || uid >= RANGE_FIRST + CLAIMED,
		  "the jail is host gid %lu, the name service's group ldapg%lu", uid, uid);
	sbx_result_free(&r);
	fake_etc_free(&e);
	free(body);
}

/* Attack: the directory server is down or getent breaks; an id it could
 * not be asked about may be an account, so nothing runs. */
Test(rootuid_db, a_name_service_that_cannot_answer_stops_the_run)
{
	struct fake_etc e;
	struct sbx_result r;

	REQUIRE_ROOT();
	fake_etc_init(&e);
	fake_etc_put(&e, "nsswitch.conf", "passwd: files sss\ngroup: files sss\n");
	fake_getent(&e, "kill -9 $$");
	run_over(&r, &e);
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "/etc/nsswitch.conf") && strstr(r.err, "getent"),
		  "the message names neither the source nor the helper: %s", r.err);
	cr_assert(strstr(r.err, "reserved yes"), "the message gives no way out: %s", r.err);
	sbx_result_free(&r);
	fake_etc_free(&e);
}

/* A host whose accounts are all in files costs no helper process. */
Test(rootuid_db, a_files_only_host_runs_no_helper)
{
	struct fake_etc e;
	struct sbx_result r;

	REQUIRE_ROOT();
	fake_etc_init(&e);
	fake_etc_put(&e, "nsswitch.conf", files_only);
	fake_getent(&e, "exit 2");
	run_over(&r, &e);
	(void)jail_host_uid(&r);
	cr_assert_eq(getent_calls(&e), 0, "getent ran on a files-only host");
	sbx_result_free(&r);
	fake_etc_free(&e);
}

/* A range the admin reserved in every account source needs no helper:
 * the local files are still read. */
Test(rootuid_db, a_reserved_range_asks_no_name_service)
{
	struct fake_etc e;
	struct sbx_result r;
	char *passwd = xasprintf("root:x:0:0:root:/root:/bin/sh\nlocal:x:%lu:100::/:/bin/sh\n",
				 RANGE_FIRST);

	REQUIRE_ROOT();
	fake_etc_init(&e);
	char *sbxdir = xasprintf("%s/sbx", e.up);
	cr_assert_eq(mkdir(sbxdir, 0755), 0);
	free(sbxdir);
	fake_etc_put(&e, "sbx/uid-range", "reserved yes  # no LDAP account is in it\n");
	fake_etc_put(&e, "passwd", passwd);
	fake_etc_put(&e, "nsswitch.conf", "passwd: files sss\ngroup: files sss\n");
	fake_getent(&e, "exit 1");
	run_over(&r, &e);
	unsigned long uid = jail_host_uid(&r);
	cr_assert_neq(uid, RANGE_FIRST, "the jail is the local account's uid");
	cr_assert_eq(getent_calls(&e), 0, "getent ran for a reserved range");
	sbx_result_free(&r);
	fake_etc_free(&e);
	free(passwd);
}

/* Attack: an account file that cannot be read (an I/O error; here a
 * directory) was taken for an empty one: every id it names looked free. */
Test(rootuid_db, an_unreadable_account_file_stops_the_run)
{
	struct fake_etc e;
	struct sbx_result r;

	REQUIRE_ROOT();
	fake_etc_init(&e);
	fake_etc_put(&e, "nsswitch.conf", files_only);
	char *sub = xasprintf("%s/subuid", e.up);
	cr_assert_eq(mkdir(sub, 0755), 0);
	free(sub);
	run_over(&r, &e);
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "/etc/subuid"), "the message does not name the file: %s", r.err);
	sbx_result_free(&r);
	fake_etc_free(&e);
}
