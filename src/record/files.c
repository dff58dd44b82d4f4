/*
 * files.c - the record's "files" and "artifact_truncation" (sbx-result(5)),
 * from the workspace diff of src/workspace/diff.c.
 *
 * The diff is taken by the caller (src/cmd/run.c) after every jail process
 * is gone and handed over in struct result; this file only turns it into
 * JSON.  File names are bytes the program chose: result.c repairs every
 * string of the record to UTF-8 afterwards (and says so in strings_lossy).
 */
#include "record/internal.h"
#include "record/result.h"
#include "workspace/artifacts.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *kind_name(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISLNK(m) ? "symlink" : S_ISFIFO(m) ? "fifo"
	     : S_ISSOCK(m) ? "socket" : "device";
}

static const char *const change_names[] = { "created", "changed", "deleted" };

static const char *const reason_names[ART_R_COUNT] = {
	[ART_R_FILE_COUNT] = "file_count", [ART_R_DEPTH] = "depth",
	[ART_R_PATH_LENGTH] = "path_length", [ART_R_UNREADABLE] = "unreadable",
	[ART_R_PROBE_BUDGET] = "probe_budget", [ART_R_OUT_BUDGET] = "out_budget",
	[ART_R_OUT_REFUSED] = "out_refused", [ART_R_OUT_FAILED] = "out_failed",
};

static cJSON *file_json(const struct art_file *f)
{
	cJSON *o = cJSON_CreateObject();
	bool sized = f->change != ART_DELETED && S_ISREG(f->mode);

	if (!o || !record_add(o, "path", cJSON_CreateString(f->path)) ||
	    !record_add(o, "bytes", sized ? cJSON_CreateNumber((double)f->size)
					: cJSON_CreateNull()) ||
	    !cJSON_AddStringToObject(o, "change", change_names[f->change]) ||
	    !cJSON_AddStringToObject(o, "kind", kind_name(f->mode)) ||
	    !cJSON_AddBoolToObject(o, "at_size_limit", f->at_size_limit) ||
	    (f->copy != ART_COPY_NONE &&
	     !cJSON_AddStringToObject(o, "copy_out", f->copy == ART_COPY_DONE
			? "copied" : reason_names[f->copy_reason]))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *files_json(const struct artifacts *a)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < a->n; i++) {
		cJSON *f = file_json(&a->v[i]);
		if (!f) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, f);
	}
	return arr;
}

static cJSON *truncation_json(const struct art_truncation *s)
{
	cJSON *o = cJSON_CreateObject(), *reasons = cJSON_CreateObject();
	cJSON *skipped = cJSON_CreateArray();
	bool ok = o && reasons && skipped;

	for (int i = 0; ok && i < ART_R_COUNT; i++)
		ok = cJSON_AddNumberToObject(reasons, reason_names[i],
					     (double)s->reasons[i]) != NULL;
	for (size_t i = 0; ok && i < s->nskipped; i++) {
		cJSON *p = cJSON_CreateString(s->skipped[i]);
		ok = p != NULL;
		if (ok)
			cJSON_AddItemToArray(skipped, p);
	}
	if (!ok) {
		cJSON_Delete(o);
		cJSON_Delete(reasons);
		cJSON_Delete(skipped);
		return NULL;
	}
	cJSON_AddItemToObject(o, "reasons", reasons);
	cJSON_AddNumberToObject(o, "skipped_count", (double)s->skipped_count);
	cJSON_AddItemToObject(o, "skipped", skipped);
	return o;
}

bool record_add_files(cJSON *o, const struct artifacts *a)
{
	if (!a)
		return true; /* no scan: no "files" */
	if (!record_add(o, "files", files_json(a)))
		return false;
	/* -o adds its own skips to a complete scan's (empty) truncation */
	if (a->complete && a->truncation.skipped_count == 0)
		return true;
	return record_add(o, "artifact_truncation", truncation_json(&a->truncation));
}

/* Up to NAMED paths of A's files that PICK selects, into the message. */
static void name_files(char *msg, size_t size, const struct artifacts *a,
		       bool (*pick)(const struct art_file *))
{
	enum { NAMED = 3 };
	size_t n = 0, len;

	for (size_t i = 0; i < a->n; i++) {
		if (!pick(&a->v[i]))
			continue;
		len = strlen(msg);
		if (n < NAMED && len < size - 1)
			text_append(msg, size, "%s%s", n ? ", " : "", a->v[i].path);
		n++;
	}
	len = strlen(msg);
	if (n > NAMED && len < size - 1)
		text_append(msg, size, " and %zu more", n - NAMED);
}

static bool at_limit(const struct art_file *f)
{
	return f->at_size_limit;
}

static bool not_copied(const struct art_file *f)
{
	return f->copy == ART_COPY_MISSED;
}

static size_t count_files(const struct artifacts *a, bool (*pick)(const struct art_file *))
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += pick(&a->v[i]);
	return n;
}

void result_note_files(struct result *r)
{
	const struct artifacts *a = r->files;
	size_t len, missed;

	if (!a || !r->policy)
		return;
	/* a file cut at the limit looks whole once copied out: say so */
	len = strlen(r->message);
	if (count_files(a, at_limit) && len < sizeof(r->message) - 1) {
		text_append(r->message, sizeof(r->message), "; a write hit the "
			 "file-size limit (file_size_mb = %" PRIu64 "), the file may be cut "
			 "short: ", record_applied_limit(r->policy, LIM_FILE_SIZE_MB));
		name_files(r->message, sizeof(r->message), a, at_limit);
	}
	/* the status stays the program's; the message says -o's output is not whole */
	len = strlen(r->message);
	missed = count_files(a, not_copied);
	if (missed && len < sizeof(r->message) - 1) {
		text_append(r->message, sizeof(r->message), "; -o output incomplete: "
			 "%zu file%s not copied (see files[].copy_out): ", missed,
			 missed == 1 ? "" : "s");
		name_files(r->message, sizeof(r->message), a, not_copied);
	}
}
