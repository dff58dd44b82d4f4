/*
 * test_probes_common.h - run an isolation probe through the real sbx and
 * judge its verdict, for the test_probes_*.c suites.
 *
 * The probe directory ($SBX_PROBES) lives under the source tree, which the
 * jail cannot see, so it is bound read-only at /probes.  A probe ends with
 * one line "BLOCKED: ..." (exit 0) or "ESCAPED: ..." (exit 1); the tests
 * assert both, plus what the probe cannot fake from inside (time, host
 * files, host processes, bytes at a host listener).
 */
#ifndef SBX_TEST_PROBES_COMMON_H
#define SBX_TEST_PROBES_COMMON_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness.h"

#define PROBE_MAX_ARGS 48

/* Skip (never pass silently) when the kernel cannot give us a jail at all. */
static inline void probes_require_jail(void)
{
	if (!have_userns())
		cr_skip_test("SKIP: unprivileged user namespaces are not available on this kernel");
	if (access(probe_path("priv_caps"), X_OK) != 0)
		cr_skip_test("SKIP: probes not built in %s (run `make probes`)", probe_path(""));
}

/*
 * Run `sbx run -b $SBX_PROBES:/probes OPTS... -- /probes/NAME ARGS...`.
 * OPTS and ARGS are NULL-terminated (either may be NULL).
 */
static inline void run_probe(struct sbx_result *r, const struct sbx_opts *o,
			     const char *const *opts, const char *name,
			     const char *const *args)
{
	const char *argv[PROBE_MAX_ARGS];
	const char *dir = getenv("SBX_PROBES");
	char *bind = xasprintf("%s:/probes", dir ? dir : "build/probes");
	char *target = xasprintf("/probes/%s", name);
	size_t n = 0;

	argv[n++] = "run";
	argv[n++] = "-b";
	argv[n++] = bind;
	for (; opts && *opts && n < PROBE_MAX_ARGS - 8; opts++)
		argv[n++] = *opts;
	argv[n++] = "--";
	argv[n++] = target;
	for (; args && *args && n < PROBE_MAX_ARGS - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	sbx_run(r, o, argv);
	free(bind);
	free(target);
}

/* The probe's verdict line ("BLOCKED: ..."), or "" when it printed none. */
static inline const char *verdict_of(const struct sbx_result *r)
{
	const char *v = r->out ? strstr(r->out, "BLOCKED:") : NULL;

	if (!v && r->out)
		v = strstr(r->out, "ESCAPED:");
	if (!v && r->out)
		v = strstr(r->out, "ERROR:");
	return v ? v : "";
}

#define PROBE_REPORT(r) \
	"sbx exit %d, status %s, %.3f s\n--- stdout\n%.2000s\n--- stderr\n%.2000s", \
	(r)->exit_status, rec_str((r), "status") ? rec_str((r), "status") : "(no record)", \
	(r)->elapsed_s, (r)->out ? (r)->out : "", (r)->err ? (r)->err : ""

/* The probe ran to its end and said BLOCKED (exit 0, status ok). */
#define expect_blocked(r) do { \
	cr_assert(!(r)->timed_out, "sbx hung: " PROBE_REPORT(r)); \
	cr_assert(strstr((r)->out, "ESCAPED:") == NULL, "probe ESCAPED: " PROBE_REPORT(r)); \
	cr_assert(strncmp(verdict_of(r), "BLOCKED:", 8) == 0, "no BLOCKED verdict: " PROBE_REPORT(r)); \
	cr_assert_eq((r)->exit_status, 0, "probe exit is not 0: " PROBE_REPORT(r)); \
} while (0)

/* The verdict names this errno (or one of two), e.g. "EPERM". */
#define expect_errno(r, a, b) do { \
	cr_assert(strstr(verdict_of(r), a) || ((b) && strstr(verdict_of(r), (b) ? (b) : "")), \
		  "verdict does not name %s%s%s: " PROBE_REPORT(r), a, (b) ? " or " : "", (b) ? (b) : ""); \
} while (0)

/* The probe said BLOCKED and the refusal came from the filter or missing caps. */
static inline void expect_denied(const char *probe, const char *err1, const char *err2)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, probe, NULL);
	expect_blocked(&r);
	expect_errno(&r, err1, err2);
	sbx_result_free(&r);
}

/* Whether any host process has MARKER in its command line. */
static inline bool marker_alive(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;
	char path[300], buf[4096];

	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		found = strstr(buf, marker) != NULL;
	}
	if (d)
		closedir(d);
	return found;
}

/* Poll up to SECONDS for every process carrying MARKER to be gone. */
static inline bool marker_gone_within(const char *marker, double seconds)
{
	for (int i = 0; i <= (int)(seconds * 20); i++) {
		if (!marker_alive(marker))
			return true;
		usleep(50000);
	}
	return false;
}

/* A marker unique to this test process and call. */
static inline char *unique_marker(const char *what)
{
	static int seq;

	return xasprintf("sbx-probe-%s-%d-%d", what, (int)getpid(), ++seq);
}

#endif
