/*
 * test_explain.c - `sbx explain` writes policy text that parses back to
 * the same policy, whatever bytes the values and file names hold: no
 * value or file name can end its string or comment and add a field.
 */
#include "common.h"

#include <stdio.h>
#include <sys/stat.h>

/* A newline that would end a comment and set a field, CR, quotes, a
 * backslash, '}' and '#', other controls, a C1 control, U+2028 (a line
 * break to editors) and U+202E (text shown in another order than parsed). */
#define HOSTILE "a\nmount { dst: \"/h2\" }\r\"'\\}#\v\f\x01\x7f\xc2\x85\xe2\x80\xa8\xe2\x80\xae"

static char *write_policy(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	chmod(path, 0644);
	return path;
}

/* `sbx explain ARGV...` must succeed; its stdout, malloc'd. */
static char *explain(const char *const argv[])
{
	struct sbx_result r;
	char *out;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, argv);
	cr_assert_eq(r.exit_status, 0, "sbx explain exited %d: %s", r.exit_status, r.err);
	out = strdup(r.out);
	sbx_result_free(&r);
	return out;
}

/* An attacker who names the policy file, or sets a description or an
 * environment value, tries to make explain's output a policy with a mount
 * or a network mode nobody asked for. */
Test(explain, hostile_values_and_file_names_parse_back_to_the_same_policy)
{
	char *dir = make_temp_dir();
	char *src = write_policy(dir, "p\nnetwork: HOST\r\xe2\x80\xa8#.policy",
				 "include: \"default\"\n");
	char *first = explain(SBX_ARGV("explain", "-p", src, "--set", "description=" HOSTILE,
				       "-e", "A=" HOSTILE));
	char *fields = policy_without_comments(first);
	char *saved = write_policy(dir, "explained.policy", first);
	char *again = explain(SBX_ARGV("explain", "-p", saved));
	char *fields_again = policy_without_comments(again);
	struct sbx_result r;

	cr_expect(strstr(fields, "network: NONE\n") && !strstr(fields, "HOST"),
		  "the file name set the network:\n%s", first);
	cr_expect_null(strstr(fields, "\nmount { dst: \"/h2\""), "a value left its string:\n%s",
		       first);
	assert_has_line(first, "description: \"a\\nmount { dst: \\\"/h2\\\" }\\r\\\"'\\\\}#"
			"\\013\\014\\001\\177\\302\\205\\342\\200\\250\\342\\200\\256\"  # from --set");
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("check", saved));
	cr_expect_eq(r.exit_status, 0, "sbx check refuses explain's output: %s", r.err);
	sbx_result_free(&r);
	cr_expect_str_eq(fields_again, fields, "explain's output is another policy");
	rm_tree(dir);
	free(dir);
	free(src);
	free(first);
	free(fields);
	free(saved);
	free(again);
	free(fields_again);
}

/* Bytes that are not UTF-8 cannot be a policy value: explain writes them
 * as escapes (the text stays UTF-8) and check refuses them, naming the line,
 * rather than loading something else. */
Test(explain, a_value_that_is_not_utf8_is_escaped_and_refused_by_check)
{
	char *dir = make_temp_dir();
	char *out = explain(SBX_ARGV("explain", "--set", "description=x\xff\xc3(y"));
	char *saved = write_policy(dir, "explained.policy", out);
	struct sbx_result r;

	assert_has_line(out, "description: \"x\\377\\303(y\"  # from --set");
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("check", saved));
	cr_expect_eq(r.exit_status, 125, "sbx check accepted invalid UTF-8: %s", r.err);
	cr_expect(strstr(r.err, "explained.policy:3:") && strstr(r.err, "invalid UTF-8 in string"),
		  "%s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(out);
	free(saved);
}
