/*
 * test_policy_builtin.c - the built-in policies, the canonical writer
 * (round trip), --set, and the broken fixtures in tests/policy-bad/.
 */
#include <dirent.h>
#include <limits.h>

#include "policy/builtin.h"
#include "test_policy_util.h"

static void hide_user_config(void)
{
	/* the host's ~/.config/sbx must not change what the built-ins are */
	setenv("XDG_CONFIG_HOME", "/nonexistent-sbx-test", 1);
}

TestSuite(policy_builtin, .init = hide_user_config);

static void round_trip(const struct policy *p)
{
	struct sbx_err err = { 0 };
	struct policy q;
	char *text = policy_text(p);

	cr_assert_eq(policy_load_text("/nonexistent-sbx-test/rt.policy", text, strlen(text), &q,
				      &err), 0, "written text does not load: %s\n%s", err.msg, text);
	cr_assert(policy_equal(p, &q), "round trip changed the policy:\n%s", text);
	policy_free(&q);
	free(text);
}

Test(policy_builtin, every_builtin_loads_and_round_trips)
{
	cr_assert_geq(builtin_policies_count, 9);
	for (size_t i = 0; i < builtin_policies_count; i++) {
		struct sbx_err err = { 0 };
		struct policy p;

		cr_assert_eq(policy_load(builtin_policies[i].name, &p, &err), 0, "%s: %s",
			     builtin_policies[i].name, err.msg);
		cr_assert_eq(strlen(builtin_policies[i].text), builtin_policies[i].len);
		round_trip(&p);
		policy_free(&p);
	}
}

Test(policy_builtin, builtin_find)
{
	cr_assert_not_null(builtin_find("default"));
	cr_assert_not_null(builtin_find("py"));
	cr_assert_null(builtin_find("nope"));
	cr_assert_null(builtin_find(NULL));
}

Test(policy_builtin, default_is_the_documented_code_execution_sandbox)
{
	static const char *const deny[] = {
		"@mount", "@debug", "@keyring", "@module", "@reboot", "@swap", "@clock",
		"@obsolete", "@privileged-ns", "@io-uring", "@raw-io", "@cpu-emulation",
	};
	struct sbx_err err = { 0 };
	struct policy p;

	cr_assert_eq(policy_load("default", &p, &err), 0, "%s", err.msg);
	cr_assert_str_eq(p.source, "builtin:default");
	cr_assert_str_eq(p.workspace, "/mnt/data");
	cr_assert_null(p.cwd, "the workspace is the working directory");
	cr_assert_eq(p.uid, 65534);
	cr_assert_eq(p.network, NET_NONE);
	cr_assert_str_eq(p.mounts[0].dst, "/tmp");
	cr_assert_eq(p.mounts[0].size_mb, 20);
	cr_assert(p.mounts[0].rw);
	/* writable: /tmp and the sized /dev/shm (POSIX shm) only */
	for (size_t i = 1; i < p.nmounts; i++)
		cr_assert(!p.mounts[i].rw || !strcmp(p.mounts[i].dst, "/dev/shm"),
			  "%s must be read-only", p.mounts[i].dst);
	cr_assert_str_eq(p.mounts[p.nmounts - 1].dst, "/dev/shm");
	cr_assert_eq(p.mounts[p.nmounts - 1].type, MNT_TMPFS);
	cr_assert_eq(p.mounts[p.nmounts - 1].size_mb, 64);
	for (size_t i = 0; i < p.nmounts; i++)
		cr_assert(strcmp(p.mounts[i].dst, "/etc"), "/etc is synthesized by the jail");
	cr_assert_eq(p.seccomp.default_action, SC_ERRNO);
	cr_assert_eq(p.seccomp.errno_value, 38);
	cr_assert_eq(p.seccomp.allow.n, 1);
	cr_assert_str_eq(p.seccomp.allow.v[0], "@default");
	cr_assert_eq(p.seccomp.deny.n, sizeof(deny) / sizeof(deny[0]));
	for (size_t i = 0; i < p.seccomp.deny.n; i++)
		cr_assert_str_eq(p.seccomp.deny.v[i], deny[i]);
	for (int i = 0; i < LIM_COUNT; i++)
		if (i != LIM_CPU_TIME_MS)
			cr_assert_eq(policy_limit(&p, (enum limit_id)i),
				     limit_default((enum limit_id)i), "%s", limit_names[i]);
	/* no cpu_time_ms: the wall limit on every CPU sbx may use */
	cr_assert_eq(p.limits.v[LIM_CPU_TIME_MS], 0);
	cr_assert_eq(policy_limit(&p, LIM_CPU_TIME_MS), 10000ull * policy_cpu_count());
	policy_free(&p);
}

