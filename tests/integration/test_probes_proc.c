/*
 * test_probes_proc.c - process isolation probes: the jail cannot signal
 * host processes, and nothing it starts
 * outlives the run.  Judged from outside: a host sentinel must be alive,
 * no host process may carry the probe's marker afterwards.
 */
#include "test_probes_common.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

TestSuite(probes_proc, .init = probes_require_jail);

static pid_t start_sentinel(void)
{
	pid_t pid = fork();

	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void expect_sentinel_alive(pid_t pid)
{
	int status;

	cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the host sentinel died (status %#x)", status);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* Attack: kill(-1, SIGKILL) from inside taking down every host process of the same uid. */
Test(probes_proc, kill_minus_one_kills_nothing_outside)
{
	struct sbx_result r;
	pid_t sentinel = start_sentinel();

	run_probe(&r, NULL, NULL, "proc_kill_all", NULL);
	expect_sentinel_alive(sentinel);
	expect_blocked(&r);
	cr_assert(r.record, "sbx did not survive to print its record: " PROBE_REPORT(&r));
	sbx_result_free(&r);
}

/* Attack: signalling (or even detecting) a host process by pid. */
Test(probes_proc, host_process_is_invisible)
{
	struct sbx_result r;
	pid_t sentinel = start_sentinel();
	char *pid = xasprintf("%d", (int)sentinel);

	run_probe(&r, NULL, NULL, "proc_signal_host", SBX_ARGV(pid));
	expect_sentinel_alive(sentinel);
	expect_blocked(&r);
	expect_errno(&r, "ESRCH", NULL);
	free(pid);
	sbx_result_free(&r);
}

static void expect_no_survivor(const char *probe)
{
	struct sbx_result r;
	char *marker = unique_marker(probe);

	run_probe(&r, NULL, NULL, probe, SBX_ARGV(marker));
	expect_blocked(&r);
	cr_assert(r.elapsed_s < 5, "sbx waited %.1f s for a detached process", r.elapsed_s);
	cr_assert(marker_gone_within(marker, 1.0), "a process marked %s outlived the run", marker);
	free(marker);
	sbx_result_free(&r);
}

/* Attack: a double-forked setsid daemon (crypto miner, backdoor) surviving the run. */
Test(probes_proc, double_forked_daemon_does_not_survive)
{
	expect_no_survivor("proc_daemon");
}

/* Attack: a child ignoring SIGTERM in the same session surviving the run. */
Test(probes_proc, sigterm_ignoring_child_does_not_survive)
{
	expect_no_survivor("proc_term_ignorer");
}
