/*
 * test_result_utf8.c - every string of the record is valid UTF-8 whatever
 * bytes the caller passed.
 *
 * argv, -e values, paths and file names in the workspace are bytes; cJSON
 * copies them as they are, so one 0xFF made the whole record invalid JSON
 * for a strict parser (python's json, serde, Go's encoding/json with
 * validation).  Invalid sequences become U+FFFD and "strings_lossy" says so.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workspace/artifacts.h"
#include "record/result.h"
#include "base/utf8.h"

static struct policy pol;
static char *bad_cmd[] = { "\xfe" "arg", "a\xc0\xaf" "b", "\xed\xa0\x80", "ok\xf4\x90\x80\x80", NULL };

static void fill(struct result *r)
{
	memset(&pol, 0, sizeof(pol));
	pol.name = "p\xff";
	pol.hostname = "h\x80";
	pol.uid = pol.gid = 65534;
	result_init(r);
	r->status = ST_NONZERO_EXIT;
	r->has_exit_code = true;
	r->exit_code = 1;
	r->policy = &pol;
	r->command = bad_cmd;
	snprintf(r->message, sizeof(r->message), "exec of %s failed", bad_cmd[0]);
}

/* The record as text: strictly valid UTF-8, and it parses back. */
static cJSON *parse_strict(const struct result *r, char **text)
{
	cJSON *j;

	*text = result_to_json(r);
	cr_assert_not_null(*text);
	cr_assert(utf8_is_valid((const unsigned char *)*text, strlen(*text)),
		  "not UTF-8: %s", *text);
	j = cJSON_Parse(*text);
	cr_assert_not_null(j, "does not parse: %s", *text);
	return j;
}

static const char *item_str(const cJSON *arr, int i)
{
	const cJSON *s = cJSON_GetArrayItem(arr, i);

	cr_assert(cJSON_IsString(s));
	return s->valuestring;
}

Test(result_utf8, invalid_bytes_in_argv_policy_and_message_become_u_fffd)
{
	struct result r;
	char *text;
	cJSON *j, *cmd;

	fill(&r);
	j = parse_strict(&r, &text);
	cmd = cJSON_GetObjectItem(j, "command");
	cr_assert_str_eq(item_str(cmd, 0), "\xef\xbf\xbd" "arg");
	cr_assert_str_eq(item_str(cmd, 1), "a\xef\xbf\xbd\xef\xbf\xbd" "b"); /* overlong */
	cr_assert_str_eq(item_str(cmd, 2), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* CESU-8 */
	cr_assert_str_eq(item_str(cmd, 3), "ok\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "policy")->valuestring, "p\xef\xbf\xbd");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "message")->valuestring,
			 "exec of \xef\xbf\xbd" "arg failed");
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "isolation"),
					     "hostname")->valuestring, "h\xef\xbf\xbd");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "strings_lossy")));
	cJSON_Delete(j);
	free(text);
}

/* A message cut at its 512-byte buffer inside a character stays valid. */
Test(result_utf8, message_cut_inside_a_character_stays_valid)
{
	struct result r;
	char *text;
	cJSON *j;

	fill(&r);
	memset(r.message, 'a', sizeof(r.message) - 2);
	memcpy(r.message + sizeof(r.message) - 3, "\xe4\xbd", 2); /* half of U+4F60 */
	r.message[sizeof(r.message) - 1] = '\0';
	j = parse_strict(&r, &text);
	cJSON_Delete(j);
	free(text);
}

/* Valid text, non-ASCII included, passes untouched and is not flagged. */
Test(result_utf8, valid_utf8_is_kept_and_not_flagged)
{
	static char *cmd[] = { "caf\xc3\xa9", "\xe4\xbd\xa0\xe5\xa5\xbd", "\xf0\x9f\x98\x80", NULL };
	struct result r;
	char *text;
	cJSON *j;

	fill(&r);
	pol.name = "d\xc3\xa9" "faut";
	pol.hostname = "sbx";
	r.command = cmd;
	snprintf(r.message, sizeof(r.message), "exited with code 1");
	j = parse_strict(&r, &text);
	cr_assert_str_eq(item_str(cJSON_GetObjectItem(j, "command"), 1), cmd[1]);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "policy")->valuestring, pol.name);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "strings_lossy")));
	cJSON_Delete(j);
	free(text);
}

/* File names in the workspace are any bytes the program chose. */
Test(result_utf8, file_names_and_the_compile_stage_are_repaired_and_flagged)
{
	struct art_file files[] = {
		{ .path = "bad\xff" "name", .change = ART_CREATED, .mode = S_IFREG | 0644 },
	};
	struct artifacts a = { .v = files, .n = 1, .complete = false };
	struct result r, comp;
	char *text;
	cJSON *j, *f;

	a.truncation.skipped[0] = "skip\xc1";
	a.truncation.nskipped = 1;
	a.truncation.skipped_count = 1;
	fill(&r);
	fill(&comp);
	r.files = &a;
	r.compile = &comp;
	r.stage = "run";
	j = parse_strict(&r, &text);
	f = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "files"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(f, "path")->valuestring, "bad\xef\xbf\xbd" "name");
	cr_assert_str_eq(item_str(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "artifact_truncation"),
						      "skipped"), 0), "skip\xef\xbf\xbd");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "compile"),
						   "strings_lossy")));
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "strings_lossy")));
	cJSON_Delete(j);
	free(text);
}