Test(policy_builtin, language_presets_have_run_templates)
{
	static const char *const langs[] = { "py", "node", "sh", "bash", "perl", "c", "cpp" };

	for (size_t i = 0; i < sizeof(langs) / sizeof(langs[0]); i++) {
		struct sbx_err err = { 0 };
		struct policy p;

		cr_assert_eq(policy_load(langs[i], &p, &err), 0, "%s", err.msg);
		cr_assert(p.lang.present && p.lang.run.n > 0 && p.lang.extensions.n > 0, "%s", langs[i]);
		cr_assert_str_eq(p.name, langs[i]);
		policy_free(&p);
	}
}

Test(policy_builtin, writer_names_every_origin)
{
	struct sbx_err err = { 0 };
	struct policy p;
	struct origin cli = { "<command line>", 0, 0, "--time" };
	char *text;

	cr_assert_eq(policy_load("py", &p, &err), 0, "%s", err.msg);
	cr_assert_eq(policy_set_field(&p, "limits.wall_time_ms=2000", &cli, &err), 0, "%s", err.msg);
	text = policy_text(&p);
	cr_assert(strstr(text, "name: \"py\"  # from py.policy:4\n"), "%s", text);
	cr_assert(strstr(text, "wall_time_ms: 2000  # from --time\n"), "%s", text);
	cr_assert(strstr(text, "sealed: false  # default\n"), "%s", text);
	cr_assert(strstr(text, "# include: \"default\"  # from py.policy:3\n"), "%s", text);
	policy_free(&p);
	free(text);
}

Test(policy_builtin, writer_shows_defaults_of_unset_limits_as_comments)
{
	struct policy p;
	char *text;

	load_ok("limits { memory_mb: unlimited }", &p);
	text = policy_text(&p);
	cr_assert(strstr(text, "  memory_mb: unlimited  # from x.policy:1\n"), "%s", text);
	cr_assert(strstr(text, "  # wall_time_ms: 10000  (default)\n"), "%s", text);
	round_trip(&p);
	policy_free(&p);
	free(text);
}

Test(policy_builtin, writer_escapes_hostile_strings)
{
	struct policy p;

	load_ok("description: \"a\\\"b\\\\c\\nd\\te\\001f\\x7f\\xc3\\xa9 # not a comment\"\n"
		"env: \"X=}\\n{\" mount { dst: \"/a b\" type: SYMLINK src: \"\\\"x\" }\n"
		"lang { run: [] }\n", &p);
	round_trip(&p);
	policy_free(&p);
}

