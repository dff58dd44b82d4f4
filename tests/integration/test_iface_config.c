/*
 * test_iface_config.c - the configuration sbx reads is part of its
 * interface: run by root with HOME or XDG_CONFIG_HOME
 * pointing into a user's home (su without -, sudo keeping HOME), sbx
 * loaded that user's default.policy and gave the jail whatever it said.
 * Run by root, only policies root owns and only root can write are read.
 *
 * /etc/sbx is not exercised here: it is a fixed path, and a refused file
 * there would make a concurrent `sbx langs` of another suite fail; the
 * same check runs on every file (trust.c), which these tests reach through
 * -p, includes and the config directory.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The "other user": any uid that is neither root nor the caller. */
#define OTHER_UID 65534

#define REQUIRE_ROOT()                                                        \
	do {                                                                  \
		if (geteuid() != 0)                                           \
			cr_skip_test("SKIP: needs root (the hole is root "    \
				     "reading another user's files)");        \
	} while (0)

static char *put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "fopen %s", path);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
	return path;
}

static void run_hostname(struct sbx_result *r, const char *const *env, const char *policy)
{
	struct sbx_opts o = { .env = env };

	if (policy)
		sbx_run(r, &o, SBX_ARGV("run", "-p", policy, "--", "/bin/hostname"));
	else
		sbx_run(r, &o, SBX_ARGV("run", "--", "/bin/hostname"));
}

/* Give TREE to the other user, as a home of theirs would be. */
static void chown_tree(const char *tree)
{
	char *cmd = xasprintf("chown -R %d:%d '%s'", OTHER_UID, OTHER_UID, tree);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
}

#define PLANTED "include: \"default\"\nhostname: \"planted\"\n"

/*
 * The attack: a user's ~/.config/sbx/default.policy, read by root because
 * HOME still names that user's home.  Root's run must use the built-in.
 */
Test(iface_config, root_ignores_a_default_policy_planted_in_a_users_home)
{
	struct sbx_result r;
	char *home = make_temp_dir(), *conf = xasprintf("%s/.config", home);
	char *sbxdir = xasprintf("%s/sbx", conf);
	char *e_home = xasprintf("HOME=%s", home), *e_xdg = xasprintf("XDG_CONFIG_HOME=%s", conf);
	const char *env[] = { e_home, e_xdg, NULL };

	REQUIRE_ROOT();
	REQUIRE_USERNS();
	cr_assert_eq(mkdir(conf, 0755), 0);
	cr_assert_eq(mkdir(sbxdir, 0755), 0);
	free(put(sbxdir, "default.policy", PLANTED, 0644));
	/* the home and everything in it belong to the user */
	chown_tree(home);
	run_hostname(&r, env, NULL);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "sbx\n", "root loaded the user's policy");
	cr_assert_str_eq(rec_str(&r, "policy"), "default");
	cr_assert_not_null(strstr(r.err, "ignoring"), "no note on stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(home);
	free(home);
	free(conf);
	free(sbxdir);
	free(e_home);
	free(e_xdg);
}

/* `sbx langs` reads the same directory: a planted preset is not listed. */
Test(iface_config, root_langs_ignores_a_preset_planted_in_a_users_home)
{
	struct sbx_result r;
	char *conf = make_temp_dir(), *sbxdir = xasprintf("%s/sbx", conf);
	char *e_xdg = xasprintf("XDG_CONFIG_HOME=%s", conf);
	const char *env[] = { e_xdg, NULL };

	REQUIRE_ROOT();
	cr_assert_eq(mkdir(sbxdir, 0755), 0);
	free(put(sbxdir, "evil.policy",
		 "include: \"default\"\nname: \"evil\"\n"
		 "lang { extensions: [\".evil\"] run: [\"/bin/sh\", \"{file}\"] }\n", 0644));
	chown_tree(conf);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true, .env = env, .deadline_s = 60 },
		SBX_ARGV("langs"));
	cr_assert_eq(r.exit_status, 0, "stderr: %s", r.err);
	cr_assert_null(strstr(r.out, "evil"), "langs listed a planted preset: %s", r.out);
	sbx_result_free(&r);
	rm_tree(conf);
	free(conf);
	free(sbxdir);
	free(e_xdg);
}

