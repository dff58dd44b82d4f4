/*
 * test_cli.c - the options of `sbx run` / `sbx explain` and the
 * policy they build: clamping, the sealed-policy rule, --lang auto,
 * did-you-mean.  No privileges needed; nothing is run.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/effective.h"
#include "lang/lang.h"
#include "lang/preset.h"
#include "policy/override.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static struct sbx_err err;

static void parse_ok(int argc, char **argv, struct cli_options *o)
{
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cli_parse(argc, argv, o, &err), 0, "parse: %s", err.msg);
}

static void parse_bad(int argc, char **argv, struct cli_options *o,
		      const char *needle)
{
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cli_parse(argc, argv, o, &err), -1, "parsed, wanted '%s'", needle);
	cr_expect_eq(err.kind, ERR_USAGE);
	cr_expect(strstr(err.msg, needle), "'%s' not in: %s", needle, err.msg);
}

static void load(const char *text, struct policy *p)
{
	memset(&err, 0, sizeof(err));
	cr_assert_eq(policy_load_text("test.policy", text, strlen(text), p, &err), 0,
		     "policy: %s", err.msg);
}

/* Parse ARGV and apply it to the policy TEXT; returns policy_apply_overrides(). */
static int apply(const char *text, int argc, char **argv, struct policy *p)
{
	struct cli_options o;
	int rc;

	load(text, p);
	parse_ok(argc, argv, &o);
	memset(&err, 0, sizeof(err));
	rc = policy_apply_overrides(p, o.overrides, o.noverrides, o.workdir, &err);
	cli_options_free(&o);
	return rc;
}

Test(cli, every_option_parses_in_long_form)
{
	char *argv[] = { "run", "--policy", "default", "--lang", "py",
		"--time", "2s", "--cpu", "1s", "--memory", "64M", "--pids", "8",
		"--fsize", "1M", "--nofile", "32", "--output", "4K", "--net", "none",
		"--bind", "/usr", "--bind-rw", "/tmp:/x", "--tmpfs", "/t:8M",
		"--workdir", "/tmp", "--file", "a.txt", "--file", "b.txt",
		"--out", "/o", "--env", "A=1", "--env-keep", "HOME", "--chdir", "sub",
		"--stdin", "-", "--set", "hostname=h", "--seccomp-allow", "ptrace",
		"--seccomp-deny", "@mount", "--json", "--stdout", "so", "--stderr", "se",
		"--result", "fd:3", "--quiet", "--verbose", "file.py", "arg", NULL };
	struct cli_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_expect_str_eq(o.policy, "default");
	cr_expect_str_eq(o.lang, "py");
	cr_expect_eq(o.noverrides, 17);
	cr_expect_eq(o.overrides[0].kind, OV_LIMIT);
	cr_expect_eq(o.overrides[0].limit, LIM_WALL_TIME_MS);
	cr_expect_str_eq(o.overrides[0].option, "--time");
	cr_expect_eq(o.overrides[0].number, 2000);
	cr_expect_eq(o.overrides[2].number, 64); /* --memory in MiB */
	cr_expect_eq(o.overrides[6].number, 4096);
	cr_expect_str_eq(o.workdir, "/tmp");
	cr_expect_eq(o.nfiles, 2);
	cr_expect_str_eq(o.out_dir, "/o");
	cr_expect_str_eq(o.stdin_spec, "-");
	cr_expect_str_eq(o.stdout_copy, "so");
	cr_expect_str_eq(o.stderr_copy, "se");
	cr_expect_str_eq(o.result_dest, "fd:3");
	cr_expect(o.json && o.quiet && o.verbose && !o.help);
	cr_expect_eq(o.ncommand, 2);
	cr_expect_str_eq(o.command[0], "file.py");
	cli_options_free(&o);
}