Test(policy_builtin, set_field_parses_like_the_file)
{
	struct policy p;
	struct sbx_err err = { 0 };

	load_ok("", &p);
	cr_assert_eq(policy_set_field(&p, "hostname=box", NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(p.hostname, "box");
	cr_assert_str_eq(p.at[F_HOSTNAME].option, "--set");
	cr_assert_eq(policy_set_field(&p, "description='x y'", NULL, &err), 0, "%s", err.msg);
	cr_assert_str_eq(p.description, "x y");
	cr_assert_eq(policy_set_field(&p, "uid=1000", NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(p.uid, 1000);
	cr_assert_eq(policy_set_field(&p, "network=LOOPBACK", NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(p.network, NET_LOOPBACK);
	cr_assert_eq(policy_set_field(&p, "sealed=true", NULL, &err), 0, "%s", err.msg);
	cr_assert(p.sealed);
	cr_assert_eq(policy_set_field(&p, "max_limits.memory_mb=unlimited", NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(p.max_limits.v[LIM_MEMORY_MB], LIMIT_UNLIMITED);
	cr_assert_eq(policy_set_field(&p, "seccomp.errno=1", NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(p.seccomp.errno_value, 1);
	cr_assert_eq(policy_set_field(&p, "seccomp.default_action=KILL", NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(p.seccomp.default_action, SC_KILL);
	cr_assert_eq(policy_set_field(&p, "cwd=/mnt/data/x", NULL, &err), 0, "%s", err.msg);
	round_trip(&p);
	policy_free(&p);
}

static void set_fails(const char *assignment, const char *msg)
{
	struct policy p;
	struct sbx_err err = { 0 };

	load_ok("", &p);
	cr_assert_eq(policy_set_field(&p, assignment, NULL, &err), -1, "%s", assignment);
	cr_assert_str_eq(err.msg, msg);
	policy_free(&p);
}

Test(policy_builtin, set_field_errors)
{
	set_fails("limits.memroy_mb=5",
		  "--set: unknown field 'limits.memroy_mb' (did you mean 'limits.memory_mb'?)");
	set_fails("hostnme=x", "--set: unknown field 'hostnme' (did you mean 'hostname'?)");
	set_fails("limits.wall_time_ms=0", "--set limits.wall_time_ms: 'wall_time_ms' must be a "
		  "positive integer (0 is not allowed; use 'unlimited' to lift a limit)");
	set_fails("limits.wall_time_ms=-1", "--set limits.wall_time_ms: 'wall_time_ms' must be a "
		  "positive integer, got -1");
	set_fails("limits.wall_time_ms=2s", "--set limits.wall_time_ms: invalid number '2s'");
	set_fails("limits.wall_time_ms=604800001",
		  "--set limits.wall_time_ms: 'wall_time_ms' must be at most 604800000, got 604800001");
	set_fails("hostname=a b", "--set hostname: 'hostname' must be 1 to 64 characters of "
		  "A-Z a-z 0-9 '.' '-', got \"a b\"");
	set_fails("cwd=rel", "--set cwd: 'cwd' must be an absolute path (start with '/'), got \"rel\"");
	set_fails("uid=65536", "--set uid: 'uid' must be between 0 and 65535, got 65536");
	set_fails("network=none", "--set network: 'network' expects one of NONE, LOOPBACK or HOST, "
		  "got 'none' (did you mean 'NONE'?)");
	set_fails("sealed=1", "--set sealed: 'sealed' expects true or false, got an integer '1'");
	set_fails("uid=1 2", "--set uid: unexpected text after the value");
	set_fails("env=A=1", "--set: 'env' is not a scalar field; use the matching option "
		  "(--bind, --env, --policy)");
}

Test(policy_builtin, set_field_needs_an_assignment)
{
	struct policy p;
	struct sbx_err err = { 0 };

	load_ok("", &p);
	cr_assert_eq(policy_set_field(&p, "hostname", NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert_eq(policy_set_field(&p, "=x", NULL, &err), -1);
	policy_free(&p);
}

/* Each tests/policy-bad/NAME.policy says on line 1: "# expect: LINE:COL: fragment". */
static void check_fixture(const char *dir, const char *name)
{
	char path[PATH_MAX + 300], line[512], prefix[PATH_MAX + 800];
	struct sbx_err err = { 0 };
	struct policy p;
	const char *fragment;
	int l, c, off = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	cr_assert_eq(sscanf(line, "# expect: %d:%d: %n", &l, &c, &off), 2, "%s: bad expect line", path);
	fragment = line + off;
	cr_assert_eq(policy_load(path, &p, &err), -1, "%s loaded", path);
	cr_assert_eq(err.kind, ERR_CONFIG, "%s: %s", path, err.msg);
	snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", path, l, c);
	cr_assert(strncmp(err.msg, prefix, strlen(prefix)) == 0, "%s: expected '%s', got '%s'",
		  name, prefix, err.msg);
	cr_assert(strstr(err.msg, fragment), "%s: expected '%s' in '%s'", name, fragment, err.msg);
}

Test(policy_builtin, every_bad_fixture_fails_where_it_says)
{
	const char *src = getenv("SBX_SRC");
	char dir[400];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/tests/policy-bad", src ? src : ".");
	d = opendir(dir);
	cr_assert_not_null(d, "%s (run from the source tree or set SBX_SRC)", dir);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 7 && strcmp(e->d_name + len - 7, ".policy") == 0) {
			check_fixture(dir, e->d_name);
			n++;
		}
	}
	closedir(d);
	cr_assert_geq(n, 20);
}
