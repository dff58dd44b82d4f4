/*
 * test_ci.c - the CI wrapper as the README shows it: the step
 * starts in the bound checkout, -C DIR must exist, a command-line mount
 * replaces the policy's and option order does not change the mount
 * table, the CPU limit follows --time, and sbx builds and unit-tests
 * itself from a copy of its source with the README's one-liner.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A checkout-like directory the jail (host uid 65534 under root) can write. */
static char *checkout(void)
{
	char *dir = make_temp_dir(), *cmd = xasprintf("chmod 0777 '%s'", dir), *out = NULL;

	cr_assert_eq(host_sh(cmd, &out), 0, "%s", out);
	free(out);
	free(cmd);
	return dir;
}

Test(ci, bind_dot_starts_the_step_in_the_checkout)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	char *dir = checkout();

	REQUIRE_USERNS();
	o.cwd = dir;
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "-p", "host", "-B", ".", "--net", "none",
				 "--", "pwd"));
	cr_assert_eq(r.exit_status, 0, "%s", r.err);
	char *want = xasprintf("%s\n", dir);
	cr_assert_str_eq(r.out, want, "the step ran in %s", r.out);
	free(want);
	sbx_result_free(&r);
	/* without a bind of it, the workspace as before */
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "--", "pwd"));
	cr_assert_str_eq(r.out, "/mnt/data\n");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
}

/*
 * A packaging step writes its artifact beside the checkout (dpkg-deb's
 * ../hello_2.10-3_amd64.deb).  Bound below /tmp, the checkout's parent in
 * the jail is a directory sbx made in the jail's private /tmp: the write
 * succeeded there, the record said ok, and the .deb vanished with the
 * jail.  It must fail at once instead, and what the step writes in the
 * checkout must reach the host.  write_beside_checkout_in() makes a
 * checkout "pkg" in PARENT and runs that step in it.
 */
static void write_beside_checkout_in(char *parent)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	char *sub = xasprintf("%s/pkg", parent), *deb = xasprintf("%s/pkg.deb", parent);
	char *kept = xasprintf("%s/built", sub);

	cr_assert_eq(mkdir(sub, 0777), 0);
	cr_assert_eq(chmod(sub, 0777), 0);
	o.cwd = sub;
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "-p", "host", "-B", ".", "--net", "none", "--",
				 "/bin/sh", "-c", "echo ok > built && echo deb > ../pkg.deb"));
	cr_assert_neq(r.exit_status, 0, "the write beside the checkout succeeded: %s", r.err);
	cr_assert(strstr(r.err, "Permission denied") || strstr(r.err, "Read-only"),
		  "no error names the refused write: %s", r.err);
	cr_assert_eq(access(kept, F_OK), 0, "the file written in the checkout is not on the host");
	cr_assert_neq(access(deb, F_OK), 0, "the artifact reached the host without a bind of ..");
	sbx_result_free(&r);
	rm_tree(parent);
	free(kept), free(deb), free(sub), free(parent);
}

Test(ci, a_write_beside_a_checkout_bound_below_tmp_fails_at_once)
{
	REQUIRE_USERNS();
	write_beside_checkout_in(checkout());
}

/*
 * The same step with the checkout directly in /tmp: its parent in the jail
 * is then the scratch /tmp itself, so sbx moves the scratch to /var/tmp
 * (HOME and TMPDIR with it) and /tmp only holds the mount point.  The
 * write beside the checkout fails at once and stderr says why; the step
 * still has scratch space; with the parent bound too (-B ..), the
 * artifact reaches the host.
 */
static char *checkout_in_tmp(mode_t mode)
{
	char *dir = xasprintf("/tmp/sbx-ci-XXXXXX");

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, mode), 0);
	return dir;
}

