/*
 * test_kill_grace.c - one kill grace for the init and the supervisor.
 *
 * They capped it differently (the init at an hour, the supervisor at a
 * week, "unlimited" 5 s for one and an hour for the other), so each could
 * SIGKILL the jail while the other still waited for its grace.
 */
#include "test_policy_util.h"

Test(kill_grace, unlimited_means_the_shared_maximum)
{
	struct policy p;

	load_ok("limits { kill_grace_ms: unlimited }", &p);
	cr_assert_eq(policy_kill_grace_ms(&p), KILL_GRACE_MAX_MS);
	policy_free(&p);
}

Test(kill_grace, a_set_value_is_used_as_is)
{
	struct policy p;

	load_ok("limits { kill_grace_ms: 3600000 }", &p);
	cr_assert_eq(policy_kill_grace_ms(&p), 3600000);
	policy_free(&p);
	load_ok("limits { kill_grace_ms: 250 }", &p);
	cr_assert_eq(policy_kill_grace_ms(&p), 250);
	policy_free(&p);
}

/* Above the cap is a typo, refused like any out-of-range limit. */
Test(kill_grace, above_an_hour_is_refused)
{
	load_fails("limits { kill_grace_ms: 3600001 }", "x.policy:1:25: ",
		   "'kill_grace_ms' must be at most 3600000");
}
