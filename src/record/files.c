/*
 * files.c - the record's "files" and "artifact_truncation" (spec §5,
 * requirements §1.14), from the workspace diff of src/workspace/diff.c.
 *
 * The diff is taken by the caller (src/cmd/run.c) after every jail process
 * is gone and handed over in struct result; this file only turns it into
 * JSON.  File names are bytes the program chose: result.c repairs every
 * string of the record to UTF-8 afterwards (and says so in strings_lossy).
 */
#include "record/internal.h"
#include "workspace/artifacts.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
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
	    !cJSON_AddStringToObject(o, "kind", kind_name(f->mode))) {
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

static cJSON *truncation_json(const struct art_scan *s)
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
	if (a->complete && a->after.skipped_count == 0)
		return true;
	return record_add(o, "artifact_truncation", truncation_json(&a->after));
}
