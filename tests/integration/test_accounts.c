/*
 * test_accounts.c - the host's account names, which sbx asks the C
 * library for (every source nsswitch.conf names, the files first).  Two
 * lookups depend on them: root's home, whose .config/sbx is root's
 * configuration directory when HOME is not root's (root never loads a
 * user's policy), and nsjail import's inside_id names.  Each test runs sbx as root in a private
 * mount namespace with its own /etc/passwd and /etc/group bound over the
 * host's.  Only as root: in a user namespace of its own an unprivileged
 * user is root too, but no directory there is owned by it up to /, so
 * sbx trusts neither a configuration directory nor an nsjail file.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNSHARE "/usr/bin/unshare"

/* TEXT in DIR/NAME; the malloc'd path. */
static char *put_file(const char *dir, const char *name, const char *text)
{
	char *path = put_test_file(dir, name, text);

	cr_assert_eq(chmod(path, 0644), 0);
	return path;
}

/* `sbx ARGV...` with PASSWD and GROUP (paths, or NULL) bound over /etc's,
 * HOME pointing nowhere; in dir CWD for an import (NULL: a run). */
static void run_with_accounts(struct sbx_result *r, const char *passwd, const char *group,
			      const char *cwd, const char *const *argv)
{
	char *script = xasprintf("%s%s%s%s%s%sexec \"$@\"",
				 passwd ? "mount --bind '" : "", passwd ? passwd : "",
				 passwd ? "' /etc/passwd && " : "", group ? "mount --bind '" : "",
				 group ? group : "", group ? "' /etc/group && " : "");
	const char *prefix[] = { UNSHARE, "-m", "/bin/sh", "-c", script, "sh", NULL };
	const char *env[] = { "HOME=/nonexistent", "XDG_CONFIG_HOME=", NULL };
	/* a run prints its record; import prints none */
	struct sbx_opts o = { .prefix = prefix, .env = env, .cwd = cwd, .no_record = cwd != NULL };

	sbx_run(r, &o, argv);
	free(script);
}

static void require_unshare(void)
{
	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (a private /etc/passwd in a mount namespace, "
			     "and a configuration only root's own directories can hold)");
	REQUIRE_USERNS();
	if (access(UNSHARE, X_OK) != 0)
		cr_skip_test("SKIP: needs %s for a private /etc/passwd", UNSHARE);
}

/* DIR/.config/sbx/default.policy naming hostname NAME: a home whose
 * configuration shows in the jail's hostname. */
static void make_home(const char *dir, const char *name)
{
	char *conf = xasprintf("%s/.config", dir), *sbxdir = xasprintf("%s/sbx", conf);
	char *text = xasprintf("include: \"default\"\nhostname: \"%s\"\n", name);

	cr_assert_eq(mkdir(conf, 0755), 0);
	cr_assert_eq(mkdir(sbxdir, 0755), 0);
	free(put_file(sbxdir, "default.policy", text));
	free(conf);
	free(sbxdir);
	free(text);
}

/* Root's configuration with an /etc/passwd of BEFORE, then root's entry
 * (its home names "roothome"), the jail's hostname.  PLANT: BEFORE starts
 * with "+planted:::::DIR:", DIR a home that names "planted". */
static char *hostname_with_passwd(const char *before, bool plant_line)
{
	char *dir = make_temp_dir(), *root = xasprintf("%s/root", dir);
	char *plant = xasprintf("%s/plant", dir), *text, *passwd, *got;
	struct sbx_result r;

	cr_assert_eq(mkdir(root, 0755), 0);
	cr_assert_eq(mkdir(plant, 0755), 0);
	make_home(root, "roothome");
	make_home(plant, "planted");
	text = xasprintf("%s%s%s%sroot:x:0:0:root:%s:/bin/sh\n", plant_line ? "+planted:::::" : "",
			 plant_line ? plant : "", plant_line ? ":\n" : "", before, root);
	passwd = put_file(dir, "passwd", text);
	run_with_accounts(&r, passwd, NULL, NULL, SBX_ARGV("run", "--", "/bin/hostname"));
	cr_assert_eq(r.exit_status, 0, "sbx exit %d; stderr: %s", r.exit_status, r.err);
	got = strdup(r.out);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(root);
	free(plant);
	free(text);
	free(passwd);
	return got;
}

/*
 * NIS compat lines ("+", "+name", "-name") parse with uid 0 and, for a
 * bare "+", no home at all: the files lookup (getpwuid) skips them.  sbx
 * took the first for root's entry: a "+" line before root's crashed it
 * (SIGSEGV), a "+name:::::/dir:" line made /dir root's home.
 */
