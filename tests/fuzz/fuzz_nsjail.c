/*
 * fuzz_nsjail.c - libFuzzer target for `sbx import nsjail`.
 *
 * Any input must give either a translation or a clean ERR_CONFIG message
 * (never a crash, leak, sanitizer report or internal error), and every
 * translation must load with the real policy loader and keep its notes
 * well-formed; its origins are then pointed back at the config, as
 * `-p nsjail:FILE` does (origins.c, bounds checked by the sanitizers).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_err err = { 0 };
	struct import_result r;
	struct policy p;

	if (import_nsjail_text("fuzz.cfg", (const char *)data, size, &r, &err) < 0) {
		/* a translation that does not load would be an ERR_INTERNAL */
		if (err.kind != ERR_CONFIG) {
			fprintf(stderr, "not a config error (%d): %s\n", err.kind, err.msg);
			abort();
		}
		return 0;
	}
	if (policy_load_text("nsjail:fuzz.cfg", r.text, r.len, &p, &err) < 0) {
		fprintf(stderr, "translation does not load: %s\n%s", err.msg, r.text);
		abort();
	}
	if (nj_remap_origins(&p, "nsjail:fuzz.cfg", "fuzz.cfg", &r, &err) < 0)
		abort();
	for (size_t i = 0; i < r.nnotes; i++)
		if (!r.notes[i].where || !r.notes[i].text || strchr(r.notes[i].text, '\n'))
			abort();
	policy_free(&p);
	import_result_free(&r);
	return 0;
}
