/*
 * test_argv.c - the one argv builder (src/base/argv.c): every argv and envp
 * sbx hands to a jail is built with it, so an empty one must still be a
 * vector (execve with a NULL envp is not an empty environment everywhere).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/argv.h"

Test(argv, pushes_stay_null_terminated_past_the_first_growth)
{
	struct argv_builder b = { 0 };
	struct sbx_err err = { 0 };
	char name[16];
	char **v;

	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		cr_assert_eq(argv_push(&b, strdup(name), &err), 0, "%s", err.msg);
		cr_assert_null(b.v[b.n]);
	}
	v = argv_finish(&b, &err);
	cr_assert_not_null(v);
	cr_expect_str_eq(v[0], "a0");
	cr_expect_str_eq(v[19], "a19");
	cr_expect_null(v[20]);
	cr_expect_null(b.v, "the builder hands its vector over");
	argv_free(v);
}

Test(argv, an_empty_vector_is_a_vector_not_null)
{
	struct argv_builder b = { 0 };
	struct sbx_err err = { 0 };
	char **v = argv_finish(&b, &err);

	cr_assert_not_null(v);
	cr_expect_null(v[0]);
	argv_free(v);
	argv_free(NULL);
}

Test(argv, a_failed_strdup_is_out_of_memory)
{
	struct argv_builder b = { 0 };
	struct sbx_err err = { 0 };

	cr_expect_eq(argv_push(&b, NULL, &err), -1);
	cr_expect_eq(err.kind, ERR_INTERNAL);
	cr_expect(strstr(err.msg, "out of memory"), "%s", err.msg);
	cr_expect_eq(b.n, 0);
	argv_free(b.v);
}