Test(cli, short_forms_attached_values_and_bundled_flags)
{
	char *argv[] = { "run", "-p", "x", "-l", "sh", "-t2s", "-m", "1G",
		"-b/usr", "-B", "/a:/b", "-w", "d", "-f", "f", "-o", "o", "-e", "X=1",
		"-C", "/c", "-r", "-", "-qv", "-h", "cmd", NULL };
	struct cli_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_expect_str_eq(o.policy, "x");
	cr_expect_str_eq(o.lang, "sh");
	cr_expect_eq(o.overrides[0].number, 2000);
	cr_expect_eq(o.overrides[1].number, 1024);
	cr_expect_str_eq(o.overrides[2].value, "/usr");
	cr_expect_str_eq(o.result_dest, "-");
	cr_expect(o.quiet && o.verbose && o.help);
	cr_expect_str_eq(o.command[0], "cmd");
	cli_options_free(&o);
}

Test(cli, equals_form_is_the_same_as_a_separate_value)
{
	char *argv[] = { "run", "--time=250ms", "--net=loopback", "--", "ls", NULL };
	struct cli_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_expect_eq(o.overrides[0].number, 250);
	cr_expect_str_eq(o.overrides[1].value, "loopback");
	cr_expect_str_eq(o.command[0], "ls");
	cli_options_free(&o);
}

Test(cli, options_after_command_belong_to_the_command)
{
	char *argv[] = { "run", "-q", "ls", "--time", "5q", "-la", NULL };
	struct cli_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_expect_eq(o.noverrides, 0);
	cr_expect_eq(o.ncommand, 4);
	cr_expect_str_eq(o.command[1], "--time");
	cli_options_free(&o);
}

Test(cli, double_dash_ends_options_even_before_a_dash_word)
{
	char *argv[] = { "run", "--", "--json", NULL };
	struct cli_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_expect(!o.json);
	cr_expect_eq(o.ncommand, 1);
	cr_expect_str_eq(o.command[0], "--json");
	cli_options_free(&o);
}

Test(cli, unknown_option_suggests_the_nearest)
{
	char *argv[] = { "run", "--tme", "1", "ls", NULL };
	struct cli_options o;

	parse_bad(ARGC(argv), argv, &o, "unknown option '--tme' (did you mean '--time'?)");
	cli_options_free(&o);
}

Test(cli, unknown_short_option_is_a_usage_error)
{
	char *argv[] = { "run", "-Z", "ls", NULL };
	struct cli_options o;

	parse_bad(ARGC(argv), argv, &o, "'-Z'");
	cli_options_free(&o);
}

Test(cli, bad_values_name_the_option)
{
	char *a1[] = { "run", "--time", "5q", "ls", NULL };
	char *a2[] = { "run", "--memory", "1.5K", "ls", NULL };
	char *a3[] = { "run", "--pids", "0", "ls", NULL };
	char *a4[] = { "run", "--net", "internet", "ls", NULL };
	char *a5[] = { "run", "-e", "NOEQUALS", "ls", NULL };
	char *a6[] = { "run", "--time", NULL };
	char *a7[] = { "run", "--json=yes", "ls", NULL };
	char *a8[] = { "run", "--set", "=3", "ls", NULL };
	char *a9[] = { "run", "--cpu", "-1", "ls", NULL };
	struct cli_options o;

	parse_bad(ARGC(a1), a1, &o, "--time: invalid duration '5q'");
	cli_options_free(&o);
	parse_bad(ARGC(a2), a2, &o, "--memory");
	cli_options_free(&o);
	parse_bad(ARGC(a3), a3, &o, "--pids");
	cli_options_free(&o);
	parse_bad(ARGC(a4), a4, &o, "--net");
	cli_options_free(&o);
	parse_bad(ARGC(a5), a5, &o, "--env");
	cli_options_free(&o);
	parse_bad(ARGC(a6), a6, &o, "'--time' needs a value");
	cli_options_free(&o);
	parse_bad(ARGC(a7), a7, &o, "--json");
	cli_options_free(&o);
	parse_bad(ARGC(a8), a8, &o, "--set");
	cli_options_free(&o);
	parse_bad(ARGC(a9), a9, &o, "--cpu");
	cli_options_free(&o);
}