Test(accounts, compat_lines_before_roots_entry_are_not_root)
{
	char *got;

	require_unshare();
	got = hostname_with_passwd("+\n+::::::\n-bad\n", false);
	cr_expect_str_eq(got, "roothome\n", "a bare + line: hostname %s", got);
	free(got);
	got = hostname_with_passwd("", true);
	cr_expect_str_eq(got, "roothome\n", "a +name line with a home: hostname %s", got);
	free(got);
}

/* A line longer than the lookup's buffer (ERANGE) ended the scan: root's
 * entry after it was never found and root's configuration not read. */
Test(accounts, roots_entry_after_a_long_line_is_found)
{
	char *before = xasprintf("long:x:5:5:%4999d:/nonexistent:/bin/sh\n", 0);
	char *got;

	require_unshare();
	got = hostname_with_passwd(before, false);
	cr_expect_str_eq(got, "roothome\n", "hostname %s", got);
	free(got);
	free(before);
}

/* nsjail's inside_id names: a user after a long passwd line and a group
 * after a group line listing many members are this host's too. */
Test(accounts, inside_id_names_after_long_lines_are_found)
{
	char *dir, *members, *text, *passwd, *group, *cfg;
	struct sbx_result r;

	require_unshare();
	dir = make_temp_dir();
	members = malloc(40001);
	cr_assert_not_null(members);
	for (int i = 0; i < 5000; i++)
		memcpy(members + 8 * i, i ? ",member0" : "member00", 8);
	members[40000] = '\0';
	text = xasprintf("big:x:7:%s\nrest:x:0:\n", members);
	group = put_file(dir, "group", text);
	free(text);
	text = xasprintf("long:x:5:5:%s:/nonexistent:/bin/sh\nrest:x:0:0::/:/bin/sh\n", members);
	passwd = put_file(dir, "passwd", text);
	free(text);
	cfg = put_file(dir, "nj.cfg", "uidmap { inside_id: \"rest\" }\ngidmap { inside_id: \"rest\" }\n");
	run_with_accounts(&r, passwd, group, dir,
			  SBX_ARGV("import", "nsjail", "nj.cfg"));
	cr_assert_eq(r.exit_status, 0, "sbx exit %d; stderr: %s", r.exit_status, r.err);
	cr_expect(strstr(r.out, "uid: 0  # nj.cfg:1: inside_id \"rest\" on this host"),
		  "the user after the long line: %s", r.out);
	cr_expect(strstr(r.out, "gid: 0  # nj.cfg:2: inside_id \"rest\" on this host"),
		  "the group after the long line: %s", r.out);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(members);
	free(passwd);
	free(group);
	free(cfg);
}

/*
 * Root's account from a source beyond /etc/passwd: with a passwd file that
 * lists no root, nss-systemd still names root (home /root), as id(1) sees
 * it.  sbx once read /etc/passwd alone and found no home, so root's
 * configuration was not read; an LDAP or sssd user lost theirs the same way.
 */
Test(accounts, roots_home_from_the_name_service_is_found)
{
	char *dir, *home, *passwd, *nss, *script;
	struct sbx_result r;

	require_unshare();
	if (access("/lib/x86_64-linux-gnu/libnss_systemd.so.2", R_OK) != 0)
		cr_skip_test("SKIP: needs nss-systemd (Debian: libnss-systemd), a source "
			     "beyond /etc/passwd that names root");
	dir = make_temp_dir();
	home = xasprintf("%s/home", dir);
	cr_assert_eq(mkdir(home, 0755), 0);
	make_home(home, "nsshome");
	passwd = put_file(dir, "passwd", "someone:x:5:5::/nonexistent:/bin/sh\n");
	nss = put_file(dir, "nsswitch.conf", "passwd: files systemd\ngroup: files systemd\n");
	/* 77: this host's nss-systemd does not name root (the premise), not sbx */
	script = xasprintf("mount --bind '%s' /etc/passwd && mount --bind '%s' /etc/nsswitch.conf "
			   "&& mount --bind '%s' /root && { getent passwd root | grep -q ':/root:' "
			   "|| exit 77; } && exec \"$@\"", passwd, nss, home);
	{
		const char *prefix[] = { UNSHARE, "-m", "/bin/sh", "-c", script, "sh", NULL };
		const char *env[] = { "HOME=/nonexistent", "XDG_CONFIG_HOME=", NULL };
		struct sbx_opts o = { .prefix = prefix, .env = env };

		sbx_run(&r, &o, SBX_ARGV("run", "--", "/bin/hostname"));
	}
	if (r.exit_status == 77)
		cr_skip_test("SKIP: nss-systemd here names no root with home /root");
	cr_assert_eq(r.exit_status, 0, "sbx exit %d; stderr: %s", r.exit_status, r.err);
	cr_expect_str_eq(r.out, "nsshome\n", "root's home from the name service: hostname %s",
			 r.out);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(home);
	free(passwd);
	free(nss);
	free(script);
}
