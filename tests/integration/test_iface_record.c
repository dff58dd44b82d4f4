/*
 * test_iface_record.c - the record stays valid UTF-8 JSON whatever bytes the
 * caller passes.
 *
 * A service passes user-chosen argv, -e values and paths to sbx; the
 * program names its files as it likes.  One 0xFF byte copied raw made the
 * whole record unparseable for a strict reader, so the service lost the
 * verdict.  The record is checked with python3's json on bytes decoded
 * strictly as UTF-8 (cJSON itself is lenient).
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exit status of python3 checking that FILE holds one strict UTF-8 JSON
 * object whose field KEY is true (77: no python3). */
static int strict_check(const char *file, const char *key)
{
	static const char script[] =
		"import json,sys\n"
		"d=json.loads(open(sys.argv[1],'rb').read().decode('utf-8','strict'))\n"
		"sys.exit(0 if d.get(sys.argv[2]) is True else 3)\n";
	char *cmd;
	int rc;

	if (access("/usr/bin/python3", X_OK) != 0)
		return 77;
	cmd = xasprintf("/usr/bin/python3 -c \"%s\" '%s' '%s'", script, file, key);
	rc = system(cmd);
	free(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static void assert_strict_record(const char *file)
{
	int rc = strict_check(file, "strings_lossy");

	if (rc == 77)
		cr_skip_test("SKIP: /usr/bin/python3 is not installed");
	cr_assert_eq(rc, 0, "the record in %s is not strict UTF-8 JSON with "
		     "strings_lossy true (python exit %d)", file, rc);
}

/* The reported case: `sbx run -e X=$'\xff' -- $'\xfe'arg`. */
Test(iface_record, non_utf8_argv_and_env_give_a_strict_json_record)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *rec = xasprintf("%s/rec.json", dir);

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-r", rec, "-e", "X=\xff", "--", "/bin/sh", "-c",
				   "exit 3", "\xfe" "arg", "a\xc0\xaf"));
	cr_assert_eq(r.exit_status, 3, "exit %d: %s", r.exit_status, r.err);
	assert_strict_record(rec);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(rec);
}

/* A command that is not found: the message quotes argv[0]'s bytes. */
Test(iface_record, non_utf8_command_name_in_the_message_gives_a_strict_record)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *rec = xasprintf("%s/rec.json", dir);

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-r", rec, "--", "\xfe\xff" "cmd"));
	cr_assert_eq(r.exit_status, 127, "exit %d: %s", r.exit_status, r.err);
	assert_strict_record(rec);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(rec);
}

/* A config error quoting a caller's path (--stdin, --policy). */
Test(iface_record, non_utf8_path_in_a_config_error_gives_a_strict_record)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *rec = xasprintf("%s/rec.json", dir);

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-r", rec, "--stdin", "/nonexistent/\xff", "--",
				   "/bin/true"));
	cr_assert_eq(r.exit_status, 125, "exit %d: %s", r.exit_status, r.err);
	assert_strict_record(rec);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(rec);
}

static cJSON *load_record(const char *file)
{
	FILE *f = fopen(file, "re");
	static char buf[65536];
	size_t n;

	cr_assert_not_null(f, "no record in %s", file);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return cJSON_Parse(buf);
}

/* The program names a file in the workspace with any bytes it likes. */
Test(iface_record, non_utf8_file_name_in_the_workspace_gives_a_strict_record)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *rec = xasprintf("%s/rec.json", dir);
	const cJSON *f;
	cJSON *j;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-r", rec, "--", "/bin/sh", "-c",
				   "touch \"$(printf 'a\\377b')\""));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.err);
	assert_strict_record(rec);
	j = load_record(rec);
	f = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "files"), 0);
	cr_assert(f && cJSON_IsString(cJSON_GetObjectItem(f, "path")), "no files in %s", rec);
	cr_assert_str_eq(cJSON_GetObjectItem(f, "path")->valuestring, "a\xef\xbf\xbd" "b");
	cJSON_Delete(j);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(rec);
}