/* the config-error record must still go where --json / -r said */
Test(cli, record_options_after_an_error_are_still_honoured)
{
	char *argv[] = { "run", "--tme", "1", "--json", "-r", "out.json", "ls", NULL };
	struct cli_options o;

	parse_bad(ARGC(argv), argv, &o, "--tme");
	cr_expect(o.json);
	cr_expect_str_eq(o.result_dest, "out.json");
	cli_options_free(&o);
}

Test(cli, limits_apply_in_command_line_order_with_their_origin)
{
	char *argv[] = { "run", "--set", "limits.wall_time_ms=1000", "-t", "3s",
		"--output", "1K", "ls", NULL };
	struct policy p;

	cr_assert_eq(apply("limits { wall_time_ms: 9000 }", ARGC(argv), argv, &p), 0,
		     "%s", err.msg);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], 3000);
	cr_expect_str_eq(p.limits.at[LIM_WALL_TIME_MS].file, "<command line>");
	cr_expect_str_eq(p.limits.at[LIM_WALL_TIME_MS].option, "--time");
	cr_expect_eq(p.limits.v[LIM_OUTPUT_BYTES], 1024);
	cr_expect_eq(p.nclamped, 0);
	policy_free(&p);
}

Test(cli, a_limit_above_max_limits_is_clamped_and_recorded)
{
	char *argv[] = { "run", "--time", "10s", "--memory", "1G", "ls", NULL };
	struct policy p;

	cr_assert_eq(apply("max_limits { wall_time_ms: 5000 memory_mb: 2048 }",
			   ARGC(argv), argv, &p), 0, "%s", err.msg);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], 5000);
	cr_expect_eq(p.limits.v[LIM_MEMORY_MB], 1024);
	cr_assert_eq(p.nclamped, 1);
	cr_expect_eq(p.clamped[0].id, LIM_WALL_TIME_MS);
	cr_expect_eq(p.clamped[0].requested, 10000);
	cr_expect_eq(p.clamped[0].effective, 5000);
	policy_free(&p);
}

Test(cli, a_later_lower_override_lifts_the_clamp_record)
{
	char *argv[] = { "run", "--time", "10s", "--time", "1s", "ls", NULL };
	struct policy p;

	cr_assert_eq(apply("max_limits { wall_time_ms: 5000 }", ARGC(argv), argv, &p), 0);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], 1000);
	cr_expect_eq(p.nclamped, 0);
	policy_free(&p);
}

#define SEALED "name: \"locked\" sealed: true limits { wall_time_ms: 5000 }"

static void expect_sealed_refusal(char *opt, char *value)
{
	char *argv[] = { "run", opt, value, "ls", NULL };
	struct policy p;

	cr_expect_eq(apply(SEALED, ARGC(argv), argv, &p), -1, "%s %s accepted", opt, value);
	cr_expect_eq(err.kind, ERR_CONFIG);
	cr_expect(strstr(err.msg, "policy 'locked' is sealed"), "%s", err.msg);
	cr_expect(strstr(err.msg, "would loosen it"), "%s", err.msg);
	policy_free(&p);
}

static void expect_sealed_accepts(char *opt, char *value)
{
	char *argv[] = { "run", opt, value, "ls", NULL };
	struct policy p;

	cr_expect_eq(apply(SEALED, ARGC(argv), argv, &p), 0, "%s %s: %s", opt, value, err.msg);
	policy_free(&p);
}

/* on a sealed policy the command line can only tighten */
Test(cli, a_sealed_policy_refuses_every_loosening_override)
{
	expect_sealed_refusal("--time", "10s");
	expect_sealed_refusal("--time", "unlimited");
	expect_sealed_refusal("--set", "limits.wall_time_ms=6000");
	expect_sealed_refusal("--net", "host");
	expect_sealed_refusal("--net", "loopback");
	expect_sealed_refusal("-b", "/etc");
	expect_sealed_refusal("-B", "/tmp");
	expect_sealed_refusal("--tmpfs", "/x");
	expect_sealed_refusal("--seccomp-allow", "ptrace");
	expect_sealed_refusal("-e", "LD_PRELOAD=/x.so");
	expect_sealed_refusal("--env-keep", "HOME");
	expect_sealed_refusal("--set", "sealed=false");
	expect_sealed_refusal("--set", "hostname=x");
	expect_sealed_refusal("-w", "/tmp");
}

