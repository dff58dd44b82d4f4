/*
 * test_interp_messages.c - what sbx says about its own errors and about
 * seccomp options: `sbx check` refuses what `sbx run` refuses,
 * -q still prints one `sbx:` line, --seccomp-allow works or is refused,
 * a policy without a seccomp block fails closed with a message, and a
 * config-error record claims no jail.
 */
#include "common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Each tests/policy-check/NAME.policy loads but must fail `sbx check`,
 * where its line 1 says: "# expect: LINE:COL: fragment" (0:0: no place). */
static void check_refuses(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), line[512], *where;
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	int l, c, off = 0;
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	cr_assert_eq(sscanf(line, "# expect: %d:%d: %n", &l, &c, &off), 2, "%s", path);
	sbx_run(&r, &o, SBX_ARGV("check", path));
	cr_assert_eq(r.exit_status, 125, "%s: check passed: %s", name, r.err);
	where = l ? xasprintf("%s:%d:%d: ", path, l, c) : xasprintf("%s: ", path);
	cr_assert(strncmp(r.err, where, strlen(where)) == 0, "%s: want '%s...', got %s", name,
		  where, r.err);
	cr_assert(strstr(r.err, line + off), "%s: want '%s' in %s", name, line + off, r.err);
	sbx_result_free(&r);
	free(where);
	free(path);
}

Test(messages, check_refuses_every_policy_run_refuses)
{
	char *dir = xasprintf("%s/tests/policy-check", src_dir());
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d, "%s (set SBX_SRC)", dir);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 7 && strcmp(e->d_name + len - 7, ".policy") == 0) {
			check_refuses(dir, e->d_name);
			n++;
		}
	}
	closedir(d);
	cr_assert_geq(n, 3);
	free(dir);
}

/* Documented to fail closed; it started the program, which died of SIGSEGV. */
Test(messages, policy_without_seccomp_block_is_config_error_with_a_message)
{
	char *p = xasprintf("%s/tests/policy-check/no-seccomp-block.policy", src_dir());
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", p, "--", "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "sbx: seccomp: the policy allows no system call"), "%s", r.err);
	/* nothing was built: no namespaces, no filter */
	cJSON *iso = cJSON_GetObjectItem(r.record, "isolation");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(iso, "namespaces")), 0);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(iso, "seccomp")));
	sbx_result_free(&r);
	free(p);
}

/* -q: an exec error printed nothing at all (only the record would have). */
Test(messages, quiet_exec_error_still_prints_one_sbx_line)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "--", "/no/such/program"));
	cr_assert_eq(r.exit_status, 127, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert_str_eq(r.err, "sbx: exec failed: No such file or directory (/no/such/program): "
			 "the jail has no such file: bind its directory (-b DIR) or copy it in "
			 "(-f FILE)\n");
	sbx_result_free(&r);
}

/* A tool found by the caller's PATH (cargo in ~/.cargo/bin) failed with
 * "exec failed: No such file or directory (cargo)" and no word of why. */
Test(messages, a_command_not_in_the_jails_path_says_what_the_jail_has)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "--", "sbx-no-such-tool"));
	cr_assert_eq(r.exit_status, 127, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "PATH=/usr/local/bin:/usr/bin:/bin") && strstr(r.err, "HOME") &&
		  strstr(r.err, "-b DIR"), "%s", r.err);
	sbx_result_free(&r);
}

/*
 * -q at a limit printed nothing at all: a Makefile showed only "Error 124"
 * and the cause was in no record anyone had asked for.  The program did
 * not end by itself, so sbx says why on one line.
 */
Test(messages, quiet_output_limit_still_prints_the_cause)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "--output", "100", "--", "/bin/sh", "-c",
				 "while :; do echo 0123456789; done"));
	cr_assert_eq(r.exit_status, 124, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert_str_eq(r.err, "sbx: output limit exceeded: stdout+stderr passed 100 bytes\n");
	sbx_result_free(&r);
}

