/* cpu_common.h - burn CPU until the process has used SECONDS of it. */
#ifndef SBX_CPU_COMMON_H
#define SBX_CPU_COMMON_H

#include "probe.h"

static inline double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void burn(double seconds)
{
	volatile unsigned long x = 0;

	while (cpu_s() < seconds)
		for (int i = 0; i < 1000000; i++)
			x += i;
}

#endif
