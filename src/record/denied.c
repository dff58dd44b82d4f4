/*
 * denied.c - the record's denied_syscalls array (denied.h, internal.h).
 */
#include "record/denied.h"
#include "record/internal.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static int by_count(const void *a, const void *b)
{
	const struct denied_call *x = *(const struct denied_call *const *)a;
	const struct denied_call *y = *(const struct denied_call *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static cJSON *call_json(const struct denied_call *c)
{
	cJSON *o = cJSON_CreateObject();
	char err[32];

	denied_errno_name(c->err, err, sizeof(err));
	if (!o || !cJSON_AddStringToObject(o, "name", c->name) ||
	    !cJSON_AddNumberToObject(o, "count", (double)c->count) ||
	    !cJSON_AddStringToObject(o, "action", c->err ? "errno" : "kill") ||
	    !cJSON_AddItemToObject(o, "errno", c->err ? cJSON_CreateString(err)
						       : cJSON_CreateNull()) ||
	    (c->arg >= 0 && !cJSON_AddStringToObject(o, "arg", c->arg_text))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *omitted_json(uint64_t n)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddStringToObject(o, "name", "(more)") ||
	    !cJSON_AddNumberToObject(o, "count", (double)n) ||
	    !cJSON_AddItemToObject(o, "errno", cJSON_CreateNull())) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *denied_json(const struct denied_report *r)
{
	const struct denied_call *sorted[DENIED_MAX];
	cJSON *arr;

	if (!r)
		return cJSON_CreateNull();
	arr = cJSON_CreateArray();
	for (size_t i = 0; i < r->n; i++)
		sorted[i] = &r->v[i];
	qsort(sorted, r->n, sizeof(sorted[0]), by_count);
	for (size_t i = 0; arr && i < r->n; i++) {
		cJSON *c = call_json(sorted[i]);
		if (!c) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, c);
	}
	if (arr && r->omitted) {
		cJSON *c = omitted_json(r->omitted);
		if (!c) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, c);
	}
	return arr;
}