Test(ci, a_write_beside_a_checkout_bound_directly_in_tmp_fails_at_once)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	char *dir = checkout_in_tmp(0777), *name = strrchr(dir, '/') + 1;
	char *deb = xasprintf("/tmp/%s.deb", name), *kept = xasprintf("%s/built", dir);
	char *script = xasprintf("echo ok > built && echo \"$HOME $TMPDIR\" && "
				 "touch \"$TMPDIR/%s.t\" \"$HOME/%s.h\" && echo deb > ../%s.deb",
				 name, name, name);
	char *t = xasprintf("/tmp/%s.t", name), *h = xasprintf("/tmp/%s.h", name);

	REQUIRE_USERNS();
	o.cwd = dir;
	sbx_run(&r, &o, SBX_ARGV("run", "-p", "host", "-B", ".", "--net", "none", "--",
				 "/bin/sh", "-c", script));
	cr_assert_neq(r.exit_status, 0, "the write beside the checkout succeeded: %s", r.err);
	cr_assert(strstr(r.err, "Permission denied") || strstr(r.err, "Read-only"),
		  "no error names the refused write: %s", r.err);
	cr_assert(strstr(r.err, "sbx: note:") && strstr(r.err, "-B .."),
		  "stderr does not say why /tmp is read-only: %s", r.err);
	cr_assert(strstr(r.out, "/var/tmp /var/tmp\n"), "HOME and TMPDIR: %s", r.out);
	cr_assert_eq(access(kept, F_OK), 0, "the file written in the checkout is not on the host");
	cr_assert_neq(access(deb, F_OK), 0, "the artifact reached the host without a bind of ..");
	sbx_result_free(&r);

	/* the caller binds the parent too: the artifact is kept */
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "-p", "host", "-B", "..", "-B", ".", "--net",
				 "none", "--", "/bin/sh", "-c", script));
	cr_assert_eq(r.exit_status, 0, "%s", r.err);
	cr_assert_eq(access(deb, F_OK), 0, "with -B .. the artifact did not reach the host");
	sbx_result_free(&r);
	unlink(deb), unlink(t), unlink(h);
	rm_tree(dir);
	free(t), free(h), free(script), free(kept), free(deb), free(dir);
}

/*
 * The same step with the checkout outside /tmp, below the caller's home
 * (/home/u/src/pkg): the jail has none of the home but a directory sbx
 * made to hold the bind, which the program cannot write.
 */
Test(ci, a_write_beside_a_checkout_bound_below_the_home_fails_at_once)
{
	const char *home = getenv("HOME");
	char *dir;

	REQUIRE_USERNS();
	if (!home || home[0] != '/' || strncmp(home, "/tmp", 4) == 0)
		cr_skip_test("SKIP: no HOME outside /tmp to hold a checkout");
	dir = xasprintf("%s/.sbx-ci-XXXXXX", home);
	if (!mkdtemp(dir))
		cr_skip_test("SKIP: cannot make a directory in HOME=%s: %s", home, strerror(errno));
	write_beside_checkout_in(dir);
}

/* What explain shows is what runs: the scratch and the variables moved. */
Test(ci, explain_shows_the_scratch_moved_for_a_checkout_in_tmp)
{
	char *dir = checkout_in_tmp(0755), *cmd, *out = NULL;

	cmd = xasprintf("cd '%s' && '%s' explain --lang py -B . > e.policy && "
			"grep -c -e 'dst: \"/var/tmp\"' -e '\"HOME=/var/tmp\"' "
			"-e '\"MPLCONFIGDIR=/var/tmp/.config/matplotlib\"' e.policy && "
			"! grep -e 'dst: \"/tmp\"' -e '=/tmp' e.policy && '%s' check ./e.policy",
			dir, sbx_path(), sbx_path());
	cr_assert_eq(host_sh(cmd, &out), 0, "%s", out);
	cr_assert(strncmp(out, "3\n", 2) == 0, "%s", out);
	free(out);
	free(cmd);
	rm_tree(dir);
	free(dir);
}

Test(ci, chdir_to_a_missing_directory_is_an_error)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-C", "/no/such/dir", "--", "pwd"));
	cr_assert_eq(r.exit_status, 125, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "--chdir") && strstr(r.err, "/no/such/dir"), "%s", r.err);
	cr_assert_eq(r.out[0], '\0', "the program ran: %s", r.out);
	sbx_result_free(&r);
}

/* --tmpfs /tmp:1G before or after -B . : one /tmp, and the checkout shows. */
static void tmpfs_and_bind(const char *first, const char *v1, const char *second,
			   const char *v2)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	char *dir = checkout(), *marker = xasprintf("%s/marker", dir);
	FILE *f = fopen(marker, "we");

	cr_assert_not_null(f);
	fclose(f);
	o.cwd = dir;
	sbx_run(&r, &o, SBX_ARGV("run", "-q", first, v1, second, v2, "--", "sh", "-c",
				 "ls; grep -c ' /tmp ' /proc/self/mountinfo"));
	cr_assert_eq(r.exit_status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, "marker\n1\n", "%s %s %s %s", first, v1, second, v2);
	sbx_result_free(&r);
	free(marker);
	rm_tree(dir);
	free(dir);
}

