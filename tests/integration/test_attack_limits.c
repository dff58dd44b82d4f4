/*
 * test_attack_limits.c - a hostile program against the meter's limits
 * (issue 12, second review): memory and CPU that a program hides from
 * the samples, statuses it tries to confuse, and a supervisor it tries to
 * slow down.  Each test is the attack that motivated a fix.
 */
#include "test_probes_common.h"

TestSuite(attack_limits, .init = probes_require_jail);

static const char *status_of(const struct sbx_result *r)
{
	const char *s = rec_str(r, "status");

	return s ? s : "(no record)";
}

/* Attack: 5 processes whose main thread exits while another thread holds
 * 20 MiB: a zombie leader's stat and smaps_rollup show no memory, so
 * 100 MiB sat under --memory 64M with status ok. */
Test(attack_limits, memory_held_after_the_main_thread_exited_counts)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--memory", "64M", "--time", "30s"), "res_mem_leader_exit",
		  SBX_ARGV("5", "20"));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert_str_eq(status_of(&r), "memory-limit", PROBE_REPORT(&r));
	sbx_result_free(&r);
}
