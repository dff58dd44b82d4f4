/*
 * log.c - the monotonic clock and the verbose log (see log.h).
 */
#include "base/log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void vlog_line(const struct vlog *l, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	if (!l->on)
		return;
	/* one write per line: the init logs to the same stderr at once */
	n = snprintf(line, sizeof(line), "sbx: %s+%.3fms ", l->who,
		     (double)(monotonic_ns() - l->t0_ns) / 1e6);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* logging is best effort */
	}
}
