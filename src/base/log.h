/*
 * log.h - the monotonic clock and the verbose log (-v) of sbx.
 *
 * The supervisor and the jail's init both time their steps from their own
 * start and write to the same stderr at the same time, so each line goes
 * out in one write(2): "sbx: +0.412ms mount /usr (bind from /usr)" from the
 * jail, "sbx: supervise +1.250ms CTL_GO sent" from the supervisor.  No
 * allocation: the init logs between clone() and exec.
 */
#ifndef SBX_LOG_H
#define SBX_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in ns: every deadline and log time of sbx. */
int64_t monotonic_ns(void);

/* Where a verbose log stands: off, or on with WHO ("" for the jail,
 * "supervise " for the supervisor) and T0_NS (its start, monotonic_ns). */
struct vlog {
	bool on;
	const char *who;
	int64_t t0_ns;
};

/* "sbx: WHO+MS.mmmms TEXT\n" on stderr when L->on; best effort. */
void vlog_line(const struct vlog *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