Test(cli, a_sealed_policy_accepts_tightening_overrides)
{
	expect_sealed_accepts("--time", "2s");
	expect_sealed_accepts("--set", "limits.wall_time_ms=100");
	expect_sealed_accepts("--net", "none");
	expect_sealed_accepts("--seccomp-deny", "ptrace");
	expect_sealed_accepts("-C", "/tmp");
	expect_sealed_accepts("--memory", "16M");
}

Test(cli, bind_source_is_made_absolute_and_is_the_default_destination)
{
	char *argv[] = { "run", "-b", "./sub", "-B", "/data:/mnt/in", "ls", NULL };
	char cwd[PATH_MAX], want[PATH_MAX + 8];
	struct policy p;
	size_t base;

	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/sub", strcmp(cwd, "/") ? cwd : "");
	load("", &p);
	base = p.nmounts;
	policy_free(&p);
	cr_assert_eq(apply("", ARGC(argv), argv, &p), 0, "%s", err.msg);
	cr_assert_eq(p.nmounts, base + 2);
	/* the table is sorted parents first: find the two by their option */
	const struct mount_entry *ro = NULL, *rw = NULL;
	for (size_t i = 0; i < p.nmounts; i++) {
		if (p.mounts[i].at.option && !strcmp(p.mounts[i].at.option, "--bind"))
			ro = &p.mounts[i];
		if (p.mounts[i].at.option && !strcmp(p.mounts[i].at.option, "--bind-rw"))
			rw = &p.mounts[i];
	}
	cr_assert(ro && rw);
	cr_expect_str_eq(ro->src, want);
	cr_expect_str_eq(ro->dst, want);
	cr_expect(!ro->rw);
	cr_expect_str_eq(rw->src, "/data");
	cr_expect_str_eq(rw->dst, "/mnt/in");
	cr_expect(rw->rw);
	policy_free(&p);
}

Test(cli, bind_destination_must_be_absolute)
{
	char *argv[] = { "run", "-b", "/usr:usr", "ls", NULL };
	struct policy p;

	cr_expect_eq(apply("", ARGC(argv), argv, &p), -1);
	cr_expect(strstr(err.msg, "--bind"), "%s", err.msg);
	policy_free(&p);
}

Test(cli, tmpfs_size_is_whole_mib)
{
	char *ok[] = { "run", "--tmpfs", "/scratch:64M", "ls", NULL };
	char *bad[] = { "run", "--tmpfs", "/scratch:1K", "ls", NULL };
	struct policy p;

	cr_assert_eq(apply("", ARGC(ok), ok, &p), 0, "%s", err.msg);
	cr_expect_str_eq(p.mounts[p.nmounts - 1].dst, "/scratch");
	cr_expect_eq(p.mounts[p.nmounts - 1].size_mb, 64);
	cr_expect_eq(p.mounts[p.nmounts - 1].type, MNT_TMPFS);
	policy_free(&p);
	cr_expect_eq(apply("", ARGC(bad), bad, &p), -1);
	cr_expect(strstr(err.msg, "multiple of 1M"), "%s", err.msg);
	policy_free(&p);
}

Test(cli, env_net_chdir_and_set_reach_the_policy)
{
	char *argv[] = { "run", "-e", "A=1", "--env-keep", "TERM", "--net", "loopback",
		"-C", "sub", "--set", "hostname=box", "--seccomp-deny", "@mount", "ls", NULL };
	struct policy p;

	cr_assert_eq(apply("workspace: \"/w\"", ARGC(argv), argv, &p), 0, "%s", err.msg);
	cr_expect_str_eq(p.env.v[p.env.n - 1], "A=1");
	cr_expect_str_eq(p.env.at[p.env.n - 1].option, "--env");
	cr_expect_str_eq(p.env_keep.v[p.env_keep.n - 1], "TERM");
	cr_expect_eq(p.network, NET_LOOPBACK);
	cr_expect_str_eq(p.cwd, "/w/sub");
	cr_expect_str_eq(p.hostname, "box");
	cr_expect_str_eq(p.seccomp.deny.v[p.seccomp.deny.n - 1], "@mount");
	policy_free(&p);
}

