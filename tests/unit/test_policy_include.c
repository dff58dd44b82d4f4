/*
 * test_policy_include.c - include resolution, override order, cycles,
 * missing files and the depth limit.  Each test works in its own temp dir
 * with XDG_CONFIG_HOME pointing into it, so the host's files never matter.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "policy/builtin.h"
#include "test_policy_util.h"

static char dir[64];

static void setup_dir(void)
{
	char xdg[128];

	strcpy(dir, "/tmp/sbx-policy-test-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	mkdir(xdg, 0700);
	strcat(xdg, "/sbx");
	mkdir(xdg, 0700);
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	setenv("XDG_CONFIG_HOME", xdg, 1);
}

static void teardown_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(policy_include, .init = setup_dir, .fini = teardown_dir);

static char *path_of(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(path_of(name), "w");

	cr_assert_not_null(f, "%s", path_of(name));
	fputs(text, f);
	fclose(f);
}

/* How many mounts the built-in default has (the file may grow). */
static size_t builtin_mount_count(void)
{
	const struct builtin_policy *b = builtin_find("default");
	struct sbx_err err = { 0 };
	struct policy p;
	size_t n;

	cr_assert_not_null(b);
	cr_assert_eq(policy_load_text("default.policy", b->text, b->len, &p, &err), 0, "%s", err.msg);
	n = p.nmounts;
	policy_free(&p);
	return n;
}

static void load_path_ok(const char *name, struct policy *p)
{
	struct sbx_err err = { 0 };

	cr_assert_eq(policy_load(name, p, &err), 0, "%s", err.msg);
}

static void load_path_fails(const char *name, const char *msg)
{
	struct sbx_err err = { 0 };
	struct policy p;

	cr_assert_eq(policy_load(name, &p, &err), -1, "expected: %s", msg);
	cr_assert_eq(err.kind, ERR_CONFIG);
	cr_assert_str_eq(err.msg, msg);
}

Test(policy_include, own_fields_override_the_included_policy)
{
	struct policy p;

	put("a.policy", "hostname: \"inner\"\nmount { dst: \"/tmp\" type: TMPFS size_mb: 100 }\n"
			"include: \"default\"\n");
	load_path_ok(path_of("a.policy"), &p);
	cr_assert_str_eq(p.hostname, "inner");
	cr_assert_str_eq(p.at[F_HOSTNAME].file, path_of("a.policy"));
	cr_assert_eq(p.mounts[0].size_mb, 100, "same dst replaces in place");
	cr_assert_str_eq(p.mounts[0].dst, "/tmp");
	cr_assert_str_eq(p.mounts[p.nmounts - 1].dst, "/dev/shm", "other mounts stay");
	cr_assert_str_eq(p.limits.at[LIM_MEMORY_MB].file, "default.policy");
	cr_assert_eq(p.includes.n, 1);
	cr_assert_str_eq(p.includes.v[0], "default");
	cr_assert_str_eq(p.source, path_of("a.policy"));
	policy_free(&p);
}

Test(policy_include, duplicate_scalars_across_files_are_overrides_not_errors)
{
	struct policy p;

	put("b.policy", "hostname: \"b\"\nenv: \"A=1\"\nenv: \"B=1\"\nenv_keep: \"T\"\n"
			"lang { run: [\"x\", \"y\"] extensions: \".b\" }\nseccomp { deny: \"ptrace\" }\n");
	put("a.policy", "include: \"b.policy\"\nhostname: \"a\"\nenv: \"A=2\"\nenv: \"C=3\"\n"
			"env_keep: [\"T\", \"U\"]\nlang { run: \"z\" }\nseccomp { deny: [\"bpf\", \"ptrace\"] }\n");
	load_path_ok(path_of("a.policy"), &p);
	cr_assert_str_eq(p.hostname, "a");
	cr_assert_eq(p.env.n, 3);
	cr_assert_str_eq(p.env.v[0], "A=2", "env replaces by NAME, in place");
	cr_assert_str_eq(p.env.v[2], "C=3");
	cr_assert_eq(p.env_keep.n, 2);
	cr_assert_eq(p.lang.run.n, 1, "argv templates replace");
	cr_assert_str_eq(p.lang.run.v[0], "z");
	cr_assert_eq(p.lang.extensions.n, 1, "untouched lang lists are inherited");
	cr_assert_eq(p.seccomp.deny.n, 2, "deny lists append as a set");
	policy_free(&p);
}

Test(policy_include, relative_paths_resolve_from_the_including_file)
{
	struct policy p;

	mkdir(path_of("sub"), 0700);
	put("sub/c.policy", "include: \"../d.policy\"\nname: \"c\"\n");
	put("d.policy", "hostname: \"d\"\n");
	put("main.policy", "include: \"sub/c.policy\"\n");
	load_path_ok(path_of("main.policy"), &p);
	cr_assert_str_eq(p.name, "c");
	cr_assert_str_eq(p.hostname, "d");
	policy_free(&p);
}

Test(policy_include, user_config_overrides_and_can_extend_a_builtin)
{
	struct policy p;

	/* ~/.config/sbx/default.policy including "default" gets the built-in one */
	put("xdg/sbx/default.policy", "include: \"default\"\nhostname: \"mine\"\n");
	load_path_ok("default", &p);
	cr_assert_str_eq(p.hostname, "mine");
	cr_assert_str_eq(p.source, path_of("xdg/sbx/default.policy"));
	cr_assert_eq(p.nmounts, builtin_mount_count());
	policy_free(&p);
	load_path_ok("py", &p);
	cr_assert_str_eq(p.hostname, "mine", "a built-in's include sees the override too");
	cr_assert_str_eq(p.source, "builtin:py");
	policy_free(&p);
}

