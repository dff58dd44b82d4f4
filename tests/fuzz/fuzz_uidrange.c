/*
 * fuzz_uidrange.c - libFuzzer target over the uid-range file parser and
 * the host id databases (/etc/passwd, /etc/group, /etc/subuid style) that
 * a root caller's jail uid is checked against (jail/uidrange.c).
 *
 * The first byte picks the database slot, the next four an id; the rest
 * is the text.  Nothing is read from disk and nothing is locked.
 */
#include <stdint.h>
#include <string.h>

#include "jail/uidrange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uid_range r;
	struct sbx_err err;
	const char *db[4] = { 0 };
	size_t len[4] = { 0 };
	uint32_t id;

	if (size < 5)
		return 0;
	memcpy(&id, data + 1, 4);
	db[data[0] & 3] = (const char *)data + 5;
	len[data[0] & 3] = size - 5;
	(void)uidrange_parse((const char *)data + 5, size - 5, "fuzz", &r, &err);
	(void)uidrange_taken(db, len, id);
	return 0;
}
