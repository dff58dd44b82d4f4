/*
 * learned.h - what a `sbx learn` trial run reports: the calls it made
 * beyond its policy, by native number, each let through and counted by the
 * supervisor's seccomp listener (notify.c).  Filled by supervise_run when
 * run_request.learn is set; read by cmd/learn.c.
 */
#ifndef SBX_SUPERVISE_LEARNED_H
#define SBX_SUPERVISE_LEARNED_H

#include <stdbool.h>
#include <stdint.h>

#include "jail/seccomp.h"

struct learned_calls {
	bool available;          /* the run had a listener to learn with */
	char why_none[200];      /* else why not */
	uint64_t seen[SC_NR_MAX];
};

#endif
