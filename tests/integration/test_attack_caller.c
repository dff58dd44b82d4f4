/*
 * test_attack_caller.c - a hostile caller: paths and
 * inherited state handed to sbx, and what the jail then gets from them.
 */
#include "common.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* `sbx run OPT VALUE -- sh -c ...`: does DIR show MARKER's name, does it hold
 * an etc/passwd (the jail's root does, /tmp does not)?  Its stdout. */
static char *look(const char *opt, const char *value, const char *dir, const char *marker)
{
	char *script = xasprintf("test -f %s%s && echo SEEN; "
				 "test -e %s/etc/passwd && echo ROOT-THERE; true",
				 dir, strrchr(marker, '/'), dir);
	struct sbx_result r;
	char *out;

	sbx_run_sh(&r, NULL, SBX_ARGV(opt, value), script);
	out = xasprintf("%s: status %s, stdout '%s'", opt, rec_str(&r, "status"), r.out);
	sbx_result_free(&r);
	free(script);
	return out;
}

/* The jail's root was a tmpfs mounted on /tmp before the binds were cloned:
 * an ordinary user's -B /tmp:DIR (or -w /tmp) showed the jail its own root,
 * writable, instead of the host's /tmp. */
Test(attack_caller, a_bind_of_tmp_shows_the_hosts_tmp_not_the_jails_root)
{
	char marker[] = "/tmp/sbx-a1-marker-XXXXXX";
	char *bind, *ws;
	int fd;

	REQUIRE_USERNS();
	fd = mkstemp(marker);
	cr_assert(fd >= 0, "mkstemp in /tmp");
	close(fd);
	chmod(marker, 0644);
	bind = look("-B", "/tmp:/mnt/h", "/mnt/h", marker);
	ws = look("-w", "/tmp", "/mnt/data", marker);
	unlink(marker);
	cr_assert_str_eq(bind, "-B: status ok, stdout 'SEEN\n'");
	cr_assert_str_eq(ws, "-w: status ok, stdout 'SEEN\n'");
	free(bind);
	free(ws);
}

/* Under the caller's `ulimit -t 3` the program's RLIMIT_CPU is 2 s, below
 * the policy's budget: the kernel's SIGXCPU at it was reported `signaled`,
 * "the jail's CPU stayed below cpu_time_ms", and `ulimit -t 1` gave a soft
 * limit of 0 that fired at once. */
Test(attack_caller, the_callers_ulimit_t_is_a_cpu_limit_not_a_signal)
{
	static const char *const prefix[] = { "/bin/sh", "-c",
					      "ulimit -t 3 && exec \"$0\" \"$@\"", NULL };
	const struct sbx_opts o = { .prefix = prefix, .deadline_s = 90 };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run_sh(&r, &o, SBX_ARGV("-t", "60s"), "while :; do :; done");
	ASSERT_STATUS(&r, "cpu-limit");
	cr_assert_eq(r.exit_status, 124, "exit %d; stderr: %s", r.exit_status, r.err);
	sbx_result_free(&r);
}

/* `--result fd:-1` or an fd number past INT_MAX was taken for a path: the
 * record went to a new file named "fd:-1" in the caller's directory. */
Test(attack_caller, a_malformed_result_fd_is_a_usage_error_not_a_file)
{
	static const char *const dests[] = { "fd:-1", "fd:99999999999", "fd:", "fd:3x" };
	char *dir = make_temp_dir();
	const struct sbx_opts o = { .cwd = dir };
	struct sbx_result r;

	REQUIRE_USERNS();
	for (size_t i = 0; i < sizeof(dests) / sizeof(dests[0]); i++) {
		sbx_run(&r, &o, SBX_ARGV("run", "-r", dests[i], "--", "/bin/true"));
		cr_assert_eq(r.exit_status, 125, "-r %s: exit %d", dests[i], r.exit_status);
		cr_assert(strstr(r.err, "not a descriptor number"), "-r %s: stderr: %s",
			  dests[i], r.err);
		sbx_result_free(&r);
	}
	cr_assert_eq(count_entries(dir), 0, "sbx created a file in the caller's directory");
	rm_tree(dir);
	free(dir);
}

/* A user makes DIR a symlink to a directory root owns (/etc, say) before root
 * runs `sbx run -w DIR` or `-o DIR/`: -w followed it, and the workspace was
 * idmapped to the target's owner, root; -o's no-follow open followed it
 * when spelled with a trailing slash.  Both are refused, spelled either way. */
Test(attack_caller, a_workdir_or_out_dir_that_is_a_symlink_is_refused_with_a_slash_too)
{
	char *side = make_temp_dir(), *base = make_temp_dir();
	char *link_path = xasprintf("%s/dir", base), *slash = xasprintf("%s/", link_path);
	const char *opts[] = { "-w", "-o" };
	const char *paths[] = { link_path, slash };
	struct sbx_result r;

	REQUIRE_USERNS();
	cr_assert_eq(symlink(side, link_path), 0);
	for (int i = 0; i < 4; i++) {
		sbx_run_sh(&r, NULL, SBX_ARGV(opts[i / 2], paths[i % 2]), "echo x > a");
		cr_assert_eq(r.exit_status, 125, "%s %s: exit %d, stderr: %s", opts[i / 2],
			     paths[i % 2], r.exit_status, r.err);
		cr_assert(strstr(r.err, "symbolic link"), "stderr: %s", r.err);
		sbx_result_free(&r);
	}
	cr_assert_eq(count_entries(side), 0, "a file was created through the symlink");
	rm_tree(side);
	rm_tree(base);
	free(side);
	free(base);
	free(link_path);
	free(slash);
}

/*
 * A user who controls a file root will copy in (-f, or the --lang program)
 * makes it a symlink to a file only root can read (/etc/shadow): following
 * it would hand the jail, and -o, a copy of the secret.  Refused, and the
 * secret's bytes appear nowhere in the run.
 */
Test(attack_caller, a_file_or_program_that_is_a_symlink_is_never_copied_in)
{
	char *dir = make_temp_dir();
	char *secret = put_test_file(dir, "secret", "SECRET-BYTES\n");
	char *link_path = xasprintf("%s/input.py", dir);
	struct sbx_result r;

	REQUIRE_USERNS();
	cr_assert_eq(symlink(secret, link_path), 0);
	sbx_run_sh(&r, NULL, SBX_ARGV("-f", link_path), "cat input.py");
	cr_assert_eq(r.exit_status, 125, "-f: exit %d, out: %s", r.exit_status, r.out);
	cr_assert(strstr(r.err, "symbolic link"), "stderr: %s", r.err);
	cr_assert_null(strstr(r.out, "SECRET"), "out: %s", r.out);
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "--lang", "sh", link_path));
	cr_assert_eq(r.exit_status, 125, "--lang: exit %d, out: %s", r.exit_status, r.out);
	cr_assert(strstr(r.err, "symbolic link"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(secret);
	free(link_path);
}

/* Swap A and B for ever (the user who owns the directory racing sbx). */
static pid_t start_swapper(const char *a, const char *b)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	}
	return pid;
}

