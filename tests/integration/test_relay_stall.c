/*
 * test_relay_stall.c - the supervisor never blocks on its own output.
 *
 * sbx's stdout here is a pipe the test controls: nobody reads it, or a slow
 * reader does.  A write to it that blocked would freeze the wall deadline,
 * the kill escalation and SIGINT handling with the jail still running
 * (`sbx run --time 1s -- yes | sleep 60` hung for 60 s).  The harness's
 * sbx_run() reads stdout, so these tests fork/exec sbx by hand; every wait
 * is bounded so a hang fails the test instead of the suite.  And a fast
 * stream, read in batches, still lets a later line out at once.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct stalled_run {
	pid_t pid;
	int out;        /* read end of sbx's stdout */
	int err;        /* read end of sbx's stderr (the record) */
	double start;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Start `sbx ARGV...` with stdout on OUT_W (the test keeps the other end in
 * r->out) and stderr on a pipe the test holds. */
static void start_sbx_on(struct stalled_run *r, int out_w, const char *const argv[])
{
	int err[2];
	size_t n = 0;

	while (argv[n])
		n++;
	cr_assert_eq(pipe2(err, O_CLOEXEC), 0);
	/* room for the record even while the test does not read stderr */
	(void)fcntl(err[0], F_SETPIPE_SZ, 1024 * 1024);
	r->start = now_s();
	r->pid = fork();
	cr_assert(r->pid >= 0);
	if (r->pid == 0) {
		const char **args = calloc(n + 2, sizeof(*args));
		if (!args)
			_exit(127);
		args[0] = "sbx";
		for (size_t i = 0; i < n; i++)
			args[i + 1] = argv[i];
		dup2(out_w, STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(sbx_path(), (char *const *)args);
		_exit(127);
	}
	close(out_w);
	close(err[1]);
	r->err = err[0];
}

/* Start `sbx ARGV...` with stdout and stderr on pipes the test holds. */
static void start_sbx(struct stalled_run *r, const char *const argv[])
{
	int out[2];

	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	r->out = out[0];
	start_sbx_on(r, out[1], argv);
}

/* Wait for sbx at most LIMIT_S seconds (SIGKILL then); the elapsed time. */
static double wait_sbx(struct stalled_run *r, double limit_s, int *status)
{
	for (;;) {
		pid_t w = waitpid(r->pid, status, WNOHANG);
		if (w == r->pid)
			return now_s() - r->start;
		if (now_s() - r->start > limit_s) {
			kill(r->pid, SIGKILL);
			waitpid(r->pid, status, 0);
			close(r->out);
			close(r->err);
			cr_assert_fail("sbx still running after %.1f s: it blocked on its output",
				       limit_s);
		}
		usleep(20 * 1000);
	}
}

/* What sbx wrote on stderr (the record), after it exited. */
static char *read_stderr(struct stalled_run *r)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	ssize_t n;

	cr_assert_not_null(buf);
	while (len + 1 < cap && (n = read(r->err, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(r->err);
	return buf;
}

static void assert_exit(int status, int code, const char *record)
{
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == code,
		  "sbx status 0x%x, want exit %d; stderr: %.2000s", status, code, record);
}

/* Nobody reads sbx's stdout: the wall deadline still ends the run at 1 s and
 * sbx returns after grace + the close deadline (it gave up the output). */
Test(lifetime, unread_stdout_pipe_still_times_out)
{
	struct stalled_run r;
	int status;

	REQUIRE_USERNS();
	start_sbx(&r, SBX_ARGV("run", "--time", "1s", "--set", "limits.kill_grace_ms=500",
			       "--", "/bin/sh", "-c", "yes & while :; do :; done"));
	double t = wait_sbx(&r, 15.0, &status);
	char *rec = read_stderr(&r);
	close(r.out); /* only now: while sbx ran, the reader was alive but asleep */
	assert_exit(status, 124, rec);
	cr_assert(strstr(rec, "\"status\":\"timeout\"") != NULL, "stderr: %.2000s", rec);
	/* 1 s wall + 0.5 s grace + 1 s close margin, plus scheduling slack
	 * (sbx's own start: 2 s under emulation, and 8.4 s in all once there
	 * beside another test); a hang is wait_sbx's 15 s */
	cr_assert(t >= 1.0 && t < 12.0, "took %.2f s", t);
	free(rec);
}

/* Nobody reads sbx's stdout and sbx gets SIGINT: aborted (130), promptly. */
Test(lifetime, unread_stdout_pipe_still_honours_sigint)
{
	struct stalled_run r;
	int status;

	REQUIRE_USERNS();
	start_sbx(&r, SBX_ARGV("run", "--time", "30s", "--set", "limits.kill_grace_ms=500",
			       "--", "/bin/sh", "-c", "yes & while :; do :; done"));
	/* the signal comes once the program's output reaches the unread pipe */
	struct pollfd pf = { .fd = r.out, .events = POLLIN };
	cr_assert_eq(poll(&pf, 1, 60000), 1, "the program never wrote");
	kill(r.pid, SIGINT);
	double t = wait_sbx(&r, 15.0, &status);
	char *rec = read_stderr(&r);
	close(r.out);
	assert_exit(status, 130, rec);
	cr_assert(strstr(rec, "\"status\":\"aborted\"") != NULL, "stderr: %.2000s", rec);
	/* 0.5 s + grace + close margin, far from the 30 s wall limit */
	cr_assert(t < 4.0, "took %.2f s", t);
	free(rec);
}

/* The reader goes away while the jail's pipe holds a full backlog (1 MiB):
 * sbx read it on, in batches, as output, passed --output and ended
 * `output-limit` (124) instead of SIGPIPE's 141 (`yes | head -1`: 3 runs
 * in 600 under load). */
Test(lifetime, a_reader_gone_with_a_full_backlog_is_sigpipe)
{
	struct stalled_run r;
	int status;

	char buf[65536];
	size_t got = 0, want = 1536 * 1024;
	ssize_t n;

	REQUIRE_USERNS();
	start_sbx(&r, SBX_ARGV("run", "--time", "30s", "--output", "1632K", "--", "yes"));
	/* read fast to exactly 1.5 MiB: with the 64 KiB left in sbx's stdout
	 * pipe, 32 KiB of the limit stay, less than the program's backlog */
	while (got < want && (n = read(r.out, buf, want - got < sizeof(buf) ? want - got
								   : sizeof(buf))) > 0)
		got += (size_t)n;
	close(r.out);
	wait_sbx(&r, 15.0, &status);
	char *rec = read_stderr(&r);
	assert_exit(status, 141, rec);
	cr_assert(strstr(rec, "\"status\":\"signaled\"") != NULL, "stderr: %.2000s", rec);
	free(rec);
}

/* A reader that is merely slow loses nothing: every byte, in order, and ok.
 * (A reader that takes nothing for longer than the close deadline after the
 * program ended loses the rest: that bound is what keeps sbx from hanging.) */
Test(lifetime, slow_reader_gets_every_byte)
{
	struct stalled_run r;
	int status;
	size_t cap = 1 << 20, len = 0, want_len = 0;
	char *got = malloc(cap), *want = malloc(cap);
	ssize_t n;

	REQUIRE_USERNS();
	cr_assert(got && want);
	for (int i = 1; i <= 20000; i++)
		want_len += (size_t)snprintf(want + want_len, cap - want_len, "%d\n", i);
	start_sbx(&r, SBX_ARGV("run", "--time", "30s", "--", "/usr/bin/seq", "1", "20000"));
	/* 1 byte per 100 ms for 1 s: the pipe stays full, yet sbx waits (within
	 * the close deadline) instead of dropping or blocking */
	for (int i = 0; i < 10; i++) {
		n = read(r.out, got + len, 1);
		cr_assert_eq(n, 1, "read %zd after %zu bytes", n, len);
		len++;
		usleep(100 * 1000);
	}
	while (len < cap && (n = read(r.out, got + len, cap - len)) > 0)
		len += (size_t)n;
	close(r.out);
	double t = wait_sbx(&r, 15.0, &status);
	char *rec = read_stderr(&r);
	assert_exit(status, 0, rec);
	cr_assert(strstr(rec, "\"status\":\"ok\"") != NULL, "stderr: %.2000s", rec);
	cr_assert_eq(len, want_len, "got %zu bytes, want %zu", len, want_len);
	cr_assert(memcmp(got, want, len) == 0, "the relayed bytes differ");
	cr_assert(t < 10.0, "took %.2f s", t);
	free(rec);
	free(got);
	free(want);
}

/*
 * A fast stream is read in batches (loop.c): the first quiet moment must end
 * the batch, so a line printed after a burst goes out while the program
 * still runs, not when it exits (here: 20 s later), and nothing is lost.
 */
Test(lifetime, a_line_after_a_burst_comes_out_while_the_program_runs)
{
	struct stalled_run r;
	int status;
	size_t burst = 8u << 20, got = 0;
	char buf[65536];
	bool marked = false;
	ssize_t n;

	REQUIRE_USERNS();
	start_sbx(&r, SBX_ARGV("run", "--time", "60s", "--output", "64M", "--", "/bin/sh", "-c",
			       "head -c 8388608 /dev/zero; echo MARK; exec sleep 20"));
	while (!marked && now_s() - r.start < 15.0) {
		struct pollfd p = { .fd = r.out, .events = POLLIN };
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(r.out, buf, sizeof(buf));
		if (n <= 0)
			break;
		/* the zeros, then the line: look for it in what follows them */
		for (ssize_t i = 0; i < n && !marked; i++, got++)
			marked = got >= burst && buf[i] == 'M';
	}
	double t = now_s() - r.start;
	kill(r.pid, SIGINT);
	wait_sbx(&r, 15.0, &status);
	close(r.out);
	free(read_stderr(&r));
	cr_assert(marked, "no MARK after %zu bytes in %.1f s: the batch held it", got, t);
	cr_assert_eq(got, burst + 1, "%zu bytes before MARK, want %zu", got - 1, burst);
	cr_assert(t < 15.0, "MARK came at %.1f s", t);
}

/*
 * stdout and stderr into one log file (> log 2>&1): a burst on stderr, read
 * in batches, then a line on stdout.  The line woke sbx at once and was
 * read before the batch still in stderr's pipe: it came out up to 24 KiB
 * before the burst's end in 4 of 8 runs (never before batching).  The
 * batch goes first; eight runs, the line last in each.  A file takes every
 * byte at once, so this order is exact; into a pipe whose reader lags, each
 * stream waits for room on its own and the order is best effort, as it was
 * before batching (CI saw one 8 KiB chunk after the line that way).
 */
#define BURST_PY                                                               \
	"import os, time\n"                                                    \
	"b = b'e' * 8192\n"                                                    \
	"for i in range(256):\n"                                               \
	"    os.write(2, b); time.sleep(0.00002)\n"                            \
	"os.write(1, b'END\\n')\n"

Test(lifetime, a_line_after_a_stderr_burst_stays_after_it_in_one_log_file)
{
	REQUIRE_USERNS();
	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: no /usr/bin/python3 for the writer");
	char *dir = make_temp_dir(), *log = xasprintf("%s/log", dir);

	for (int i = 0; i < 8; i++) {
		char *out, *msg, *cmd = xasprintf("'%s' run -q --output 64M -- /usr/bin/python3 "
						  "-c \"%s\" > '%s' 2>&1", sbx_path(), BURST_PY, log);
		int rc = host_sh(cmd, &msg);
		size_t len;
		const char *end;

		cr_assert_eq(rc, 0, "run %d: exit %d: %.300s", i + 1, rc, msg);
		out = slurp_file(log);
		len = strlen(out);
		end = strstr(out, "END");
		cr_assert_eq(len, (size_t)(256 * 8192 + 4), "run %d: %zu bytes", i + 1, len);
		cr_assert(end && (size_t)(end - out) == len - 4,
			  "run %d: the stdout line at %td of %zu: stderr's batch came after it",
			  i + 1, end ? end - out : (ptrdiff_t)-1, len);
		free(out);
		free(msg);
		free(cmd);
	}
	rm_tree(dir);
	free(dir);
	free(log);
}

/*
 * A slow tty that sbx cannot reopen non-blocking (mode 0 here; another
 * user's tty after su): its writes are cut short by a timer.  That timer
 * was first a SIGALRM blocked as an abort signal (the run ended `aborted`,
 * "interrupted by SIGALRM", on Linux 6.1, where pipes take this path too).
 * It is a POSIX timer on SIGRTMIN, and under `ulimit -i 0`, which refuses
 * one, ITIMER_REAL with SIGALRM let through around the write (before, one
 * byte a write: over 30 s in CI's emulated VM).  As root the reopen
 * succeeds, so root tests the O_NONBLOCK reopen and an unprivileged run
 * the timers.
 */
#define TTY_LINES 40000

/* sbx running `seq 1 TTY_LINES` with stdout on a raw pty slave of mode 0;
 * the master in R->out.  With NO_QUEUE, under the caller's `ulimit -i 0`. */
static void start_on_locked_tty(struct stalled_run *r, bool no_queue)
{
	struct rlimit saved, none;
	struct termios tio;
	int master, slave;
	char lines[16];

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	cr_assert(slave >= 0, "open %s: %s", ptsname(master), strerror(errno));
	cr_assert_eq(tcgetattr(slave, &tio), 0);
	cfmakeraw(&tio); /* bytes as written: no \r added */
	cr_assert_eq(tcsetattr(slave, TCSANOW, &tio), 0);
	cr_assert_eq(fchmod(slave, 0), 0);
	r->out = master;
	snprintf(lines, sizeof(lines), "%d", TTY_LINES);
	/* no pending-signal allowance: timer_create() fails there */
	cr_assert_eq(getrlimit(RLIMIT_SIGPENDING, &saved), 0);
	none = (struct rlimit){ 0, saved.rlim_max };
	if (no_queue)
		cr_assert_eq(setrlimit(RLIMIT_SIGPENDING, &none), 0);
	start_sbx_on(r, slave, SBX_ARGV("run", "--time", "60s", "--", "/usr/bin/seq", "1", lines));
	cr_assert_eq(setrlimit(RLIMIT_SIGPENDING, &saved), 0);
}

/* Until PID is stopped (state T in /proc/PID/stat); false after 10 s. */
static bool wait_stopped(pid_t pid)
{
	char path[64], state = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 10000 && state != 'T'; i++) {
		FILE *f = fopen(path, "re");

		if (!f || fscanf(f, "%*d %*s %c", &state) != 1)
			state = 0;
		if (f)
			fclose(f);
		if (state != 'T')
			usleep(1000);
	}
	return state == 'T';
}

/* Read R's tty 1 KiB every 2 ms, so sbx's writes fill it and wait on its
 * reader, until sbx and the jail close it; the count read into GOT.  Once
 * ALARM_AT bytes came (0: never), sbx gets a SIGALRM; with STOPPED, while
 * it is stopped by SIGSTOP (Ctrl-Z, kill -ALRM, fg). */
static size_t read_tty_slowly(struct stalled_run *r, char *got, size_t cap, size_t alarm_at,
			      bool stopped)
{
	size_t len = 0;
	bool sent = false;
	ssize_t n;

	for (;;) {
		struct pollfd pfd = { .fd = r->out, .events = POLLIN };

		if (poll(&pfd, 1, 20000) <= 0)
			break;
		n = read(r->out, got + len, len + 1024 < cap ? 1024 : cap - len);
		if (n <= 0) /* EIO: sbx and the jail closed the tty */
			break;
		len += (size_t)n;
		if (alarm_at > 0 && len >= alarm_at && !sent) {
			if (stopped) {
				kill(r->pid, SIGSTOP);
				cr_assert(wait_stopped(r->pid), "sbx never stopped on SIGSTOP");
			}
			/* while stopped, it is pending when sbx goes on */
			kill(r->pid, SIGALRM);
			if (stopped)
				kill(r->pid, SIGCONT);
			sent = true;
		}
		usleep(2000);
	}
	close(r->out);
	return len;
}

static void slow_tty_gets_every_byte(bool no_queue)
{
	struct stalled_run r;
	int status;
	size_t cap = 1 << 20, len, want_len = 0;
	char *got = malloc(cap), *want = malloc(cap);

	REQUIRE_USERNS();
	cr_assert(got && want);
	for (int i = 1; i <= TTY_LINES; i++)
		want_len += (size_t)snprintf(want + want_len, cap - want_len, "%d\n", i);
	start_on_locked_tty(&r, no_queue);
	len = read_tty_slowly(&r, got, cap, 0, false);
	wait_sbx(&r, 30.0, &status);
	char *rec = read_stderr(&r);
	assert_exit(status, 0, rec);
	cr_assert(strstr(rec, "\"status\":\"ok\"") != NULL, "stderr: %.2000s", rec);
	cr_assert_eq(len, want_len, "got %zu bytes, want %zu", len, want_len);
	cr_assert(memcmp(got, want, len) == 0, "the relayed bytes differ");
	free(rec);
	free(got);
	free(want);
}

Test(lifetime, slow_tty_that_cannot_be_reopened_gets_every_byte)
{
	slow_tty_gets_every_byte(false);
}

/* The caller's `ulimit -i 0` leaves no queued signal: the itimer holds. */
Test(lifetime, slow_tty_gets_every_byte_under_ulimit_i_0)
{
	slow_tty_gets_every_byte(true);
}

/* A caller's SIGALRM while sbx writes to such a tty: aborted, 142.  Under
 * `ulimit -i 0` the itimer's SIGALRM reaches a handler around each write;
 * a caller's that lands there is sent again, to be read as the request to
 * stop it is. */
static void sigalrm_in_a_slow_tty_write_is_aborted(bool no_queue, bool stopped)
{
	struct stalled_run r;
	int status;
	size_t cap = 1 << 20;
	char *got = malloc(cap);

	REQUIRE_USERNS();
	cr_assert(got);
	start_on_locked_tty(&r, no_queue);
	size_t len = read_tty_slowly(&r, got, cap, 64 * 1024, stopped);
	wait_sbx(&r, 30.0, &status);
	char *rec = read_stderr(&r);
	assert_exit(status, 128 + SIGALRM, rec);
	cr_assert(strstr(rec, "\"status\":\"aborted\"") != NULL, "after %zu bytes: %.2000s",
		  len, rec);
	free(rec);
	free(got);
}

Test(lifetime, sigalrm_to_sbx_in_a_slow_tty_write_is_aborted)
{
	sigalrm_in_a_slow_tty_write_is_aborted(false, false);
}

Test(lifetime, sigalrm_to_sbx_in_a_slow_tty_write_under_ulimit_i_0_is_aborted)
{
	sigalrm_in_a_slow_tty_write_is_aborted(true, false);
}

/* The caller's SIGALRM while sbx is stopped and its own timer's signal is
 * pending: with ITIMER_REAL as the only timer, the two SIGALRMs merged into
 * the timer's and the run ended `ok` (15 of 15 tries).  Under `ulimit -i
 * 0` that can still happen: the man page says so. */
Test(lifetime, sigalrm_to_a_stopped_sbx_in_a_slow_tty_write_is_aborted)
{
	sigalrm_in_a_slow_tty_write_is_aborted(false, true);
}
