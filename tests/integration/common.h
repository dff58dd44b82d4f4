/*
 * common.h - small helpers shared by the integration tests.
 */
#ifndef SBX_TEST_COMMON_H
#define SBX_TEST_COMMON_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"

/* Skip (never pass) when this kernel cannot build a jail at all. */
#define REQUIRE_USERNS()                                                     \
	do {                                                                 \
		if (!have_userns())                                          \
			cr_skip_test("SKIP: unprivileged user namespaces are " \
				     "unavailable here");                    \
	} while (0)

#define ASSERT_STATUS(r, want)                                               \
	do {                                                                 \
		cr_assert_not_null((r)->record, "no record; stderr: %s",     \
				   (r)->err);                                \
		const char *st_ = rec_str((r), "status");                    \
		cr_assert(st_ && strcmp(st_, (want)) == 0,                   \
			  "status '%s', want '%s'; stderr: %.2000s",         \
			  st_ ? st_ : "(none)", (want), (r)->err);           \
	} while (0)

/* Fail unless TEXT has LINE as one whole line. */
static inline void assert_has_line(const char *text, const char *line)
{
	char *want = xasprintf("\n%s\n", line);
	char *hay = xasprintf("\n%s", text);

	cr_assert(strstr(hay, want) != NULL, "missing line '%s' in:\n%s", line, text);
	free(want);
	free(hay);
}

/*
 * TEXT, a policy, without its comments: each line up to a '#' outside a
 * string, trailing blanks dropped, empty lines left out; malloc'd.  Two
 * policies with the same fields in the same order give the same text.
 */
static inline char *policy_without_comments(const char *text)
{
	char *out = malloc(strlen(text) + 2), *o = out;
	int quote = 0;
	bool comment = false;

	cr_assert_not_null(out);
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			while (o > out && (o[-1] == ' ' || o[-1] == '\t'))
				o--;
			if (o > out && o[-1] != '\n')
				*o++ = '\n';
			comment = false;
			quote = 0;
			continue;
		}
		if (comment)
			continue;
		if (!quote && *p == '#') {
			comment = true;
			continue;
		}
		if (quote && *p == '\\' && p[1] && p[1] != '\n') {
			*o++ = *p++;
		} else if (*p == '"' || *p == '\'') {
			quote = !quote ? *p : quote == *p ? 0 : quote;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

#endif
