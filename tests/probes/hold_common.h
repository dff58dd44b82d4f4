/*
 * hold_common.h - memory held by a tree of processes: each child fills
 * something that keeps its bytes (socket queues) and waits to be killed.
 */
#ifndef SBX_HOLD_COMMON_H
#define SBX_HOLD_COMMON_H

#include "probe.h"

#include <signal.h>
#include <sys/wait.h>

#define HOLD_MAX_PROCS 256

/* Fork PROCS (at most HOLD_MAX_PROCS) children that each run FILL(ARG),
 * report its result and wait; their pids go to KIDS.  The results' sum. */
static inline long hold_fork(int procs, long (*fill)(int), int arg, pid_t *kids)
{
	long total = 0, got;
	int p[2];

	if (pipe(p) != 0)
		probe_error("pipe: %s", errname(errno));
	for (int i = 0; i < procs && i < HOLD_MAX_PROCS; i++) {
		if ((kids[i] = fork()) == 0) {
			got = fill(arg);
			(void)!write(p[1], &got, sizeof(got));
			pause();
			_exit(0);
		}
	}
	for (int i = 0; i < procs && read(p[0], &got, sizeof(got)) == sizeof(got); i++)
		total += got;
	return total;
}

/* Hold for HOLD_MS, then kill the PROCS children of hold_fork. */
static inline void hold_end(int procs, const pid_t *kids, int hold_ms)
{
	usleep((useconds_t)hold_ms * 1000);
	for (int i = 0; i < procs && i < HOLD_MAX_PROCS; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
}

#endif