/*
 * Run by root, -B SRC is idmapped to SRC's owner.  hostbind.c checked SRC
 * with lstat and then opened it following links: a user exchanging SRC
 * with a symlink to a directory root owns had root's jail write there as
 * root, within a few runs.
 */
Test(attack_caller, a_bind_source_swapped_for_a_symlink_is_never_followed_by_root, .timeout = 120)
{
	char *base = make_temp_dir();
	char *src = xasprintf("%s/d", base), *link_path = xasprintf("%s/l", base);
	char *target = xasprintf("%s/target", base), *bind = xasprintf("%s:/mnt/x", src);
	char *planted = xasprintf("%s/planted", target);
	struct sbx_result r;
	bool hit = false;
	pid_t swapper;

	REQUIRE_USERNS();
	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (the idmap of -B to its owner is root's)");
	cr_assert_eq(mkdir(src, 0755), 0);
	cr_assert_eq(mkdir(target, 0755), 0);
	cr_assert_eq(symlink(target, link_path), 0);
	swapper = start_swapper(src, link_path);
	cr_assert(swapper > 0, "fork");
	for (int i = 0; i < 200 && !hit; i++) {
		sbx_run_sh(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("-q", "-B", bind),
			   "echo x > /mnt/x/planted 2>/dev/null; true");
		sbx_result_free(&r);
		hit = access(planted, F_OK) == 0;
	}
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	rm_tree(base);
	cr_assert(!hit, "the jail wrote through the swapped-in symlink");
	free(base);
	free(src);
	free(link_path);
	free(target);
	free(bind);
	free(planted);
}

/* `su user` from root keeps HOME=/root: the user's sbx could not open its
 * config candidate there and every run failed with a bare "Permission
 * denied".  It still fails (a config it cannot read is not skipped), and
 * now says what to change. */
Test(attack_caller, an_unreadable_home_names_the_fix)
{
	char *home = make_temp_dir();
	const char *env[] = { NULL, "XDG_CONFIG_HOME=", NULL };
	struct sbx_result r;

	REQUIRE_USERNS();
	if (geteuid() == 0)
		cr_skip_test("SKIP: root reads every directory");
	env[0] = xasprintf("HOME=%s", home);
	cr_assert_eq(chmod(home, 0), 0);
	sbx_run(&r, &(struct sbx_opts){ .env = env }, SBX_ARGV("run", "--", "/bin/true"));
	chmod(home, 0700);
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "set them to your own directories"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(home);
	free(home);
	free((char *)env[0]);
}

/* --json writes the record on stdout, and `-r -` with it is that one record;
 * `-r fd:1` or `-r /dev/stdout` wrote a second copy there, so stdout was no
 * longer one JSON document. */
Test(attack_caller, json_with_a_result_on_stdout_prints_one_record)
{
	static const char *const dests[] = { "fd:1", "/dev/stdout", "-" };
	struct sbx_result r;

	REQUIRE_USERNS();
	for (size_t i = 0; i < sizeof(dests) / sizeof(dests[0]); i++) {
		int lines = 0;

		sbx_run(&r, &(struct sbx_opts){ .record_on_stdout = true },
			SBX_ARGV("run", "--json", "-r", dests[i], "--", "/bin/echo", "x"));
		for (const char *p = r.out; *p; p++)
			lines += *p == '\n';
		cr_assert_eq(r.exit_status, 0, "-r %s: exit %d", dests[i], r.exit_status);
		cr_assert_eq(lines, 1, "-r %s: stdout has %d lines: %s", dests[i], lines, r.out);
		ASSERT_STATUS(&r, "ok");
		sbx_result_free(&r);
	}
}

/* --json --stdout /dev/stdout: the program's bytes went to sbx's stdout in
 * front of the record, which was then no longer one JSON document. */
Test(attack_caller, json_refuses_a_copy_to_its_own_stdout)
{
	static const char *const opts[] = { "--stdout", "--stderr" };
	struct sbx_result r;

	REQUIRE_USERNS();
	for (int i = 0; i < 2; i++) {
		sbx_run(&r, &(struct sbx_opts){ .record_on_stdout = true },
			SBX_ARGV("run", "--json", opts[i], "/dev/stdout", "--", "/bin/echo", "x"));
		cr_assert_eq(r.exit_status, 125, "%s: exit %d, stdout: %s", opts[i],
			     r.exit_status, r.out);
		ASSERT_STATUS(&r, "config-error");
		cr_assert(r.out[0] == '{', "%s: stdout: %s", opts[i], r.out);
		sbx_result_free(&r);
	}
}

/* --set workspace=/etc with -w DIR: sbx synthesized the jail's /etc into the
 * workspace, so passwd, group, hosts and a copy of ld.so.cache landed in the
 * caller's DIR, and the program could rewrite them. */
Test(attack_caller, the_workspace_cannot_be_the_synthesized_etc)
{
	char *dir = make_temp_dir();
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", dir, "--set", "workspace=/etc"), "true");
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	ASSERT_STATUS(&r, "config-error");
	cr_assert_eq(count_entries(dir), 0, "sbx wrote into the workdir");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
}

/* An error quoting a caller's value is one line with no raw control bytes:
 * -C $'a\nb' split it in two, and an ESC sequence in a value (a file name
 * from a pull request, in a CI log) reached the terminal. */
Test(attack_caller, an_error_quoting_a_value_is_one_line_without_controls)
{
	static const char *const argvs[][6] = {
		{ "run", "-q", "-C", "a\nb\x1b[2J", "--", "/bin/true" },
		{ "run", "-q", "--time", "1\x1b]0;x\a\xc2\x9b", "--", "/bin/true" },
	};
	struct sbx_result r;

	REQUIRE_USERNS();
	for (size_t i = 0; i < sizeof(argvs) / sizeof(argvs[0]); i++) {
		const char *argv[7] = { 0 };

		memcpy(argv, argvs[i], sizeof(argvs[i]));
		sbx_run(&r, NULL, argv);
		cr_assert_eq(r.exit_status, 125, "%s: exit %d", argvs[i][2], r.exit_status);
		cr_assert(r.err_len > 0 && r.err[r.err_len - 1] == '\n' &&
				  memchr(r.err, '\n', r.err_len - 1) == NULL,
			  "%s: not one line: %s", argvs[i][2], r.err);
		for (size_t k = 0; k < r.err_len; k++) {
			unsigned char c = (unsigned char)r.err[k];
			cr_assert(c >= 0x20 || c == '\n', "%s: control byte 0x%02x in: %s",
				  argvs[i][2], c, r.err);
			cr_assert(!(c == 0xc2 && k + 1 < r.err_len &&
				    (unsigned char)r.err[k + 1] >= 0x80 &&
				    (unsigned char)r.err[k + 1] <= 0x9f),
				  "%s: a C1 control in: %s", argvs[i][2], r.err);
		}
		sbx_result_free(&r);
	}
}
