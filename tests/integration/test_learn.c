/*
 * test_learn.c - `sbx learn`: one trial run prints a policy that
 * `sbx check` accepts and under which the program then runs ok; calls an
 * @group keeps apart are refused and listed, never learned; no listener,
 * no policy.
 */
#include "common.h"
#include "test_probes_common.h"

#include <fcntl.h>
#include <sys/stat.h>

TestSuite(learn, .init = probes_require_jail);

/* A Python script that needs set_mempolicy, a call outside @default, through
 * a small C program it runs (tests/probes/sc_outside_default.c). */
static const char script[] =
	"import subprocess, sys\n"
	"r = subprocess.run(['/probes/sc_outside_default'], capture_output=True, text=True)\n"
	"print(r.stdout.strip())\n"
	"sys.exit(0 if r.stdout.startswith('ESCAPED') else 3)\n";

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static char *probes_bind(void)
{
	const char *dir = getenv("SBX_PROBES");

	return xasprintf("%s:/probes", dir ? dir : "build/probes");
}

/* The script under `sbx learn -b BIND`, then under the policy it printed
 * (and that alone: the bind must be in it). */
static void learn_then_run_under_the_policy(const char *bind)
{
	struct sbx_opts quiet = { .no_record = true, .deadline_s = 60 };
	struct sbx_result r;
	char *dir = make_temp_dir(), *py = write_file(dir, "uses.py", script);
	char *policy, *json;

	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: /usr/bin/python3 is not installed on this host");
	/* without it: the default preset refuses the call, the script fails */
	sbx_run(&r, NULL, SBX_ARGV("run", "-b", bind, "--lang", "py", py));
	ASSERT_STATUS(&r, "nonzero-exit");
	json = cJSON_PrintUnformatted(r.record);
	cr_assert(strstr(json, "\"set_mempolicy\""), "%s", r.err);
	free(json);
	sbx_result_free(&r);

	sbx_run(&r, &quiet, SBX_ARGV("learn", "-q", "-b", bind, "--lang", "py", py));
	cr_assert_eq(r.exit_status, 0, "sbx learn exited %d:\n%s", r.exit_status, r.err);
	cr_assert(strstr(r.out, "allow: \"set_mempolicy\"  # from sbx learn: seen 1 time"),
		  "no learned set_mempolicy in:\n%s", r.out);
	cr_assert(strstr(r.err, "ESCAPED"), "the program's stdout goes to stderr: %s", r.err);
	policy = write_file(dir, "learned.policy", r.out);
	sbx_result_free(&r);

	sbx_run(&r, &quiet, SBX_ARGV("check", policy));
	cr_assert_eq(r.exit_status, 0, "sbx check rejects the learned policy:\n%s", r.err);
	sbx_result_free(&r);

	sbx_run(&r, NULL, SBX_ARGV("run", "-p", policy, "--lang", "py", py));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.record,
									  "denied_syscalls")), 0,
		     "refused under the learned policy: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(py);
	free(policy);
	free(dir);
}

Test(learn, python_script_gets_a_policy_that_check_accepts_and_that_runs_ok, .timeout = 120)
{
	char *bind = probes_bind();

	learn_then_run_under_the_policy(bind);
	free(bind);
}

/* A checkout in root's home (0700) or below a 0700 TMPDIR: a root caller's
 * jail is a uid of its own that cannot enter it, yet the command-line bind
 * works, and so must the same bind in the policy learn printed. */
Test(learn, a_bind_below_a_0700_directory_works_under_the_learned_policy, .timeout = 120)
{
	char *closed = make_temp_dir(), *tree = xasprintf("%s/probes", closed), *bind, *out;
	const char *probes = getenv("SBX_PROBES");
	char *cmd;
	int rc;

	cr_assert_eq(chmod(closed, 0700), 0);
	cr_assert_eq(mkdir(tree, 0755), 0);
	cr_assert_eq(chmod(tree, 0755), 0);
	cmd = xasprintf("cp '%s/sc_outside_default' '%s/' && chmod 0755 '%s/sc_outside_default'",
			probes ? probes : "build/probes", tree, tree);
	rc = host_sh(cmd, &out);
	cr_assert_eq(rc, 0, "%s: %s", cmd, out);
	bind = xasprintf("%s:/probes", tree);
	learn_then_run_under_the_policy(bind);
	rm_tree(closed);
	free(out);
	free(cmd);
	free(bind);
	free(tree);
	free(closed);
}

