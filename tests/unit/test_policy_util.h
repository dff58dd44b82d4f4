/*
 * test_policy_util.h - helpers shared by the tests/unit/test_policy*.c files:
 * load policy text and assert success or an exact error prefix.
 */
#ifndef SBX_TEST_POLICY_UTIL_H
#define SBX_TEST_POLICY_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

/* Load TEXT as x.policy; the test fails with the message if it does not load. */
static inline void load_ok(const char *text, struct policy *p)
{
	struct sbx_err err = { 0 };
	int rc = policy_load_text("x.policy", text, strlen(text), p, &err);

	cr_assert_eq(rc, 0, "expected to load, got: %s", err.msg);
}

/* Load LEN bytes of TEXT; it must fail with a message starting with PREFIX
 * and containing FRAGMENT (NULL: no check). */
static inline void load_fails_n(const char *text, size_t len, const char *prefix,
				const char *fragment)
{
	struct sbx_err err = { 0 };
	struct policy p;
	int rc = policy_load_text("x.policy", text, len, &p, &err);

	if (rc == 0)
		policy_free(&p);
	cr_assert_eq(rc, -1, "expected an error %s%s", prefix, fragment ? fragment : "");
	cr_assert_eq(err.kind, ERR_CONFIG, "kind %d: %s", err.kind, err.msg);
	cr_assert(strncmp(err.msg, prefix, strlen(prefix)) == 0,
		  "expected prefix '%s', got '%s'", prefix, err.msg);
	if (fragment)
		cr_assert(strstr(err.msg, fragment), "expected '%s' in '%s'", fragment, err.msg);
}

static inline void load_fails(const char *text, const char *prefix, const char *fragment)
{
	load_fails_n(text, strlen(text), prefix, fragment);
}

/* policy_write_text into a malloc'd string. */
static inline char *policy_text(const struct policy *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(policy_write_text(p, f), 0);
	fclose(f);
	return buf;
}

#endif
