/*
 * probe.h - the shared verdict helpers of the isolation probes.
 *
 * Every probe tries ONE escape and ends with exactly one verdict line on
 * stdout:  "BLOCKED: what failed and how"  (exit 0)  or
 *          "ESCAPED: what worked"          (exit 1).
 * Exit 2 ("ERROR: ...") means the probe could not even make its attempt
 * (bad arguments, a setup step outside the attack failed); tests treat it
 * as a failure, never as a pass.  Probes are static so that they do not
 * depend on the jail's libraries.
 */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void verdict(int code, const char *tag, const char *fmt, va_list ap)
{
	printf("%s: ", tag);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	exit(code);
}

__attribute__((noreturn, format(printf, 1, 2)))
static inline void blocked(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict(0, "BLOCKED", fmt, ap);
	va_end(ap);
	exit(0);
}

__attribute__((noreturn, format(printf, 1, 2)))
static inline void escaped(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict(1, "ESCAPED", fmt, ap);
	va_end(ap);
	exit(1);
}

__attribute__((noreturn, format(printf, 1, 2)))
static inline void probe_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict(2, "ERROR", fmt, ap);
	va_end(ap);
	exit(2);
}

/* "EPERM (Operation not permitted)": the symbolic name lets tests assert it. */
static inline const char *errname(int e)
{
	static char buf[128];
	const char *name = strerrorname_np(e);

	snprintf(buf, sizeof(buf), "%s (%s)", name ? name : "E?", strerror(e));
	return buf;
}

static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A syscall that must be refused: success is an escape, any failure is
 * reported with its errno so the test can assert which layer refused it.
 */
static inline void expect_refused(long rc, const char *what)
{
	if (rc >= 0)
		escaped("%s succeeded (returned %ld)", what, rc);
	blocked("%s failed: %s", what, errname(errno));
}

#endif