/* keyctl is in @keyring (not namespaced): refused and listed, not learned. */
Test(learn, grouped_calls_stay_refused_and_are_listed)
{
	struct sbx_opts quiet = { .no_record = true };
	struct sbx_result r;
	char *bind = probes_bind();

	sbx_run(&r, &quiet, SBX_ARGV("learn", "-q", "-b", bind, "--", "/probes/priv_keyctl"));
	cr_assert_eq(r.exit_status, 0, "sbx learn exited %d:\n%s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "BLOCKED"), "keyctl was not refused: %s", r.err);
	cr_assert_null(strstr(r.out, "allow: \"keyctl\""), "keyctl was learned:\n%s", r.out);
	cr_assert(strstr(r.out, "#   keyctl: EPERM x1 - @keyring"), "not listed:\n%s", r.out);
	sbx_result_free(&r);
	free(bind);
}

/* Hostile bytes for a policy writer: a newline that would end a comment and
 * start a mount of the host, CR, quotes, backslash, '}' and '#', bytes that
 * are not UTF-8, other controls, U+2028 (a line break to editors) and
 * U+202E (shows text in another order than it parses). */
#define HOSTILE_TAIL "\r\"'\\}#\xff\xc3(\v\f\x01\x7f\xc2\x85\xe2\x80\xa8\xe2\x80\xae"
#define HOSTILE_MOUNT(dir) \
	"x\nmount { dst: \"/host\" type: BIND src: \"" dir "\" rw: true }\n#" HOSTILE_TAIL

/* `sbx explain -p FILE` (or the default policy: FILE NULL), without comments. */
static char *explained_fields(const char *file)
{
	struct sbx_result r;
	char *fields;

	if (file)
		sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("explain", "-p", file));
	else
		sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("explain"));
	cr_assert_eq(r.exit_status, 0, "sbx explain%s%s: %s", file ? " -p " : "",
		     file ? file : "", r.err);
	fields = policy_without_comments(r.out);
	sbx_result_free(&r);
	return fields;
}

/* Argv often carries file names an attacker chose: one with a newline must
 * not end the header comment and add a writable bind of the host (or any
 * field) to the policy that `sbx check` then accepts. */
Test(learn, a_newline_in_an_argument_adds_nothing_to_the_learned_policy)
{
	struct sbx_opts quiet = { .no_record = true };
	struct sbx_result r;
	char *dir = make_temp_dir(), *policy, *want, *got, *fields;

	sbx_run(&r, &quiet, SBX_ARGV("learn", "-q", "--", "/bin/true",
				     HOSTILE_MOUNT("/tmp"), "tab\there", "\\n"));
	cr_assert_eq(r.exit_status, 0, "sbx learn exited %d:\n%s", r.exit_status, r.err);
	fields = policy_without_comments(r.out);
	cr_expect_null(strstr(fields, "/host"), "the argument left its comment:\n%s", r.out);
	free(fields);
	policy = write_file(dir, "learned.policy", r.out);
	sbx_result_free(&r);
	sbx_run(&r, &quiet, SBX_ARGV("check", policy));
	cr_assert_eq(r.exit_status, 0, "sbx check rejects the learned policy:\n%s", r.err);
	sbx_result_free(&r);
	/* /bin/true needs nothing outside the default: the same fields */
	want = explained_fields(NULL);
	got = explained_fields(policy);
	cr_expect_str_eq(got, want, "the learned policy is not the default one");
	free(want);
	free(got);
	rm_tree(dir);
	free(policy);
	free(dir);
}

Test(learn, json_is_a_usage_error)
{
	struct sbx_opts o = { .record_on_stdout = true };
	struct sbx_result r;

	sbx_run(&r, &o, SBX_ARGV("learn", "--json", "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125);
	ASSERT_STATUS(&r, "config-error");
	sbx_result_free(&r);
}

Test(learn, without_a_listener_no_policy_is_printed)
{
	struct sbx_opts quiet = { .no_record = true };
	struct sbx_result r;

	sbx_run(&r, &quiet, SBX_ARGV("learn", "-q", "--no-syscall-report", "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125);
	cr_assert_eq(r.out_len, 0, "printed: %s", r.out);
	cr_assert(strstr(r.err, "could not learn"), "%s", r.err);
	sbx_result_free(&r);
}
