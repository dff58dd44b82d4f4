/*
 * test_policy_schema.c - the fields of sbx.policy(5): every field loads,
 * every wrong value is refused with its exact position, boundaries are
 * tested on both sides (the maximum loads, one past it fails).
 */
#include "test_policy_util.h"

Test(policy_schema, every_scalar_field_loads)
{
	struct policy p;

	load_ok("name: \"n\" description: \"d\" hostname: \"box-1.lan\" uid: 1000 gid: 100\n"
		"cwd: \"/mnt/data/src\" workspace: \"/work\" network: LOOPBACK sealed: true\n", &p);
	cr_assert_str_eq(p.hostname, "box-1.lan");
	cr_assert_eq(p.uid, 1000);
	cr_assert_eq(p.gid, 100);
	cr_assert_str_eq(p.cwd, "/mnt/data/src");
	cr_assert_str_eq(p.workspace, "/work");
	cr_assert_eq(p.network, NET_LOOPBACK);
	cr_assert(p.sealed);
	policy_free(&p);
}

Test(policy_schema, unknown_field_suggests_the_closest_name)
{
	/* a typo like memroy_mb must not silently run without a memory limit */
	load_fails("limits {\n  memroy_mb: 5\n}", "x.policy:2:3: ",
		   "unknown field 'memroy_mb' in 'limits' (did you mean 'memory_mb'?)");
	load_fails("hostnme: \"x\"", "x.policy:1:1: ", "unknown field 'hostnme' (did you mean 'hostname'?)");
	load_fails("mount { dts: \"/a\" type: PROC }", "x.policy:1:9: ",
		   "unknown field 'dts' in 'mount' (did you mean 'dst'?)");
	load_fails("seccomp { alow: \"read\" }", "x.policy:1:11: ", "(did you mean 'allow'?)");
	load_fails("lang { rnu: [] }", "x.policy:1:8: ", "(did you mean 'run'?)");
	load_fails("zzzzzzzz: 1", "x.policy:1:1: ", "unknown field 'zzzzzzzz'");
}

Test(policy_schema, wrong_types_are_refused)
{
	load_fails("hostname: 5", "x.policy:1:11: ", "'hostname' expects a string, got an integer '5'");
	load_fails("uid: \"5\"", "x.policy:1:6: ", "'uid' expects an integer, got a string");
	load_fails("sealed: 1", "x.policy:1:9: ", "'sealed' expects true or false");
	load_fails("sealed: yes", "x.policy:1:9: ", "'sealed' expects true or false");
	load_fails("network: none", "x.policy:1:10: ", "(did you mean 'NONE'?)");
	load_fails("network: \"NONE\"", "x.policy:1:10: ", "one of NONE, LOOPBACK or HOST");
	load_fails("limits: 5", "x.policy:1:9: ", "'limits' is a message");
	load_fails("hostname { }", "x.policy:1:10: ", "expects a string, got a message");
	load_fails("hostname: [\"a\"]", "x.policy:1:11: ", "not a repeated field");
	load_fails("env: 5", "x.policy:1:6: ", "'env' expects");
}

Test(policy_schema, duplicate_scalar_in_one_file_names_the_first)
{
	load_fails("hostname: \"a\"\nhostname: \"b\"", "x.policy:2:1: ",
		   "duplicate field 'hostname' (first set at x.policy:1:1)");
	load_fails("limits { memory_mb: 1 }\nlimits { memory_mb: 2 }", "x.policy:2:10: ",
		   "duplicate field 'limits.memory_mb' (first set at x.policy:1:10)");
	load_fails("seccomp { errno: 1 errno: 2 }", "x.policy:1:20: ", "duplicate field 'seccomp.errno'");
	load_fails("mount { dst: \"/a\" dst: \"/b\" type: PROC }", "x.policy:1:19: ",
		   "duplicate field 'dst' in 'mount'");
}

Test(policy_schema, separate_limit_blocks_merge)
{
	struct policy p;

	load_ok("limits { memory_mb: 1 }\nlimits { processes: 2 }", &p);
	cr_assert_eq(p.limits.v[LIM_MEMORY_MB], 1);
	cr_assert_eq(p.limits.v[LIM_PROCESSES], 2);
	policy_free(&p);
}

