/*
 * test_policy_mounts.c - the mount table rules both a policy file and
 * -b/-B/--tmpfs go through (src/policy/mounts.c): the
 * normalization of a command-line spelling, and the reasons a path is
 * refused.  Nothing is run.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

static void expect_clean(const char *in, const char *want)
{
	char *s = strdup(in);

	policy_path_clean(s);
	cr_expect_str_eq(s, want, "clean(\"%s\")", in);
	free(s);
}

/* Every spelling of /proc is /proc, so the reserved check sees it. */
Test(policy_mounts, clean_gives_the_one_spelling_of_a_path)
{
	expect_clean("/proc/", "/proc");
	expect_clean("//proc", "/proc");
	expect_clean("/./proc", "/proc");
	expect_clean("/proc/.", "/proc");
	expect_clean("///proc/./", "/proc");
	expect_clean("/proc//", "/proc");
	expect_clean("/", "/");
	expect_clean("//", "/");
	expect_clean("/.", "/");
	expect_clean("/./", "/");
	expect_clean("/a/.b/..c/.", "/a/.b/..c");
	expect_clean("/a.", "/a.");
}

/* ".." is kept (resolving it lexically could be wrong), to be refused. */
Test(policy_mounts, clean_keeps_dotdot_for_the_check_to_refuse)
{
	char s[] = "/x/../proc/";

	policy_path_clean(s);
	cr_expect_str_eq(s, "/x/../proc");
	cr_expect_not_null(policy_path_problem(s));
}

Test(policy_mounts, path_problem_refuses_what_a_policy_refuses)
{
	cr_expect_not_null(policy_path_problem(""));
	cr_expect_not_null(policy_path_problem("proc"));
	cr_expect_not_null(policy_path_problem("/a/../b"));
	cr_expect_not_null(policy_path_problem("/a/./b"));
	cr_expect_not_null(policy_path_problem("/a//b"));
	cr_expect_not_null(policy_path_problem("/a/"));
	cr_expect_not_null(policy_path_problem("/a\nb"));
	/* the record and explain quote it: it must be UTF-8 */
	cr_expect_not_null(policy_path_problem("/x\xff"));
	cr_expect_not_null(policy_path_problem("/x\xc0\xaf"));
	cr_expect_null(policy_path_problem("/caf\xc3\xa9"));
	cr_expect_null(policy_path_problem("/mnt/data/in"));
}

/* The command line's limits obey the policy's minimum. */
Test(policy_mounts, limit_problem_is_the_policy_rule)
{
	char buf[96];

	cr_expect_not_null(policy_limit_problem(LIM_OUTPUT_BYTES, 63, buf, sizeof(buf)));
	cr_expect_null(policy_limit_problem(LIM_OUTPUT_BYTES, 64, buf, sizeof(buf)));
	cr_expect_not_null(policy_limit_problem(LIM_WALL_TIME_MS, 0, buf, sizeof(buf)));
	cr_expect_null(policy_limit_problem(LIM_WALL_TIME_MS, LIMIT_UNLIMITED, buf, sizeof(buf)));
	cr_expect_not_null(policy_limit_problem(LIM_WALL_TIME_MS, limit_max[LIM_WALL_TIME_MS] + 1,
						buf, sizeof(buf)));
}
