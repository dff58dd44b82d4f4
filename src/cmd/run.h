/*
 * run.h - the one run behind `sbx run` and `sbx learn` (run.c).
 *
 * run_main() parses ARGV (ARGV[0] names the command for --help), runs
 * the command once and writes its record, then hands the effective policy
 * and the result to LEARN's finish hook (`sbx learn`, learn.c).  LEARN
 * NULL is `sbx run`.
 */
#ifndef SBX_CMD_RUN_H
#define SBX_CMD_RUN_H

#include "policy/policy.h"
#include "record/result.h"
#include "supervise/learned.h"
#include "supervise/supervise.h"

struct run_learn {
	struct learned_calls calls; /* filled by the run */
	/* After the record: print what was learned; returns the exit status
	 * (STATUS is the run's).  P is NULL when no policy was built. */
	int (*finish)(struct run_learn *l, struct policy *p, char *const *argv,
		      const struct result *r, int status);
};

int run_main(int argc, char **argv, struct run_learn *learn);

#endif