Test(policy_schema, limit_maximum_loads_and_one_past_fails)
{
	for (int i = 0; i < LIM_COUNT; i++) {
		char text[128], frag[128];
		struct policy p;

		snprintf(text, sizeof(text), "limits { %s: %llu }", limit_names[i],
			 (unsigned long long)limit_max[i]);
		load_ok(text, &p);
		cr_assert_eq(p.limits.v[i], limit_max[i]);
		policy_free(&p);
		snprintf(text, sizeof(text), "max_limits { %s: %llu }", limit_names[i],
			 (unsigned long long)limit_max[i] + 1);
		snprintf(frag, sizeof(frag), "'%s' must be at most %llu", limit_names[i],
			 (unsigned long long)limit_max[i]);
		load_fails(text, "x.policy:1:", frag);
	}
}

Test(policy_schema, zero_limit_is_refused_with_the_unlimited_hint)
{
	/* 0 means "no limit" to one popular tool and "nothing allowed" to another */
	load_fails("limits { wall_time_ms: 0 }", "x.policy:1:24: ",
		   "'wall_time_ms' must be a positive integer (0 is not allowed; use 'unlimited' to lift a limit)");
}

Test(policy_schema, negative_real_and_overflowing_limits_are_refused)
{
	load_fails("limits { cpu_time_ms: -1 }", "x.policy:1:23: ",
		   "'cpu_time_ms' must be a positive integer, got -1");
	load_fails("limits { cpu_time_ms: 1.5 }", "x.policy:1:23: ",
		   "'cpu_time_ms' must be a positive integer, got 1.5");
	load_fails("limits { memory_mb: 1e308 }", "x.policy:1:21: ", "got 1e308");
	load_fails("limits { memory_mb: 18446744073709551616 }", "x.policy:1:21: ", "out of range");
	load_fails("limits { memory_mb: 18446744073709551615 }", "x.policy:1:21: ", "must be at most");
	load_fails("limits { memory_mb: \"5\" }", "x.policy:1:21: ",
		   "expects a positive integer or 'unlimited'");
	load_fails("limits { memory_mb: infinite }", "x.policy:1:21: ", "got an identifier 'infinite'");
}

Test(policy_schema, unlimited_lifts_a_limit)
{
	struct policy p;

	load_ok("limits { wall_time_ms: unlimited }", &p);
	cr_assert_eq(p.limits.v[LIM_WALL_TIME_MS], LIMIT_UNLIMITED);
	cr_assert_eq(policy_limit(&p, LIM_WALL_TIME_MS), LIMIT_UNLIMITED);
	policy_free(&p);
}

Test(policy_schema, output_bytes_must_fit_the_truncation_marker)
{
	struct policy p;

	load_fails("limits { output_bytes: 63 }", "x.policy:1:24: ", "must be at least 64");
	load_ok("limits { output_bytes: 64 }", &p);
	policy_free(&p);
}

Test(policy_schema, ids_are_single_mapped_so_at_most_65535)
{
	load_fails("uid: 65536", "x.policy:1:6: ", "'uid' must be between 0 and 65535, got 65536");
	load_fails("gid: -1", "x.policy:1:6: ", "'gid' must be between 0 and 65535, got -1");
}

Test(policy_schema, hostname_rules)
{
	struct policy p;
	char text[128];

	load_fails("hostname: \"\"", "x.policy:1:11: ", "'hostname' must be 1 to 64 characters");
	load_fails("hostname: \"a b\"", "x.policy:1:11: ", "'hostname' must be");
	load_fails("hostname: \"a_b\"", "x.policy:1:11: ", "'hostname' must be");
	snprintf(text, sizeof(text), "hostname: \"%064d\"", 7);
	load_ok(text, &p);
	policy_free(&p);
	snprintf(text, sizeof(text), "hostname: \"%065d\"", 7);
	load_fails(text, "x.policy:1:11: ", "'hostname' must be");
}

Test(policy_schema, paths_must_be_absolute_and_normalized)
{
	/* '..' or '//' in a jail path could resolve outside what the reader expects */
	load_fails("cwd: \"\"", "x.policy:1:6: ", "'cwd' must not be empty");
	load_fails("cwd: \"rel\"", "x.policy:1:6: ", "must be an absolute path");
	load_fails("cwd: \"/a/../b\"", "x.policy:1:6: ", "no '.' or '..' components");
	load_fails("cwd: \"/a/..\"", "x.policy:1:6: ", "no '.' or '..' components");
	load_fails("cwd: \"/a/./b\"", "x.policy:1:6: ", "no '.' or '..' components");
	load_fails("workspace: \"/a//b\"", "x.policy:1:12: ", "no '//'");
	load_fails("workspace: \"/a/\"", "x.policy:1:12: ", "no trailing '/'");
	load_fails("workspace: \"/a\\nb\"", "x.policy:1:12: ", "control characters");
	load_fails("mount { dst: \"tmp\" type: TMPFS }", "x.policy:1:14: ", "'mount.dst' must be an absolute");
}