/* A world-writable policy, even named with -p by root: anyone can rewrite it. */
Test(iface_config, root_refuses_a_world_writable_policy_file)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *p = put(dir, "x.policy", PLANTED, 0666);

	REQUIRE_ROOT();
	cr_assert_eq(chmod(p, 0666), 0); /* past the umask */
	run_hostname(&r, NULL, p);
	ASSERT_STATUS(&r, "config-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert_null(strstr(r.out, "planted"));
	cr_assert(strstr(r.err, "writable by group or others") && strstr(r.err, "chmod go-w"),
		  "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(p);
}

/* A root-owned file in a directory the user owns: the user can swap it. */
Test(iface_config, root_refuses_a_policy_in_a_directory_another_user_owns)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *p = put(dir, "x.policy", PLANTED, 0644);

	REQUIRE_ROOT();
	cr_assert_eq(chown(dir, OTHER_UID, OTHER_UID), 0);
	run_hostname(&r, NULL, p);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "belongs to uid 65534"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(p);
}

/* A trusted file that includes a user-owned one: each include is checked. */
Test(iface_config, root_refuses_an_include_another_user_owns)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *top = put(dir, "top.policy", "include: \"evil.policy\"\n", 0644);
	char *evil = put(dir, "evil.policy", PLANTED, 0644);

	REQUIRE_ROOT();
	cr_assert_eq(chown(evil, OTHER_UID, OTHER_UID), 0);
	run_hostname(&r, NULL, top);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "evil.policy") && strstr(r.err, "belongs to uid 65534"),
		  "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(top);
	free(evil);
}

/* A root-owned symlink to a user's file: the opened file is what counts. */
Test(iface_config, root_refuses_a_root_symlink_to_a_file_another_user_owns)
{
	struct sbx_result r;
	char *dir = make_temp_dir(), *side = make_temp_dir();
	char *target = put(side, "t.policy", PLANTED, 0644);
	char *link_path = xasprintf("%s/x.policy", dir);

	REQUIRE_ROOT();
	cr_assert_eq(chown(target, OTHER_UID, OTHER_UID), 0);
	cr_assert_eq(symlink(target, link_path), 0);
	run_hostname(&r, NULL, link_path);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "belongs to uid 65534"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	rm_tree(side);
	free(dir);
	free(side);
	free(target);
	free(link_path);
}

/*
 * The caller's own configuration still loads, as root (a root-owned
 * directory chain) and unprivileged alike.
 */
Test(iface_config, a_config_dir_the_caller_owns_is_loaded)
{
	struct sbx_result r;
	char *conf = make_temp_dir(), *sbxdir = xasprintf("%s/sbx", conf);
	char *e_xdg = xasprintf("XDG_CONFIG_HOME=%s", conf);
	const char *env[] = { e_xdg, NULL };

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(sbxdir, 0755), 0);
	free(put(sbxdir, "default.policy", "include: \"default\"\nhostname: \"mine\"\n", 0644));
	run_hostname(&r, env, NULL);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "mine\n");
	/* the override keeps the name "default": only the source shows it */
	char *want = xasprintf("%s/default.policy", sbxdir);
	cr_assert_str_eq(rec_str(&r, "policy"), "default");
	cr_assert_str_eq(rec_str(&r, "policy_source"), want, "policy_source %s",
			 rec_str(&r, "policy_source"));
	free(want);
	sbx_result_free(&r);
	run_hostname(&r, NULL, NULL);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(rec_str(&r, "policy_source"), "builtin:default");
	sbx_result_free(&r);
	rm_tree(conf);
	free(conf);
	free(sbxdir);
	free(e_xdg);
}
