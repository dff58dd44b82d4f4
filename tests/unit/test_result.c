/*
 * test_result.c - the JSON record (sbx-result(5)): one line, the right keys, null
 * for what was not measured, and every status validates against
 * contrib/result.schema.json (checked with python3-jsonschema; the test is
 * skipped, never passed, when that is not installed).
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/result.h"

static struct policy test_policy;

static void setup_policy(void)
{
	memset(&test_policy, 0, sizeof(test_policy));
	test_policy.name = "default";
	test_policy.hostname = "sbx";
	test_policy.uid = test_policy.gid = 65534;
}

static char *cmd[] = { "/bin/echo", "hi", NULL };

static void fill(struct result *r, enum run_status st)
{
	result_init(r);
	r->status = st;
	r->policy = &test_policy;
	r->command = cmd;
	snprintf(r->message, sizeof(r->message), "test %s", run_status_name(st));
	r->wall_ms = 12.5;
	r->cpu_user_ms = 3;
	r->cpu_sys_ms = 1;
	r->max_rss_kib = 2048;
	if (st == ST_OK || st == ST_NONZERO_EXIT) {
		r->has_exit_code = true;
		r->exit_code = st == ST_OK ? 0 : 7;
	}
	if (st == ST_SIGNALED || st == ST_TIMEOUT || st == ST_SECCOMP)
		r->term_signal = st == ST_SECCOMP ? SIGSYS : SIGKILL;
	if (st == ST_CONFIG_ERROR) {
		r->policy = NULL;
		r->wall_ms = r->cpu_user_ms = r->cpu_sys_ms = -1;
		r->max_rss_kib = -1;
	}
}

static cJSON *parse(const struct result *r)
{
	char *text = result_to_json(r);
	cJSON *j;

	cr_assert_not_null(text);
	cr_assert_null(strchr(text, '\n'), "the record must be one line");
	j = cJSON_Parse(text);
	cr_assert_not_null(j, "not JSON: %s", text);
	free(text);
	return j;
}

Test(result, status_names_are_the_documented_ones, .init = setup_policy)
{
	cr_assert_str_eq(run_status_name(ST_NONZERO_EXIT), "nonzero-exit");
	cr_assert_str_eq(run_status_name(ST_CPU_LIMIT), "cpu-limit");
	cr_assert_str_eq(run_status_name(ST_OUTPUT_LIMIT), "output-limit");
	cr_assert_str_eq(run_status_name(ST_ABORTED), "aborted");
	cr_assert_str_eq(run_status_name(ST_COMPILE_ERROR), "compile-error");
}

/* A measurement sbx could not take is null, never a healthy-looking 0. */
Test(result, unknown_measurements_are_null, .init = setup_policy)
{
	struct result r;
	cJSON *j;

	result_init(&r);
	j = parse(&r);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "wall_ms")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "cpu_user_ms")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "max_rss_kib")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "exit_code")));
	/* an unfilled result never claims success */
	cr_assert_str_eq(cJSON_GetObjectItem(j, "status")->valuestring, "setup-error");
	cJSON_Delete(j);
	result_free(&r);
}

Test(result, signal_is_named, .init = setup_policy)
{
	struct result r;
	cJSON *j;

	fill(&r, ST_SIGNALED);
	j = parse(&r);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "signal")->valuestring, "SIGKILL");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "exit_code")));
	cJSON_Delete(j);
}

/* Captured text may hold NULs; cJSON strings cannot, so result.c escapes. */
Test(result, captured_nul_bytes_survive, .init = setup_policy)
{
	struct result r;
	cJSON *j, *out;

	fill(&r, ST_OK);
	r.capture = true;
	r.out.text = malloc(4);
	memcpy(r.out.text, "a\0b", 4);
	r.out.len = 3;
	j = parse(&r);
	out = cJSON_GetObjectItem(j, "stdout");
	cr_assert(cJSON_IsString(out));
	cr_assert_str_eq(out->valuestring, "a"); /* cJSON stops at the NUL: it was there */
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "stdout_lossy")));
	cr_assert_not_null(cJSON_GetObjectItem(j, "stderr"));
	cJSON_Delete(j);
	result_free(&r);
}

Test(result, emit_to_fd_writes_one_line, .init = setup_policy)
{
	struct result r;
	char spec[32], buf[8192];
	int p[2];
	ssize_t n;

	fill(&r, ST_OK);
	cr_assert_eq(pipe(p), 0);
	snprintf(spec, sizeof(spec), "fd:%d", p[1]);
	cr_assert_eq(result_emit(&r, spec), 0);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	cr_assert(n > 2);
	buf[n] = '\0';
	cr_assert_eq(buf[n - 1], '\n');
	cr_assert_eq(strchr(buf, '\n'), buf + n - 1, "more than one line");
}

static const char *schema_path(void)
{
	static char path[4096];
	const char *src = getenv("SBX_SRC");

	snprintf(path, sizeof(path), "%s/contrib/result.schema.json", src ? src : ".");
	return path;
}

/* Every status's record validates: the schema catches drift both ways. */
Test(result, every_status_validates_against_the_schema, .init = setup_policy)
{
	static const char validator[] =
		"import json,sys\n"
		"try:\n import jsonschema\nexcept ImportError:\n sys.exit(77)\n"
		"s=json.load(open(sys.argv[1]))\n"
		"v=jsonschema.Draft202012Validator(s)\n"
		"bad=0\n"
		"for line in sys.stdin:\n"
		" for e in v.iter_errors(json.loads(line)):\n"
		"  print(e.message,file=sys.stderr); bad=1\n"
		"sys.exit(bad)\n";
	char tmpl[] = "/tmp/sbx-test-result-XXXXXX";
	int fd = mkstemp(tmpl);
	FILE *f;

	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	for (int st = ST_OK; st <= ST_ABORTED; st++) {
		struct result r;
		fill(&r, (enum run_status)st);
		if (st == ST_OK) {
			r.capture = true;
			r.out.text = strdup("x\xef\xbf\xbd");
			r.out.len = 4;
			r.out.lossy = true;
		}
		char *text = result_to_json(&r);
		cr_assert_not_null(text);
		fprintf(f, "%s\n", text);
		free(text);
		result_free(&r);
	}
	fclose(f);
	if (access("/usr/bin/python3", X_OK) != 0) {
		unlink(tmpl);
		cr_skip_test("SKIP: /usr/bin/python3 is not installed");
	}
	char *cmd_line = NULL;
	cr_assert(asprintf(&cmd_line, "/usr/bin/python3 -c '%s' '%s' < '%s'", validator,
			   schema_path(), tmpl) > 0);
	int rc = system(cmd_line);
	free(cmd_line);
	unlink(tmpl);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		cr_skip_test("SKIP: python3-jsonschema is not installed");
	cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "a record does not match %s",
		  schema_path());
}