/* A wall-clock timeout under -q: the same one line (the limit, its value). */
Test(messages, quiet_timeout_still_prints_the_cause)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "-t", "300ms", "--", "/bin/sh", "-c",
				 "while :; do :; done"));
	cr_assert_eq(r.exit_status, 124, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert_str_eq(r.err, "sbx: wall-clock timeout (300 ms)\n");
	sbx_result_free(&r);
}

/* A program that ends by itself under -q, well or not: sbx says nothing. */
Test(messages, quiet_nonzero_exit_prints_nothing)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "--", "/bin/sh", "-c", "exit 3"));
	cr_assert_eq(r.exit_status, 3, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert_str_eq(r.err, "");
	sbx_result_free(&r);
}

/* The hint "mark the mount optional: true" cannot apply to a flag. */
Test(messages, missing_bind_source_of_a_flag_names_the_flag)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "-b", "/no/such/dir", "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "fix the path given to --bind"), "%s", r.err);
	cr_assert(!strstr(r.err, "optional"), "%s", r.err);
	sbx_result_free(&r);
}

/* --seccomp-allow ptrace changed nothing: the default policy's deny of
 * @debug won.  Now it works (PTRACE_TRACEME returns 0, not EPERM). */
Test(messages, seccomp_allow_ptrace_lets_ptrace_through)
{
	static const char py[] = "import ctypes\n"
				 "libc = ctypes.CDLL(None, use_errno=True)\n"
				 "rc = libc.ptrace(0, 0, 0, 0)\n"
				 "print(rc, ctypes.get_errno())\n";
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/usr/bin/python3", "-c", py));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "-1 1\n"); /* EPERM without the option */
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "--seccomp-allow", "ptrace", "--", "/usr/bin/python3",
				   "-c", py));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "0 0\n");
	sbx_result_free(&r);
}

/* @debug holds perf_event_open, a promise: refused with a message, never
 * silently nothing; a misspelled group gets a suggestion. */
Test(messages, seccomp_allow_of_a_promise_is_refused_with_a_message)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--seccomp-allow", "@debug", "--", "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "sbx: --seccomp-allow: '@debug' is refused: its member "
				"perf_event_open"), "%s", r.err);
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "--seccomp-allow", "@debugg", "--", "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "(did you mean '@debug'?)"), "%s", r.err);
	sbx_result_free(&r);
}

/* A compile failure is told from a run failure by status, and
 * `compile` has the keys sbx-result.5 lists. */
Test(messages, compile_error_status_and_the_compile_keys)
{
	static const char *const keys[] = {
		"status", "exit_code", "signal", "core_dumped", "message", "command", "policy",
		"policy_source", "wall_ms", "stopped_ms", "cpu_user_ms", "cpu_sys_ms", "max_rss_kib",
		"memory_peak_kib", "processes_peak", "forks_refused",
		"stdout_bytes", "stderr_bytes", "output_truncated", "limits", "denied_syscalls",
		"retryable", "strings_lossy", "stdout", "stderr", "stdout_lossy", "stderr_lossy",
	};
	struct sbx_result r;

	REQUIRE_USERNS();
	if (access("/usr/bin/gcc", X_OK) != 0)
		cr_skip_test("SKIP: /usr/bin/gcc is missing (Debian package gcc)");
	char *dir = make_temp_dir();
	char *file = put_test_file(dir, "bad.c", "int main(void) { return nope; }\n");
	sbx_run(&r, NULL, SBX_ARGV("run", "--lang", "c", "--", file));
	ASSERT_STATUS(&r, "compile-error");
	cr_assert_eq(r.exit_status, 1);
	cJSON *c = cJSON_GetObjectItem(r.record, "compile");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_assert(cJSON_HasObjectItem(c, keys[i]), "compile lacks '%s'", keys[i]);
	cr_assert_eq(cJSON_GetArraySize(c), (int)(sizeof(keys) / sizeof(keys[0])),
		     "compile has keys sbx-result.5 does not list");
	sbx_result_free(&r);
	rm_tree(dir);
	free(file), free(dir);
}