Test(policy_include, include_cycle_names_the_chain_at_the_include)
{
	char msg[1024];

	put("a.policy", "name: \"a\"\ninclude: \"b.policy\"\n");
	put("b.policy", "\n  include: 'a.policy'\n");
	snprintf(msg, sizeof(msg), "%s:2:12: include cycle: %s -> %s -> %s", path_of("b.policy"),
		 path_of("a.policy"), path_of("b.policy"), path_of("a.policy"));
	load_path_fails(path_of("a.policy"), msg);
}

Test(policy_include, self_include_is_a_cycle)
{
	char msg[1024];

	put("s.policy", "include: \"s.policy\"\n");
	snprintf(msg, sizeof(msg), "%s:1:10: include cycle: %s -> %s", path_of("s.policy"),
		 path_of("s.policy"), path_of("s.policy"));
	load_path_fails(path_of("s.policy"), msg);
}

Test(policy_include, cycle_through_names_is_reported)
{
	char msg[1024];

	put("xdg/sbx/ca.policy", "include: \"cb\"\n");
	put("xdg/sbx/cb.policy", "include: \"ca\"\n");
	snprintf(msg, sizeof(msg), "%s:1:10: include cycle: %s -> %s -> %s",
		 path_of("xdg/sbx/cb.policy"), path_of("xdg/sbx/ca.policy"),
		 path_of("xdg/sbx/cb.policy"), path_of("xdg/sbx/ca.policy"));
	load_path_fails("ca", msg);
}

Test(policy_include, missing_include_lists_where_it_looked)
{
	char msg[1024];

	put("m.policy", "name: \"m\"\n include: \"nope\"\n");
	snprintf(msg, sizeof(msg), "%s:2:11: policy 'nope' not found (looked for "
		 "%s, /etc/sbx/nope.policy, built-in 'nope', %s)", path_of("m.policy"),
		 path_of("xdg/sbx/nope.policy"), path_of("nope.policy"));
	load_path_fails(path_of("m.policy"), msg);
}

Test(policy_include, missing_path_include)
{
	char msg[512];

	put("m.policy", "include: \"gone/x.policy\"\n");
	snprintf(msg, sizeof(msg), "%s:1:10: policy file gone/x.policy not found", path_of("m.policy"));
	load_path_fails(path_of("m.policy"), msg);
}

Test(policy_include, missing_top_level_policy)
{
	struct sbx_err err = { 0 };
	struct policy p;

	cr_assert_eq(policy_load("no-such-policy", &p, &err), -1);
	cr_assert(strstr(err.msg, "policy 'no-such-policy' not found (looked for "), "%s", err.msg);
	cr_assert_eq(policy_load("/nonexistent/x.policy", &p, &err), -1);
	cr_assert_str_eq(err.msg, "policy file /nonexistent/x.policy not found");
}

Test(policy_include, errors_inside_an_included_file_name_that_file)
{
	char msg[512];

	put("bad.policy", "\nlimits { memory_mb: 0 }\n");
	put("top.policy", "include: \"bad.policy\"\n");
	snprintf(msg, sizeof(msg), "%s:2:21: 'memory_mb' must be a positive integer "
		 "(0 is not allowed; use 'unlimited' to lift a limit)", path_of("bad.policy"));
	load_path_fails(path_of("top.policy"), msg);
}

Test(policy_include, depth_limit)
{
	struct sbx_err err = { 0 };
	struct policy p;
	char name[32], text[64];

	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "n%d.policy", i);
		snprintf(text, sizeof(text), i < 19 ? "include: \"n%d.policy\"\n" : "name: \"end\"\n", i + 1);
		put(name, text);
	}
	cr_assert_eq(policy_load(path_of("n4.policy"), &p, &err), 0, "16 levels load: %s", err.msg);
	policy_free(&p);
	cr_assert_eq(policy_load(path_of("n0.policy"), &p, &err), -1);
	cr_assert(strstr(err.msg, "includes nested deeper than 16 levels"), "%s", err.msg);
}

Test(policy_include, a_fifo_is_refused_without_hanging)
{
	struct sbx_err err = { 0 };
	struct policy p;

	cr_assert_eq(mkfifo(path_of("f.policy"), 0600), 0);
	cr_assert_eq(policy_load(path_of("f.policy"), &p, &err), -1);
	cr_assert(strstr(err.msg, "is not a regular file"), "%s", err.msg);
}

Test(policy_include, a_diamond_is_not_a_cycle)
{
	struct policy p;

	put("b.policy", "include: \"default\"\nhostname: \"b\"\n");
	put("c.policy", "include: \"default\"\nname: \"c\"\n");
	put("a.policy", "include: [\"b.policy\", \"c.policy\"]\n");
	load_path_ok(path_of("a.policy"), &p);
	cr_assert_str_eq(p.hostname, "sbx", "c's include of default comes after b");
	cr_assert_str_eq(p.name, "c");
	cr_assert_eq(p.nmounts, builtin_mount_count());
	policy_free(&p);
}
