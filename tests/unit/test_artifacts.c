/*
 * test_artifacts.c - the workspace scan and diff (src/workspace/scan.c,
 * diff.c) and the record keys made from them (src/record/files.c): what a
 * run created, changed or deleted, that a planted symlink is listed and
 * never entered, and that what a truncated scan could not see never turns
 * into a deletion or an old file "created".
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/result.h"
#include "workspace/artifacts.h"

static char dir[64];
static int ws = -1;

static void setup_ws(void)
{
	strcpy(dir, "/tmp/sbx-artifacts-test-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	ws = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(ws, 0);
}

static void teardown_ws(void)
{
	char cmd[128];

	close(ws);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(artifacts, .init = setup_ws, .fini = teardown_ws);

static void put(const char *name, const char *text)
{
	int fd = openat(ws, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0, "%s", name);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const struct art_file *find(const struct artifacts *a, const char *path)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].path, path))
			return &a->v[i];
	return NULL;
}

/* A link to /etc in the workspace is the program's file, not a way out. */
Test(artifacts, a_symlink_is_listed_as_itself_and_never_entered)
{
	struct art_scan s = { 0 };
	struct sbx_err err = { 0 };

	cr_assert_eq(symlinkat("/etc", ws, "out"), 0);
	cr_assert_eq(art_scan(ws, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(s.v[0].path, "out");
	cr_assert(S_ISLNK(s.v[0].mode));
	cr_assert(art_scan_complete(&s));
	art_scan_free(&s);
}

Test(artifacts, the_diff_names_what_was_created_changed_and_deleted)
{
	struct art_scan before = { 0 };
	struct sbx_err err = { 0 };
	struct artifacts *a;

	put("kept", "same");
	put("edited", "old");
	put("gone", "x");
	cr_assert_eq(mkdirat(ws, "sub", 0755), 0);
	cr_assert_eq(art_scan(ws, &before, &err), 0, "%s", err.msg);
	int64_t since = now_ns();
	put("edited", "new text");
	cr_assert_eq(unlinkat(ws, "gone", 0), 0);
	put("sub/made", "fresh");
	a = art_diff(ws, &before, since, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert(a->complete);
	cr_assert_eq(a->n, 3);
	cr_assert_eq(find(a, "edited")->change, ART_CHANGED);
	cr_assert_eq(find(a, "edited")->size, 8);
	cr_assert_eq(find(a, "gone")->change, ART_DELETED);
	cr_assert_eq(find(a, "sub/made")->change, ART_CREATED);
	cr_assert_null(find(a, "kept"));
	art_free(a);
	art_scan_free(&before);
}

/* A file the before-scan could not see is not "deleted", and
 * one older than the run is not "created". */
Test(artifacts, a_truncated_scan_never_invents_a_change)
{
	struct art_scan before = { 0 };
	struct sbx_err err = { 0 };
	struct artifacts *a;

	put("gone", "seen, then removed");
	cr_assert_eq(art_scan(ws, &before, &err), 0, "%s", err.msg);
	put("old", "from before the run, unseen");
	/* as if that scan had hit a bound before it reached "old" */
	before.lost.skipped_count = 1;
	before.lost.reasons[ART_R_FILE_COUNT] = 1;
	int64_t since = now_ns();
	cr_assert_eq(unlinkat(ws, "gone", 0), 0);
	a = art_diff(ws, &before, since, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert_not(a->complete);
	cr_assert_eq(a->n, 0, "%s was reported as %d", a->n ? a->v[0].path : "",
		     a->n ? (int)a->v[0].change : -1);
	cr_assert_eq(a->truncation.reasons[ART_R_FILE_COUNT], 1, "the before-scan's loss is kept");
	art_free(a);
	art_scan_free(&before);
}

static cJSON *record_of(struct artifacts *a)
{
	struct result r;
	char *text;
	cJSON *j;

	result_init(&r);
	r.files = a;
	text = result_to_json(&r);
	cr_assert_not_null(text);
	j = cJSON_Parse(text);
	free(text);
	cr_assert_not_null(j);
	return j;
}

/* The record says "files" after a scan, and artifact_truncation only when
 * something was not seen (or not copied). */
Test(artifacts, the_record_has_files_and_truncation_only_when_something_was_missed)
{
	struct art_file files[] = { { .path = "a.txt", .change = ART_CREATED,
				      .mode = S_IFREG | 0644, .size = 3 } };
	struct artifacts a = { .v = files, .n = 1, .complete = true };
	cJSON *j = record_of(&a), *f;

	f = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "files"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(f, "path")->valuestring, "a.txt");
	cr_assert_str_eq(cJSON_GetObjectItem(f, "change")->valuestring, "created");
	cr_assert_str_eq(cJSON_GetObjectItem(f, "kind")->valuestring, "file");
	cr_assert_eq(cJSON_GetObjectItem(f, "bytes")->valuedouble, 3);
	cr_assert_null(cJSON_GetObjectItem(j, "artifact_truncation"));
	cJSON_Delete(j);

	a.complete = false;
	a.truncation.skipped_count = 1;
	a.truncation.reasons[ART_R_DEPTH] = 1;
	j = record_of(&a);
	f = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "artifact_truncation"), "reasons");
	cr_assert_eq(cJSON_GetObjectItem(f, "depth")->valuedouble, 1);
	cJSON_Delete(j);
}

Test(artifacts, no_scan_means_no_files_key)
{
	cJSON *j = record_of(NULL);

	cr_assert_null(cJSON_GetObjectItem(j, "files"));
	cr_assert_null(cJSON_GetObjectItem(j, "artifact_truncation"));
	cJSON_Delete(j);
}
