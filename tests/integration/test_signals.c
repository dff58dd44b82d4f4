/*
 * test_signals.c - signals sent to sbx itself: each one whose default would
 * end sbx tears the jail down and leaves a record (`aborted`, exit 128 + the
 * signal) instead of killing sbx before it could write one.
 */
#include "common.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

/* SIGINT to sbx tears the jail down: aborted, 130. */
Test(status, sigint_to_sbx_is_aborted)
{
	REQUIRE_USERNS();
	assert_signal_aborts(SIGINT);
}

/* The other signals whose default ends a process: Ctrl-\ (SIGQUIT), a
 * service's SIGUSR1 or SIGALRM killed sbx with no record. */
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

/* ---- the caller's stops -------------------------------------------------- */

/* An `sbx run` of SCRIPT with OPTS, in a process group of its own (as a
 * shell's job: a stop of an orphaned group is dropped by the kernel); its
 * stdout and stderr (the record) are pipes. */
struct stop_run {
	pid_t pid;
	int out, err;
};

static void start_stop_run(struct stop_run *r, const char *opt1, const char *val1,
			   const char *opt2, const char *val2, const char *script)
{
	int out[2], err[2];

	cr_assert(pipe(out) == 0 && pipe(err) == 0);
	r->pid = fork();
	if (r->pid == 0) {
		setpgid(0, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execl(sbx_path(), "sbx", "run", opt1, val1, opt2, val2, "--", "/bin/sh", "-c",
		      script, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	r->out = out[0];
	r->err = err[0];
}

/* The program's first byte: it is up. */
static void wait_up(struct stop_run *r)
{
	struct pollfd p = { .fd = r->out, .events = POLLIN };
	char c;

	cr_assert(poll(&p, 1, 20000) == 1 && read(r->out, &c, 1) == 1, "the program never started");
}

/* Wait for sbx, then parse its record (stderr) into R. */
static void finish_stop_run(struct stop_run *r, struct sbx_result *res)
{
	static char buf[65536];
	size_t len = 0;
	ssize_t n;
	int status;

	memset(res, 0, sizeof(*res));
	while (len + 1 < sizeof(buf) && (n = read(r->err, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	waitpid(r->pid, &status, 0);
	close(r->out);
	close(r->err);
	res->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	res->err = strdup(buf);
	res->out = strdup("");
	const char *line = strrchr(buf, '{') ? strstr(buf, "{\"sbx_version\"") : NULL;
	res->record = line ? cJSON_Parse(line) : NULL;
}

/* What /proc says of PID: its state letter, its CPU (utime + stime) in
 * ms; false when it is gone. */
static bool proc_stat(pid_t pid, char *state, double *cpu_ms)
{
	char path[64], text[1024];
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	char *p = strrchr(text, ')');
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", state, &ut,
			 &st) != 3)
		return false;
	*cpu_ms = (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
	return true;
}

/* Whether PID's cgroup v2 is frozen (cgroup.freeze holds a task in S). */
static bool cgroup_frozen(pid_t pid)
{
	char path[600], line[512];
	bool frozen = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cgroup.events", line + 3);
			FILE *ev = fopen(path, "r"); /* none: cgroup v1, or the root */
			char text[256] = "";
			if (ev) {
				text[fread(text, 1, sizeof(text) - 1, ev)] = '\0';
				fclose(ev);
			}
			frozen = strstr(text, "frozen 1") != NULL;
		}
	fclose(f);
	return frozen;
}

/* The jail's processes: every process but sbx (SKIP) with MARKER in its
 * command line.  Their count; how many are held (stopped or frozen) in
 * *HELD, their CPU in *CPU_MS. */
static int jail_procs(const char *marker, pid_t skip, int *held, double *cpu_ms)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	*held = 0;
	*cpu_ms = 0;
	while (d && (e = readdir(d))) {
		char path[300], buf[4096], state;
		double ms;
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0 || pid == skip)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			buf[i] = buf[i] ? buf[i] : ' ';
		buf[len] = '\0';
		if (!strstr(buf, marker) || !proc_stat(pid, &state, &ms))
			continue;
		n++;
		*cpu_ms += ms;
		*held += state == 'T' || state == 't' || cgroup_frozen(pid);
	}
	if (d)
		closedir(d);
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Attack: Ctrl-Z (SIGTSTP) of sbx.  The jail has a session of its own,
 * so the terminal stopped sbx alone: burners ran 10 s past a 2 s wall
 * limit while sbx was stopped, and the record said only "wall-clock
 * timeout".  Now the jail is held with sbx, the held time is no wall
 * time, and the record says how long it was held. */
Test(status, ctrl_z_of_sbx_holds_the_jail_and_its_time_is_not_wall_time)
{
	char marker[64], script[512];
	struct stop_run run;
	struct sbx_result r;
	int n = 0, held = 0;
	double cpu_held = 0, cpu, t0;

	REQUIRE_USERNS();
	snprintf(marker, sizeof(marker), "sbx-tstp-%d", (int)getpid());
	snprintf(script, sizeof(script), "for i in 1 2; do sh -c 'while :; do :; done' %s & done; "
		 "echo up; wait", marker);
	start_stop_run(&run, "--time", "2s", "--set", "limits.kill_grace_ms=200", script);
	wait_up(&run);
	kill(run.pid, SIGTSTP);
	/* every jail process (the shell and its two burners) is held */
	for (int i = 0; i < 2000 && !(n >= 3 && held == n); i++) {
		usleep(5000);
		n = jail_procs(marker, run.pid, &held, &cpu_held);
	}
	if (!(n >= 3 && held == n))
		kill(run.pid, SIGKILL); /* end the run before the test fails */
	cr_assert(n >= 3 && held == n, "%d of %d jail processes held after SIGTSTP of sbx",
		  held, n);
	/* held past the wall limit, and they stay held all along */
	t0 = now_s();
	while (now_s() - t0 < 2.5) {
		usleep(50000);
		n = jail_procs(marker, run.pid, &held, &cpu);
		cr_assert(n >= 3 && held == n, "a jail process ran on while sbx was stopped");
	}
	cr_assert(cpu - cpu_held < 50, "the held jail used %.0f ms of CPU", cpu - cpu_held);
	kill(run.pid, SIGCONT);
	finish_stop_run(&run, &r);
	ASSERT_STATUS(&r, "timeout");
	double wall = rec_num(&r, "wall_ms"), stopped = rec_num(&r, "stopped_ms");
	cr_assert(stopped >= 2500, "stopped_ms %.0f, held for 2500 ms: %s", stopped, r.err);
	/* the program ran its 2 s, not 2 s minus the stop */
	cr_assert(wall - stopped >= 1900 && wall - stopped < 2000 + 200 + 1500,
		  "wall_ms %.0f, stopped_ms %.0f: %s", wall, stopped, r.err);
	cr_assert(strstr(rec_str(&r, "message"), "held"), "message: %s", rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* Attack: SIGSTOP of sbx, which no program can catch: the jail runs on
 * while sbx is stopped.  Once continued, sbx must charge every ms the
 * tree burned meanwhile and end the run at once as cpu-limit (the meter
 * waited for its next sample, 4 burners 4x the budget), and the record
 * must say that sbx was stopped. */
Test(status, sigstop_of_sbx_still_ends_a_burner_tree_at_its_cpu_budget)
{
	char marker[64], script[512];
	struct stop_run run;
	struct sbx_result r;
	int n = 0, held;
	double cpu = 0;

	REQUIRE_USERNS();
	snprintf(marker, sizeof(marker), "sbx-stop-%d", (int)getpid());
	snprintf(script, sizeof(script), "for i in 1 2 3 4; do sh -c 'while :; do :; done' %s & "
		 "done; echo up; wait", marker);
	start_stop_run(&run, "--cpu", "2s", "--time", "60s", script);
	wait_up(&run);
	kill(run.pid, SIGSTOP);
	/* the tree spends its budget while sbx cannot look */
	for (int i = 0; i < 6000 && cpu < 2000; i++) {
		usleep(5000);
		n = jail_procs(marker, run.pid, &held, &cpu);
	}
	kill(run.pid, SIGCONT);
	cr_assert(cpu >= 2000, "the tree (%d processes) used %.0f ms while sbx was stopped", n, cpu);
	finish_stop_run(&run, &r);
	ASSERT_STATUS(&r, "cpu-limit");
	double total = rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms");
	/* what it used while sbx was stopped, plus about one sample */
	cr_assert(total >= 2000 && total < cpu + 4 * 150 + 300,
		  "total CPU %.0f ms; %.0f ms when sbx was continued: %s", total, cpu, r.err);
	cr_assert(strstr(rec_str(&r, "message"), "SIGSTOP"), "message: %s", rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* Attack: SIGSTOP of sbx, which it cannot catch or pass on, left the jail
 * running unwatched past the wall limit for as long as sbx stayed stopped.
 * The jail's init keeps a wall bound of its own (the limit + kill_grace +
 * 1 s) and ends the jail there while sbx is still stopped. */
Test(status, sigstop_of_sbx_ends_the_jail_at_the_inits_own_wall_bound)
{
	char marker[64], script[512];
	struct stop_run run;
	struct sbx_result r;
	int n = 1, held;
	double cpu = 0;

	REQUIRE_USERNS();
	snprintf(marker, sizeof(marker), "sbx-bound-%d", (int)getpid());
	snprintf(script, sizeof(script), "sh -c 'sleep 300' %s & echo up; wait", marker);
	/* The stop must land before sbx's own wall limit, or sbx ends the jail
	 * itself and the init's bound is never reached: 5 s leaves room for a
	 * slow machine (an emulated one took over 1 s to print "up"). */
	start_stop_run(&run, "--time", "5s", "--set", "limits.kill_grace_ms=200", script);
	wait_up(&run);
	kill(run.pid, SIGSTOP);
	/* the bound is 6.2 s after the start; 30 s is only the test's own */
	for (int i = 0; i < 3000 && n > 0; i++) {
		usleep(10000);
		n = jail_procs(marker, run.pid, &held, &cpu);
	}
	kill(run.pid, SIGCONT);
	cr_assert_eq(n, 0, "%d jail processes still ran while sbx was stopped", n);
	finish_stop_run(&run, &r);
	ASSERT_STATUS(&r, "timeout");
	cr_assert(strstr(rec_str(&r, "message"), "own wall bound"), "message: %s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* Attack: SIGSTOP of sbx past its wall deadline and past the kill grace
 * after it, continued before the init's own bound.  sbx, continued, must
 * still give the program its grace for the SIGTERM it sends only now: it
 * used to count the grace from the deadline it slept through and SIGKILL
 * at once, and the init's report of what it saw meanwhile was lost with
 * it. */
Test(status, a_sigstop_of_sbx_past_its_deadline_still_leaves_the_program_its_grace)
{
	struct stop_run run;
	struct sbx_result r;
	char out[256];
	size_t len = 0;
	ssize_t n;

	REQUIRE_USERNS();
	/* the deadline at 1 s, SIGKILL at 2 s by the old count, the init's own
	 * bound at 3 s: continued at 2.4 s */
	start_stop_run(&run, "--time", "1s", "--set", "limits.kill_grace_ms=1000",
		       "trap 'echo term; exit 0' TERM; echo up; while :; do sleep 0.05; done");
	wait_up(&run);
	double t0 = now_s();
	kill(run.pid, SIGSTOP);
	while (now_s() - t0 < 2.4)
		usleep(20000);
	kill(run.pid, SIGCONT);
	while (len + 1 < sizeof(out) && (n = read(run.out, out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	finish_stop_run(&run, &r);
	ASSERT_STATUS(&r, "timeout");
	cr_assert(strstr(out, "term"), "the program got no time for its SIGTERM (stdout \"%s\"): %s",
		  out, r.err);
	cr_assert(strstr(rec_str(&r, "message"), "SIGSTOP"), "message: %s", rec_str(&r, "message"));
	sbx_result_free(&r);
}

/*
 * Slurm's scancel (and other job engines) send SIGCONT before SIGTERM to
 * every task, stopped or not.  A SIGCONT alone is not a stop: the record
 * says the run was aborted by SIGTERM, and nothing of sbx being stopped.
 */
Test(status, a_sigcont_before_sigterm_is_not_reported_as_a_stop)
{
	struct stop_run run;
	struct sbx_result r;
	const char *msg;

	REQUIRE_USERNS();
	start_stop_run(&run, "--time", "60s", "--cpu", "30s", "echo up; sleep 300");
	wait_up(&run);
	kill(run.pid, SIGCONT);
	kill(run.pid, SIGTERM);
	finish_stop_run(&run, &r);
	ASSERT_STATUS(&r, "aborted");
	msg = rec_str(&r, "message");
	cr_assert(msg && !strstr(msg, "stopped"), "message: %s", msg ? msg : "(none)");
	sbx_result_free(&r);
}