Test(ci, tmpfs_after_the_bind_replaces_the_policy_tmp)
{
	REQUIRE_USERNS();
	tmpfs_and_bind("-B", ".", "--tmpfs", "/tmp:1G");
}

Test(ci, tmpfs_before_the_bind_gives_the_same_table)
{
	REQUIRE_USERNS();
	tmpfs_and_bind("--tmpfs", "/tmp:1G", "-B", ".");
}

Test(ci, explain_lists_one_tmp_and_passes_check)
{
	char *dir = make_temp_dir(), *cmd, *out = NULL;

	cmd = xasprintf("cd '%s' && '%s' explain --tmpfs /tmp:1G > e.policy && "
			"grep -c 'dst: \"/tmp\"' e.policy && '%s' check ./e.policy",
			dir, sbx_path(), sbx_path());
	cr_assert_eq(host_sh(cmd, &out), 0, "%s", out);
	cr_assert(strncmp(out, "1\n", 2) == 0, "%s", out);
	free(out);
	free(cmd);
	rm_tree(dir);
	free(dir);
}

/* --time 10m without --cpu: the CPU limit is not the default 10 s. */
Test(ci, raising_the_wall_limit_raises_the_derived_cpu_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--time", "10m", "--", "true"));
	ASSERT_STATUS(&r, "ok");
	cJSON *limits = cJSON_GetObjectItem(r.record, "limits");
	double cpu = cJSON_GetNumberValue(cJSON_GetObjectItem(limits, "cpu_time_ms"));
	cr_assert_geq(cpu, 600000.0, "cpu_time_ms %.0f under --time 10m", cpu);
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "--time", "10m", "--cpu", "2s", "--", "true"));
	limits = cJSON_GetObjectItem(r.record, "limits");
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(limits, "cpu_time_ms")), 2000.0);
	sbx_result_free(&r);
}

Test(ci, help_help_is_help)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	sbx_run(&r, &o, SBX_ARGV("help", "--help"));
	cr_assert_eq(r.exit_status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "Usage: sbx help"), "%s", r.out);
	sbx_result_free(&r);
}

/* The README's one-liner builds sbx and runs its unit tests in a copy. */
Test(ci, sbx_builds_and_unit_tests_itself_with_the_readme_one_liner, .timeout = 1200)
{
	struct sbx_opts o = { .no_record = true, .deadline_s = 900 };
	struct sbx_result r;
	char *dir, *cmd, *out = NULL;

	REQUIRE_USERNS();
	if (access("/usr/include/criterion/criterion.h", R_OK) != 0)
		cr_skip_test("SKIP: libcriterion-dev is not installed (make deps)");
	sbx_run(&r, &o, SBX_ARGV("run", "-q", "-p", "host", "--", "test", "-d", "/dev/shm"));
	bool shm = r.exit_status == 0;
	sbx_result_free(&r);
	if (!shm)
		cr_skip_test("SKIP: the jail has no /dev/shm, which Criterion needs "
			     "(its default policy should mount a sized tmpfs there)");
	dir = make_temp_dir();
	cmd = xasprintf("tar -C '%s' --exclude=./build --exclude=./build-asan --exclude=./sbx "
			"--exclude=./.git -cf - . | tar -C '%s' -xf -", src_dir(), dir);
	cr_assert_eq(host_sh(cmd, &out), 0, "copying the source: %s", out);
	free(out);
	free(cmd);
	o.cwd = dir;
	sbx_run(&r, &o, SBX_ARGV("run", "-p", "host", "-B", ".", "--net", "none", "--time",
				 "10m", "--", "make", "test"));
	cr_assert_eq(r.exit_status, 0, "make test in sbx exited %d:\n%s\n%s", r.exit_status,
		     r.out + (r.out_len > 4000 ? r.out_len - 4000 : 0),
		     r.err + (r.err_len > 4000 ? r.err_len - 4000 : 0));
	cr_assert(strstr(r.out, "Failing: 0") || strstr(r.err, "Failing: 0"),
		  "no unit test summary:\n%s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
}
