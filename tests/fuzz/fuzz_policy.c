/*
 * fuzz_policy.c - libFuzzer target for the policy loader.
 *
 * Any input must give either a policy or a clean ERR_CONFIG message (never
 * a crash, leak or sanitizer report), and every policy that loads must
 * survive policy_write_text -> policy_load_text unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* includes must resolve to built-ins only, never to this host's files */
	setenv("XDG_CONFIG_HOME", "/nonexistent-sbx-fuzz", 1);
	setenv("HOME", "/nonexistent-sbx-fuzz", 1);
	return 0;
}

static void round_trip(const struct policy *p)
{
	struct sbx_err err = { 0 };
	struct policy q;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	policy_write_text(p, f);
	fclose(f);
	if (policy_load_text("/nonexistent-sbx-fuzz/rt.policy", buf, len, &q, &err) < 0) {
		fprintf(stderr, "written policy does not load: %s\n%s", err.msg, buf);
		abort();
	}
	if (!policy_equal(p, &q)) {
		fprintf(stderr, "round trip changed the policy:\n%s", buf);
		abort();
	}
	policy_free(&q);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_err err = { 0 };
	struct policy p;

	if (policy_load_text("/nonexistent-sbx-fuzz/f.policy", (const char *)data, size,
			     &p, &err) < 0) {
		if (err.kind != ERR_CONFIG && err.kind != ERR_INTERNAL)
			abort();
		if (strlen(err.msg) == 0)
			abort();
		return 0;
	}
	round_trip(&p);
	policy_free(&p);
	return 0;
}