/* The option table says which override each option makes; a row that named
 * the wrong kind would apply --bind-rw as a read-only bind, say. */
Test(cli, each_policy_option_records_its_override_kind)
{
	char *argv[] = { "run", "--memory", "64M", "--net", "loopback",
		"--bind", "/usr", "-B", "/tmp:/x", "--tmpfs", "/t", "-C", "sub",
		"--set", "hostname=h", "-e", "A=1", "--env-keep", "HOME",
		"--seccomp-allow", "ptrace", "--seccomp-deny", "@mount", "true", NULL };
	const enum override_kind want[] = { OV_LIMIT, OV_NET, OV_BIND, OV_BIND_RW,
		OV_TMPFS, OV_CHDIR, OV_SET, OV_ENV, OV_ENV_KEEP, OV_SECCOMP_ALLOW,
		OV_SECCOMP_DENY };
	const char *const names[] = { "--memory", "--net", "--bind", "--bind-rw",
		"--tmpfs", "--chdir", "--set", "--env", "--env-keep",
		"--seccomp-allow", "--seccomp-deny" };
	struct cli_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_assert_eq(o.noverrides, 11);
	for (size_t i = 0; i < 11; i++) {
		cr_expect_eq(o.overrides[i].kind, want[i], "%s", names[i]);
		cr_expect_str_eq(o.overrides[i].option, names[i]);
	}
	cr_expect_eq(o.overrides[0].limit, LIM_MEMORY_MB);
	cr_expect_eq(o.overrides[0].number, 64);
	cli_options_free(&o);
}

Test(cli, lang_template_expands_file_args_and_workspace)
{
	const char *text = "workspace: \"/mnt/data\" lang { extensions: [\".py\"] "
		"run: [\"/usr/bin/python3\", \"-I\", \"{file}\", \"{args}\", \"--ws={workspace}\"] }";
	char *argv[] = { "run", "--lang", "py", "dir/hello.py", "a b", "c", NULL };
	struct cli_options o;
	struct policy p;
	char **cmd;

	load(text, &p);
	parse_ok(ARGC(argv), argv, &o);
	cr_assert_eq(lang_check_operands(o.command, o.ncommand, &err), 0, "%s", err.msg);
	cr_assert_eq(lang_expand(&p, &p.lang.run, "lang.run", o.command[0], o.command + 1,
				 o.ncommand - 1, &cmd, &err), 0, "%s", err.msg);
	cr_expect_str_eq(cmd[0], "/usr/bin/python3");
	cr_expect_str_eq(cmd[2], "/mnt/data/hello.py");
	cr_expect_str_eq(cmd[3], "a b");
	cr_expect_str_eq(cmd[4], "c");
	cr_expect_str_eq(cmd[5], "--ws=/mnt/data");
	cr_expect_null(cmd[6]);
	argv_free(cmd);
	cli_options_free(&o);
	policy_free(&p);
}

Test(cli, command_must_be_present_and_not_empty)
{
	char *none[] = { "run", "-q", NULL };
	char *empty[] = { "run", "--", "", NULL };
	struct cli_options o;
	struct policy p;
	char **cmd;

	load("", &p);
	parse_ok(ARGC(none), none, &o);
	cr_expect_eq(cli_command_argv(&o, &p, &cmd, &err), -1);
	cr_expect(strstr(err.msg, "missing COMMAND"), "%s", err.msg);
	cli_options_free(&o);
	parse_ok(ARGC(empty), empty, &o);
	cr_expect_eq(cli_command_argv(&o, &p, &cmd, &err), -1);
	cr_expect(strstr(err.msg, "empty"), "%s", err.msg);
	cli_options_free(&o);
	policy_free(&p);
}

