/*
 * internal.h - what the files of src/record share and nobody else needs.
 *
 * result.c builds the record; files.c adds the keys that describe the
 * workspace ("files", "artifact_truncation") from the diff the caller
 * (src/cmd/run.c) took and handed over in struct result; denied.c the
 * "denied_syscalls" array from the supervisor's report; limits.c the
 * limits as they applied.  json.c holds what all of them build keys with,
 * names.c the names of signals and errnos: result.c calls the parts, the
 * parts call json.c and names.c, and nothing calls back.
 */
#ifndef SBX_RECORD_INTERNAL_H
#define SBX_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/policy.h"

struct cJSON;
struct artifacts;
struct denied_report;

/* json.c: add ITEM to O as KEY; false (nothing added) when ITEM is NULL:
 * out of memory while building it. */
bool record_add(struct cJSON *o, const char *key, struct cJSON *item);
/* json.c: a limit's value, JSON null for LIMIT_UNLIMITED (NULL on out of
 * memory). */
struct cJSON *record_limit_value(uint64_t v);

/* files.c: add "files" and, when a scan was incomplete,
 * "artifact_truncation" of A to O.  False only on out of memory. */
bool record_add_files(struct cJSON *o, const struct artifacts *a);

/* limits.c: one "clamped" entry ("by": "ulimit") in ARR for each limit an
 * inherited rlimit lowered (false on out of memory). */
bool record_add_ulimit_clamps(struct cJSON *arr, const struct policy *p);

/* R's entries, most counted first, as a JSON array; NULL R: JSON null.
 * NULL on out of memory.  denied.c. */
struct cJSON *denied_json(const struct denied_report *r);

#endif
