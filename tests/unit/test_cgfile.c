/* test_cgfile.c - the cgroup v2 file parsers (src/supervise/cgfile.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "supervise/cgfile.h"

#define T(s) (s), strlen(s)

Test(cgfile, a_key_of_a_flat_keyed_file)
{
	const char *stat = "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n";
	uint64_t v = 0;

	cr_assert_eq(cgfile_key(T(stat), "user_usec", &v), 0);
	cr_assert_eq(v, 1000000);
	cr_assert_eq(cgfile_key(T(stat), "system_usec", &v), 0);
	cr_assert_eq(v, 234567);
	/* a key that is a prefix of another is not that other */
	cr_assert_eq(cgfile_key(T(stat), "usage", &v), -1);
	cr_assert_eq(cgfile_key(T("oom 1\noom_kill 3\n"), "oom_kill", &v), 0);
	cr_assert_eq(v, 3);
}

Test(cgfile, a_value_that_is_no_number_or_too_big_is_unknown)
{
	uint64_t v = 7;

	cr_assert_eq(cgfile_key(T("max max\n"), "max", &v), -1);
	cr_assert_eq(cgfile_key(T("x 18446744073709551616\n"), "x", &v), -1);
	cr_assert_eq(cgfile_key(T("x 18446744073709551615"), "x", &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(cgfile_key(T("x \n"), "x", &v), -1);
}

Test(cgfile, the_own_path_is_the_0_line)
{
	char out[64];

	cr_assert_eq(cgfile_own_path(T("4:memory:/a\n0::/user.slice/x.scope\n"), out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/user.slice/x.scope");
	cr_assert_eq(cgfile_own_path(T("0::/\n"), out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/");
	cr_assert_eq(cgfile_own_path(T("1:cpu:/\n"), out, sizeof(out)), -1);
	cr_assert_eq(cgfile_own_path(T("0::relative\n"), out, sizeof(out)), -1);
	cr_assert_eq(cgfile_own_path(T("0::/aaaaaaaaaaaaaaaaaaaa\n"), out, 8), -1);
}

Test(cgfile, words_procs_and_run_names)
{
	size_t n;
	bool only;

	cr_assert(cgfile_has_word(T("cpuset cpu io memory pids\n"), "memory"));
	cr_assert(!cgfile_has_word(T("cpuset cpu io memory_x\n"), "memory"));
	cr_assert(!cgfile_has_word(T(""), "cpu"));
	cr_assert_eq(cgfile_procs(T("42\n"), 42, -1, &n, &only), 0);
	cr_assert(only && n == 1);
	cr_assert_eq(cgfile_procs(T("42\n43\n"), 42, -1, &n, &only), 0);
	cr_assert(!only && n == 2);
	cr_assert_eq(cgfile_procs(T("42\n43\n"), 42, 43, &n, &only), 0);
	cr_assert(only && n == 2);
	cr_assert_eq(cgfile_procs(T("42\n43\n44\n"), 42, 43, &n, &only), 0);
	cr_assert(!only && n == 3);
	cr_assert_eq(cgfile_procs(T("42\nx\n"), 42, -1, &n, &only), -1);
	cr_assert_eq(cgfile_run_owner("sbx-run.123.0"), 123);
	cr_assert_eq(cgfile_run_owner("sbx-run.0.1"), -1);
	cr_assert_eq(cgfile_run_owner("sbx-run.12"), -1);
	cr_assert_eq(cgfile_run_owner("sbx-supervisor"), -1);
	cr_assert_eq(cgfile_run_owner("sbx-run.99999999999.1"), -1);
}