Test(cli, lang_file_must_be_present_and_not_empty)
{
	char *none[] = { "run", "--lang", "py", NULL };
	char *empty[] = { "run", "--lang", "py", "", NULL };
	struct cli_options o;

	parse_ok(ARGC(none), none, &o);
	cr_expect_eq(lang_check_operands(o.command, o.ncommand, &err), -1);
	cr_expect(strstr(err.msg, "missing FILE"), "%s", err.msg);
	cli_options_free(&o);
	parse_ok(ARGC(empty), empty, &o);
	cr_expect_eq(lang_check_operands(o.command, o.ncommand, &err), -1);
	cr_expect(strstr(err.msg, "FILE is empty"), "%s", err.msg);
	cli_options_free(&o);
}

Test(cli, lang_auto_picks_the_preset_by_extension)
{
	char *argv[] = { "run", "--lang", "auto", "x/hello.py", NULL };
	struct cli_options o;
	struct policy p;

	parse_ok(ARGC(argv), argv, &o);
	cr_assert_eq(effective_policy(&o, &p, &err), 0, "%s", err.msg);
	cr_expect(p.lang.present);
	cr_expect_str_eq(p.name, "py");
	policy_free(&p);
	cli_options_free(&o);
}

Test(cli, lang_auto_with_an_unknown_extension_lists_the_presets)
{
	char *argv[] = { "run", "--lang", "auto", "x/hello.zzz", NULL };
	struct cli_options o;
	struct policy p;

	parse_ok(ARGC(argv), argv, &o);
	cr_expect_eq(effective_policy(&o, &p, &err), -1);
	cr_expect_eq(err.kind, ERR_CONFIG);
	cr_expect(strstr(err.msg, "'.zzz'"), "%s", err.msg);
	cr_expect(strstr(err.msg, "available: "), "%s", err.msg);
	cr_expect(strstr(err.msg, "py (.py"), "%s", err.msg);
	cli_options_free(&o);
}

Test(cli, did_you_mean_finds_near_words_only)
{
	const char *const cands[] = { "run", "check", "explain", "langs" };

	cr_expect_str_eq(err_suggest("rn", cands, 4), "run");
	cr_expect_str_eq(err_suggest("chekc", cands, 4), "check");
	cr_expect_str_eq(err_suggest("explian", cands, 4), "explain");
	cr_expect_null(err_suggest("frobnicate", cands, 4));
}

Test(cli, extension_of_a_path)
{
	cr_expect_str_eq(lang_extension("a/b.c/hello.py"), ".py");
	cr_expect_str_eq(lang_extension("a.d/Makefile"), "");
	cr_expect_str_eq(lang_extension(".bashrc"), "");
}

/* A bind over the workspace would hide it; a host /proc over the jail's
 * would show host processes. */
Test(cli, mounts_over_reserved_paths_are_refused)
{
	char *over_ws[] = { "run", "-B", "/tmp:/mnt/data", "true", NULL };
	char *over_proc[] = { "run", "-b", "/proc", "true", NULL };
	char *beside[] = { "run", "-b", "/tmp:/mnt/data/in", "true", NULL };
	struct cli_options o;
	struct policy p;

	setenv("XDG_CONFIG_HOME", "/nonexistent-sbx-test", 1);
	parse_ok(ARGC(over_ws), over_ws, &o);
	cr_expect_eq(effective_policy(&o, &p, &err), -1);
	cr_expect(strstr(err.msg, "--bind-rw") && strstr(err.msg, "workspace"), "%s", err.msg);
	cli_options_free(&o);

	parse_ok(ARGC(over_proc), over_proc, &o);
	cr_expect_eq(effective_policy(&o, &p, &err), -1);
	cr_expect(strstr(err.msg, "/proc") && strstr(err.msg, "host processes"), "%s", err.msg);
	cli_options_free(&o);

	parse_ok(ARGC(beside), beside, &o);
	cr_expect_eq(effective_policy(&o, &p, &err), 0, "%s", err.msg);
	policy_free(&p);
	cli_options_free(&o);
}
