/*
 * json.c - the two pieces every key of the record is built from, shared by
 * result.c and the files that build parts of the record (files.c,
 * limits.c): adding a value that may have failed to build, and a limit.
 */
#include "record/internal.h"

#include <cjson/cJSON.h>

bool record_add(cJSON *obj, const char *key, cJSON *item)
{
	if (!item)
		return false;
	cJSON_AddItemToObject(obj, key, item);
	return true;
}

cJSON *record_limit_value(uint64_t v)
{
	if (v == LIMIT_UNLIMITED)
		return cJSON_CreateNull();
	return cJSON_CreateNumber((double)v);
}
