/*
 * test_iface_limits.c - the bounds sbx sets that no policy field names,
 * and the ones the init and the supervisor must agree on (issue 11 item
 * 13, issue 12 item 4): the kill grace, the kernel-quota rlimits, the
 * per-user-namespace ucount limits, closing inherited fds without
 * close_range.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The line of /proc/self/limits for NAME ("Max msgqueue size") in TEXT. */
static void assert_limit(const char *text, const char *name, const char *value)
{
	const char *line = strstr(text, name);
	char soft[32] = "", hard[32] = "";

	cr_assert_not_null(line, "no '%s' in:\n%s", name, text);
	cr_assert_eq(sscanf(line + strlen(name), "%31s %31s", soft, hard), 2, "%s", line);
	cr_assert(!strcmp(soft, value) && !strcmp(hard, value),
		  "%s: soft %s hard %s, want %s", name, soft, hard, value);
}

/*
 * The init capped the grace at an hour, the supervisor at a week: each
 * could SIGKILL the jail while the other still waited.  One bound now, an
 * hour, and a policy above it is refused rather than cut short.
 */
Test(iface_limits, kill_grace_above_an_hour_is_a_config_error)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "--set", "limits.kill_grace_ms=3600001", "--",
				   "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(rec_str(&r, "message"), "at most 3600000"), "%s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/*
 * POSIX queues (allowed by default) and queued signals are charged to the
 * caller's own uid as well, locked pages cannot be swapped: without these
 * bounds the program could use up the caller's quotas on the host.  NICE
 * and RTPRIO 0: no raised priority, whatever a root caller allows.
 */
Test(iface_limits, kernel_quota_rlimits_are_set_in_the_jail)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/cat", "/proc/self/limits"));
	ASSERT_STATUS(&r, "ok");
	assert_limit(r.out, "Max msgqueue size", "262144");
	assert_limit(r.out, "Max locked memory", "65536");
	assert_limit(r.out, "Max pending signals", "1024");
	assert_limit(r.out, "Max nice priority", "0");
	assert_limit(r.out, "Max realtime priority", "0");
	sbx_result_free(&r);
}
