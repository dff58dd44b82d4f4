/*
 * bpf-dump.c - write the seccomp programs sbx builds for each built-in
 * policy to stdout, one labelled hex line per program: the normal one, the
 * run's (with a 512 MiB mmap bound), the learning one, and the normal one
 * with KILL as the deny action.  Comparing its output before and after a
 * change to the filter generator shows whether a program changed at all.
 * Built by `make bpf-dump` against the build's objects.
 */
#include <stdio.h>
#include <string.h>

#include "jail/seccomp.h"
#include "policy/policy.h"

static void dump(const char *label, const struct sock_fprog *p)
{
	const unsigned char *b = (const unsigned char *)p->filter;

	printf("%s len=%u ", label, p->len);
	for (size_t i = 0; i < p->len * sizeof(*p->filter); i++)
		printf("%02x", b[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "default", "host", "sh", "bash", "py",
					     "c", "cpp", "node", "perl" };
	int rc = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct policy p;
		struct sbx_err err = { 0 };
		struct sock_fprog prog;
		char label[64];

		if (policy_load(names[i], &p, &err) < 0) {
			fprintf(stderr, "bpf-dump: %s: %s\n", names[i], err.msg);
			return 1;
		}
#define ONE(kind, call)                                                        \
	do {                                                                   \
		snprintf(label, sizeof(label), "%s/%s", names[i], kind);       \
		if ((call) < 0) {                                              \
			fprintf(stderr, "bpf-dump: %s: %s\n", label, err.msg); \
			rc = 1;                                                \
		} else {                                                       \
			dump(label, &prog);                                    \
			sc_filter_free(&prog);                                 \
		}                                                              \
	} while (0)
		ONE("filter", sc_filter_build(&p.seccomp, &prog, &err));
		ONE("run-512M", sc_filter_build_run(&p.seccomp, 512ull << 20, &prog, &err));
		ONE("learn", sc_filter_build_learn(&p.seccomp, &prog, &err));
		p.seccomp.deny_action = SC_KILL;
		ONE("filter-kill", sc_filter_build(&p.seccomp, &prog, &err));
		policy_free(&p);
	}
	return rc;
}
