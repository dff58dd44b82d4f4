/*
 * fuzz_uidrange.c - libFuzzer target over the uid-range file parser, the
 * streaming reader of the host id databases (/etc/passwd, /etc/group,
 * /etc/subuid style) that a root caller's jail uid is checked against, and
 * the nsswitch.conf reader (jail/uidrange.c, jail/uiddb.c).
 *
 * The first byte picks the database kind, the next two a chunk size; the
 * rest is the text.  The same text fed whole and in chunks must take the
 * same ids: a chunk boundary inside a line must change nothing.  Nothing
 * is read from disk, nothing is locked and no getent runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jail/uiddb.h"
#include "jail/uidrange.h"

/* The ids of TEXT as KIND, fed STEP bytes at a time, into S. */
static void scan(struct id_set *s, enum uid_db kind, const char *text, size_t len,
		 size_t step)
{
	struct uid_scan sc;

	uid_scan_init(&sc, kind, s);
	for (size_t at = 0; at < len; at += step)
		uid_scan_feed(&sc, text + at, len - at < step ? len - at : step);
	uid_scan_end(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uid_range r;
	struct sbx_err err;
	struct id_set whole, chunked;
	char others[256];
	bool subid;
	size_t step;

	if (size < 3)
		return 0;
	enum uid_db kind = (enum uid_db)(data[0] & 3);
	step = 1 + ((size_t)data[1] << 8 | data[2]) % 97;
	const char *text = (const char *)data + 3;
	size_t len = size - 3;

	(void)uidrange_parse(text, len, "fuzz", &r, &err);
	(void)uiddb_nss_beyond_files(text, len, len % 2, &subid, others, sizeof(others));
	/* a range around where small fuzzed numbers land, and sbx's own */
	id_set_init(&whole, 0, 4096);
	id_set_init(&chunked, 0, 4096);
	scan(&whole, kind, text, len, len ? len : 1);
	scan(&chunked, kind, text, len, step);
	for (uint64_t id = 0; id < 4096; id = id_set_next_free(&whole, id) + 1)
		if (id_set_next_free(&whole, id) != id_set_next_free(&chunked, id))
			abort();
	id_set_free(&whole);
	id_set_free(&chunked);
	id_set_init(&whole, UIDRANGE_DEFAULT_FIRST,
		    (uint64_t)UIDRANGE_DEFAULT_FIRST + UIDRANGE_DEFAULT_COUNT);
	scan(&whole, kind, text, len, step);
	(void)id_set_next_free(&whole, UIDRANGE_DEFAULT_FIRST);
	id_set_free(&whole);
	return 0;
}
