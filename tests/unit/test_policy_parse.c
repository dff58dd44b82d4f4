/*
 * test_policy_parse.c - the text format: every construct parses, every
 * malformed input gives a positioned error, hostile input is bounded.
 */
#include "test_policy_util.h"

Test(policy_parse, comments_separators_and_both_block_forms)
{
	struct policy p;

	load_ok("# a comment\n"
		"name: \"n\";  # trailing\n"
		"description: 'd',\n"
		"limits { wall_time_ms: 100; cpu_time_ms: 200, }\n"
		"max_limits: { memory_mb: 1024 }\n", &p);
	cr_assert_str_eq(p.name, "n");
	cr_assert_str_eq(p.description, "d");
	cr_assert_eq(p.limits.v[LIM_WALL_TIME_MS], 100);
	cr_assert_eq(p.limits.v[LIM_CPU_TIME_MS], 200);
	cr_assert_eq(p.max_limits.v[LIM_MEMORY_MB], 1024);
	policy_free(&p);
}

Test(policy_parse, string_escapes_decode)
{
	struct policy p;

	load_ok("description: \"a\\n\\t\\\\\\\"\\'\\x41\\101\\7z\"", &p);
	cr_assert_str_eq(p.description, "a\n\t\\\"'AA\az");
	policy_free(&p);
}

Test(policy_parse, adjacent_strings_concatenate)
{
	struct policy p;

	load_ok("description: \"ab\" 'cd'\n  \"ef\"", &p);
	cr_assert_str_eq(p.description, "abcdef");
	policy_free(&p);
}

Test(policy_parse, utf8_strings_are_kept_verbatim)
{
	struct policy p;

	load_ok("description: \"caf\xc3\xa9 \xf0\x9f\x90\x8d\"", &p);
	cr_assert_str_eq(p.description, "caf\xc3\xa9 \xf0\x9f\x90\x8d");
	policy_free(&p);
}

Test(policy_parse, lists_for_repeated_fields)
{
	struct policy p;

	load_ok("env_keep: [\"A\", \"B\"]\nenv_keep: \"C\"\nenv_keep: []\n", &p);
	cr_assert_eq(p.env_keep.n, 3);
	cr_assert_str_eq(p.env_keep.v[2], "C");
	cr_assert_eq(p.env_keep.at[1].line, 1);
	cr_assert_eq(p.env_keep.at[1].col, 17);
	policy_free(&p);
}

Test(policy_parse, list_of_mount_messages)
{
	struct policy p;

	load_ok("mount: [{ dst: \"/a\" type: TMPFS }, { dst: \"/b\" type: PROC }]", &p);
	cr_assert_eq(p.nmounts, 2);
	cr_assert_str_eq(p.mounts[1].dst, "/b");
	policy_free(&p);
}

Test(policy_parse, every_field_records_its_position)
{
	struct policy p;

	load_ok("\n  hostname: \"h\"\nlimits {\n\tmemory_mb: 5 }", &p);
	cr_assert_str_eq(p.at[F_HOSTNAME].file, "x.policy");
	cr_assert_eq(p.at[F_HOSTNAME].line, 2);
	cr_assert_eq(p.at[F_HOSTNAME].col, 3);
	cr_assert_eq(p.limits.at[LIM_MEMORY_MB].line, 4);
	cr_assert_eq(p.limits.at[LIM_MEMORY_MB].col, 2);
	cr_assert_null(p.at[F_UID].file, "defaults have no file");
	policy_free(&p);
}

Test(policy_parse, empty_policy_loads_with_defaults)
{
	struct policy p;

	load_ok("", &p);
	cr_assert_str_eq(p.hostname, "sbx");
	cr_assert_str_eq(p.workspace, "/mnt/data");
	cr_assert_eq(p.uid, 65534);
	cr_assert_eq(p.network, NET_NONE);
	cr_assert_eq(policy_limit(&p, LIM_WALL_TIME_MS), 10000);
	cr_assert_eq(policy_limit(&p, LIM_OUTPUT_BYTES), 1048576);
	policy_free(&p);
}

Test(policy_parse, syntax_errors_name_line_and_column)
{
	load_fails("name: \"a\"\nhostname \"b\"", "x.policy:2:10: ", "expected ':' or '{' after 'hostname'");
	load_fails("limits {\n  memory_mb: 5\n", "x.policy:3:1: ", "expected '}', got end of file");
	load_fails("}", "x.policy:1:1: ", "expected a field name, got '}'");
	load_fails("name: ", "x.policy:1:7: ", "expected a value, got end of file");
	load_fails("env: [\"A=1\" \"B=2\" 3]", "x.policy:1:19: ", "expected ',' or ']'");
	load_fails("env: [[\"A=1\"]]", "x.policy:1:7: ", "lists cannot be nested");
	load_fails("name: @", "x.policy:1:7: ", "unexpected character '@'");
	load_fails("name: \xc3\xa9", "x.policy:1:7: ", "unexpected byte 0xc3");
}

Test(policy_parse, string_errors)
{
	load_fails("name: \"abc\n\"", "x.policy:1:7: ", "unterminated string");
	load_fails("name: 'abc", "x.policy:1:7: ", "unterminated string");
	load_fails("name: \"a\\qb\"", "x.policy:1:9: ", "unknown escape '\\q'");
	load_fails("name: \"\\x\"", "x.policy:1:8: ", "needs one or two hex digits");
	load_fails("name: \"\\777\"", "x.policy:1:8: ", "octal escape above");
}