Test(policy_schema, dotted_names_are_not_dot_components)
{
	struct policy p;

	load_ok("cwd: \"/a/.hidden/..b/b..\"", &p);
	policy_free(&p);
}

Test(policy_schema, mount_entries)
{
	struct policy p;

	load_ok("mount { dst: \"/t\" type: TMPFS size_mb: 5 rw: true noexec: true }\n"
		"mount { dst: \"/u\" type: BIND src: \"/usr\" optional: true }\n"
		"mount { dst: \"/l\" type: SYMLINK src: \"usr/lib\" }\n"
		"mount { dst: \"/p\" type: PROC }\nmount { dst: \"/d\" type: DEV }\n", &p);
	cr_assert_eq(p.nmounts, 5);
	cr_assert_eq(p.mounts[0].type, MNT_TMPFS);
	cr_assert(p.mounts[0].rw && p.mounts[0].noexec);
	cr_assert_eq(p.mounts[0].size_mb, 5);
	cr_assert_str_eq(p.mounts[1].src, "/usr");
	cr_assert(p.mounts[1].optional);
	cr_assert_str_eq(p.mounts[2].src, "usr/lib");
	cr_assert_eq(p.mounts[3].at.line, 4);
	policy_free(&p);
}

Test(policy_schema, mount_errors)
{
	load_fails("mount { dst: \"/a\" }", "x.policy:1:1: ", "'mount' needs a 'type'");
	load_fails("mount { type: PROC }", "x.policy:1:1: ", "'mount' needs a 'dst'");
	load_fails("mount { dst: \"/a\" type: BIND }", "x.policy:1:1: ", "type BIND needs a non-empty 'src'");
	load_fails("mount { dst: \"/a\" type: BIND src: \"rel\" }", "x.policy:1:35: ",
		   "'mount.src' must be an absolute path");
	load_fails("mount { dst: \"/a\" type: SYMLINK src: \"\" }", "x.policy:1:1: ", "SYMLINK needs a non-empty 'src'");
	load_fails("mount { dst: \"/a\" type: TMPFS src: \"/x\" }", "x.policy:1:36: ", "'src' is not used by TMPFS");
	load_fails("mount { dst: \"/a\" type: PROC size_mb: 1 }", "x.policy:1:30: ", "only for TMPFS mounts");
	/* DEV's size_mb promised a shm tmpfs that was never mounted */
	load_fails("mount { dst: \"/dev\" type: DEV size_mb: 8 }", "x.policy:1:31: ",
		   "mount { dst: \"/dev/shm\" type: TMPFS");
	load_fails("mount { dst: \"/a\" type: TMPFS size_mb: 0 }", "x.policy:1:40: ", "between 1 and");
	load_fails("mount { dst: \"/a\" type: OVERLAY }", "x.policy:1:25: ", "one of BIND, TMPFS, PROC, DEV or SYMLINK");
	load_fails("mount: \"/a\"", "x.policy:1:8: ", "'mount' entries are messages");
}

Test(policy_schema, mount_on_root_is_refused)
{
	/* the root is always a fresh tmpfs; binding the host's / would expose everything */
	load_fails("mount { dst: \"/\" type: BIND src: \"/\" }", "x.policy:1:14: ", "must not be \"/\"");
}

Test(policy_schema, duplicate_mount_dst_in_one_file_is_refused)
{
	load_fails("mount { dst: \"/a\" type: PROC }\nmount { type: TMPFS dst: \"/a\" }",
		   "x.policy:2:26: ", "duplicate mount destination '/a' (first set at x.policy:1:14)");
}

