/*
 * test_signals.c - signals sent to sbx itself: each one whose default would
 * end sbx tears the jail down and leaves a record (`aborted`, exit 128 + the
 * signal) instead of killing sbx before it could write one.
 */
#include "common.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Send SIG to an `sbx run` whose program is up: exit 128 + SIG, aborted;
 * with SURVIVES, the run goes on and ends ok instead. */
static void send_signal_to_sbx(int sig, bool survives)
{
	int status, out[2], up[2];
	char buf[4096] = "", c;

	cr_assert_eq(pipe(out), 0);
	cr_assert_eq(pipe(up), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(up[1], 1);
		dup2(out[1], 2);
		execl(sbx_path(), "sbx", "run", "--", "/bin/sh", "-c",
		      survives ? "echo up; exec sleep 1" : "echo up; exec sleep 60", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(up[1]);
	/* the program runs (a fixed 0.3 s was before sbx's start under emulation) */
	cr_assert_eq(read(up[0], &c, 1), 1, "the program never started");
	kill(pid, sig);
	waitpid(pid, &status, 0);
	close(up[0]);
	ssize_t n = read(out[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(out[0]);
	if (survives) {
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "signal %d: status 0x%x, want exit 0", sig, status);
		cr_assert(strstr(buf, "\"ok\"") != NULL, "signal %d: stderr: %s", sig, buf);
		return;
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig,
		  "signal %d: status 0x%x, want exit %d", sig, status, 128 + sig);
	cr_assert(strstr(buf, "\"aborted\"") != NULL, "signal %d: stderr: %s", sig, buf);
}

static void assert_signal_aborts(int sig)
{
	send_signal_to_sbx(sig, false);
}

/* SIGINT to sbx tears the jail down: aborted, 130 (item 29). */
Test(status, sigint_to_sbx_is_aborted)
{
	REQUIRE_USERNS();
	assert_signal_aborts(SIGINT);
}

/* The other signals whose default ends a process: Ctrl-\ (SIGQUIT), a
 * service's SIGUSR1 or SIGALRM killed sbx with no record (review a1). */
Test(status, quit_hup_usr_and_alrm_to_sbx_are_aborted)
{
	REQUIRE_USERNS();
	assert_signal_aborts(SIGQUIT);
	assert_signal_aborts(SIGHUP);
	assert_signal_aborts(SIGUSR1);
	assert_signal_aborts(SIGUSR2);
	assert_signal_aborts(SIGALRM);
}

/* The rarer async signals whose default ends a process: a caller's kill
 * -PROF, -PWR, -IO or a realtime signal killed sbx with no record (and left
 * -o's staging dir). */
Test(status, prof_pwr_io_xcpu_and_realtime_signals_to_sbx_are_aborted)
{
	REQUIRE_USERNS();
	assert_signal_aborts(SIGPROF);
	assert_signal_aborts(SIGVTALRM);
	assert_signal_aborts(SIGPWR);
	assert_signal_aborts(SIGIO);
	assert_signal_aborts(SIGSTKFLT);
	assert_signal_aborts(SIGXCPU);
	assert_signal_aborts(SIGRTMIN + 1);
	assert_signal_aborts(SIGRTMAX);
}

/* The kernel's first realtime signals, 32 and 33, which glibc keeps for its
 * threads (its SIGRTMIN is 34): a caller's kill -32 ended sbx with no
 * record, as the kernel's default does (exit 160). */
Test(status, signals_32_and_33_to_sbx_are_aborted)
{
	REQUIRE_USERNS();
	assert_signal_aborts(32);
	assert_signal_aborts(33);
}

/* A program ended by a realtime signal: named as kill -l names it (the
 * record said "SIG39", which no kill -s takes). */
Test(status, a_realtime_signal_is_named_as_kill_names_it)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/sh", "-c", "kill -s RTMIN+2 $$"));
	ASSERT_STATUS(&r, "signaled");
	cr_assert_str_eq(rec_str(&r, "signal"), "SIGRTMIN+2");
	sbx_result_free(&r);
}

/* SIGRTMIN is sbx's own timer signal (relay.c): sent by the caller it is
 * caught and changes nothing; it used to kill sbx with no record. */
Test(status, sigrtmin_to_sbx_is_ignored)
{
	REQUIRE_USERNS();
	send_signal_to_sbx(SIGRTMIN, true);
}