Test(policy_parse, nul_byte_in_input_is_an_error_at_its_position)
{
	load_fails_n("name: \"a\"\nho\0st: 1", 18, "x.policy:2:3: ", "NUL byte in policy");
}

Test(policy_parse, escaped_nul_in_string_is_an_error)
{
	/* a NUL would silently cut the path or name short in C strings */
	load_fails("name: \"a\\0b\"", "x.policy:1:7: ", "NUL byte in string");
	load_fails("name: \"a\\x00\"", "x.policy:1:7: ", "NUL byte in string");
}

Test(policy_parse, invalid_utf8_in_string_is_an_error)
{
	load_fails("name: \"\xff\"", "x.policy:1:7: ", "invalid UTF-8");
	load_fails("name: \"\xc0\xaf\"", "x.policy:1:7: ", "invalid UTF-8"); /* overlong '/' */
	load_fails("name: \"\xed\xa0\x80\"", "x.policy:1:7: ", "invalid UTF-8"); /* surrogate */
	load_fails("name: \"\\xc3\" \"x\"", "x.policy:1:7: ", "invalid UTF-8");
	load_fails("name: \"\xe2\x82\"", "x.policy:1:7: ", "invalid UTF-8"); /* truncated */
}

Test(policy_parse, string_cap_is_64_kib)
{
	size_t cap = POLICY_MAX_STRING;
	char *text = malloc(cap + 32);
	struct policy p;

	strcpy(text, "description: \"");
	memset(text + 14, 'a', cap);
	strcpy(text + 14 + cap, "\"");
	load_ok(text, &p);
	cr_assert_eq(strlen(p.description), cap);
	policy_free(&p);
	strcpy(text + 14 + cap, "a\"");
	load_fails(text, "x.policy:1:14: ", "string longer than 65536 bytes");
	free(text);
}

Test(policy_parse, concatenation_cannot_bypass_the_string_cap)
{
	size_t half = POLICY_MAX_STRING / 2 + 1;
	char *text = malloc(2 * half + 64);

	strcpy(text, "description: \"");
	memset(text + 14, 'a', half);
	strcpy(text + 14 + half, "\" \"");
	memset(text + 17 + half, 'b', half);
	strcpy(text + 17 + 2 * half, "\"");
	load_fails(text, "x.policy:1:14: ", "string longer than");
	free(text);
}

Test(policy_parse, file_cap_is_1_mib)
{
	size_t n = POLICY_MAX_FILE + 1;
	char *text = malloc(n);

	memset(text, ' ', n);
	struct sbx_err err = { 0 };
	struct policy p;

	load_fails_n(text, n, "x.policy: ", "larger than 1048576 bytes");
	/* exactly the cap: blank text loads */
	cr_assert_eq(policy_load_text("x.policy", text, n - 1, &p, &err), 0, "%s", err.msg);
	policy_free(&p);
	free(text);
}

static char *nested(int depth)
{
	char *s = malloc((size_t)depth * 12 + 32);
	size_t off = 0;

	for (int i = 0; i < depth; i++)
		off += (size_t)sprintf(s + off, "a { ");
	for (int i = 0; i < depth; i++)
		off += (size_t)sprintf(s + off, "} ");
	s[off] = '\0';
	return s;
}

Test(policy_parse, nesting_beyond_32_is_an_error_not_a_stack_overflow)
{
	char *deep = nested(100000);

	load_fails(deep, "x.policy:1:131: ", "nesting deeper than 32 levels");
	free(deep);
	deep = nested(32);
	/* 32 levels parse; the schema then rejects the unknown field 'a' */
	load_fails(deep, "x.policy:1:1: ", "unknown field 'a'");
	free(deep);
}

Test(policy_parse, numbers)
{
	struct policy p;

	load_ok("uid: 0 gid: 65535", &p);
	cr_assert_eq(p.uid, 0);
	cr_assert_eq(p.gid, 65535);
	policy_free(&p);
	load_fails("uid: 18446744073709551616", "x.policy:1:6: ", "out of range");
	load_fails("uid: 99999999999999999999999", "x.policy:1:6: ", "out of range");
	load_fails("uid: 012", "x.policy:1:6: ", "leading zeros");
	load_fails("uid: 0x10", "x.policy:1:6: ", "invalid number '0x10'");
	load_fails("uid: 12abc", "x.policy:1:6: ", "invalid number");
	load_fails("uid: -", "x.policy:1:6: ", "invalid number '-'");
}

Test(policy_parse, huge_lists_are_capped_not_quadratic)
{
	/* 90,000 env entries once took over a minute to merge */
	size_t n = 5000, off = 0;
	char *text = malloc(n * 40 + 1);

	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "env:\"A%zu=\"\n", i);
	load_fails(text, "x.policy:4097:5: ", "too many 'env' entries (at most 4096)");
	off = 0;
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "mount{dst:\"/%zu\" type:PROC}\n", i);
	load_fails(text, "x.policy:4097:", "too many 'mount' entries");
	free(text);
}

Test(policy_parse, includes_are_capped)
{
	size_t n = 300, off = 0;
	char *text = malloc(n * 24 + 1);

	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "include: \"default\"\n");
	load_fails(text, "x.policy:257:10: ", "too many includes (at most 256");
	free(text);
}