Test(policy_schema, env_entries)
{
	struct policy p;

	load_ok("env: \"A=1\" env: \"B=\" env: \"C=x=y\" env_keep: [\"TERM\", \"TERM\", \"_X1\"]", &p);
	cr_assert_eq(p.env.n, 3);
	cr_assert_str_eq(p.env.v[2], "C=x=y");
	cr_assert_eq(p.env_keep.n, 2, "a name kept twice is kept once");
	policy_free(&p);
	load_fails("env: \"NOEQUALS\"", "x.policy:1:6: ", "\"NAME=VALUE\"");
	load_fails("env: \"1A=x\"", "x.policy:1:6: ", "not a valid variable name");
	load_fails("env: \"=x\"", "x.policy:1:6: ", "not a valid variable name");
	load_fails("env: \"A-B=x\"", "x.policy:1:6: ", "not a valid variable name");
	load_fails("env_keep: \"A=B\"", "x.policy:1:11: ", "not a valid variable name");
	load_fails("env: \"A=1\"\nenv: \"A=2\"", "x.policy:2:6: ", "duplicate env variable 'A'");
}

Test(policy_schema, seccomp_block)
{
	struct policy p;

	load_ok("seccomp { default_action: KILL errno: 4095 deny_action: ALLOW\n"
		"allow: [\"read\", \"@default\", \"read\"] deny: \"@privileged-ns\" }", &p);
	cr_assert_eq(p.seccomp.default_action, SC_KILL);
	cr_assert_eq(p.seccomp.errno_value, 4095);
	cr_assert_eq(p.seccomp.deny_action, SC_ALLOW);
	cr_assert_eq(p.seccomp.allow.n, 2);
	cr_assert_str_eq(p.seccomp.deny.v[0], "@privileged-ns");
	policy_free(&p);
	load_fails("seccomp { errno: 0 }", "x.policy:1:18: ", "between 1 and 4095");
	load_fails("seccomp { errno: 4096 }", "x.policy:1:18: ", "between 1 and 4095");
	load_fails("seccomp { default_action: DENY }", "x.policy:1:27: ", "one of ALLOW, ERRNO or KILL");
	load_fails("seccomp { allow: \"Read\" }", "x.policy:1:18: ", "is not a syscall name");
	load_fails("seccomp { deny: \"@\" }", "x.policy:1:17: ", "is not a syscall name");
	load_fails("seccomp { deny: \"@a_b\" }", "x.policy:1:17: ", "is not a syscall name");
	load_fails("seccomp { deny: \"\" }", "x.policy:1:17: ", "is not a syscall name");
}

Test(policy_schema, seccomp_defaults_fail_closed)
{
	struct policy p;

	load_ok("", &p);
	cr_assert_eq(p.seccomp.default_action, SC_ERRNO);
	cr_assert_eq(p.seccomp.errno_value, 38);
	policy_free(&p);
}

Test(policy_schema, lang_block)
{
	struct policy p;

	load_ok("lang { extensions: [\".c\", \".h\"] compile: [\"/usr/bin/gcc\", \"{file}\"]\n"
		"run: \"{out}\" run: \"{args}\" version: [\"/usr/bin/gcc\", \"--version\"]\n"
		"compile_limits { wall_time_ms: 30000 memory_mb: unlimited } }", &p);
	cr_assert(p.lang.present);
	cr_assert_eq(p.lang.extensions.n, 2);
	cr_assert_eq(p.lang.run.n, 2, "repeated fields repeat within one file");
	cr_assert_eq(p.lang.compile_limits.v[LIM_WALL_TIME_MS], 30000);
	cr_assert_eq(p.lang.compile_limits.v[LIM_MEMORY_MB], LIMIT_UNLIMITED);
	policy_free(&p);
	load_fails("lang { extensions: \"py\" }", "x.policy:1:20: ", "must look like \".py\"");
	load_fails("lang { compile_limits { wall_time_ms: 0 } }", "x.policy:1:39: ", "0 is not allowed");
	load_fails("lang { compile_limits { memroy_mb: 1 } }", "x.policy:1:25: ",
		   "unknown field 'memroy_mb' in 'lang.compile_limits' (did you mean 'memory_mb'?)");
	load_fails("lang { run: 5 }", "x.policy:1:13: ", "'lang.run' expects a string");
}

Test(policy_schema, include_must_be_a_string)
{
	load_fails("include: 5", "x.policy:1:10: ", "'include' expects a policy name");
	/* a name no test run can have lying around one level up */
	load_fails("include: \"../sbx-test-no-such-policy\"", "x.policy:1:10: ", "not found");
	load_fails("include: \"a b\"", "x.policy:1:10: ", "is not a policy name");
	load_fails("limits { include: \"default\" }", "x.policy:1:10: ", "unknown field 'include'");
}
