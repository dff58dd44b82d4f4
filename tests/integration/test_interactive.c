/*
 * test_interactive.c - `sbx run -i`: a shell in the jail on a pty of the
 * jail's own, driven from a real pty that stands for the caller's
 * terminal (openpty here; sbx runs as the session leader on its slave, as
 * under a login shell).
 *
 * Each step waits for what the jail prints: a marker the shell computes
 * (`echo M$((1+1))` prints M2, which the echo of the typed line never
 * shows), never a fixed time.  Every test also checks that the caller's
 * terminal is left as it was (`stty -a` and the termios themselves).
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define WAIT_S 30 /* the bound on one awaited event, never a pause */

struct session {
	int master;       /* the test's side of the caller's terminal */
	int slave;        /* the caller's terminal: sbx's 0, 1, 2 */
	int err;          /* sbx's stderr (the record), a pipe */
	pid_t pid;        /* sbx, or with a job shell that shell */
	pid_t job;        /* with a job shell: sbx, a job of it */
	int jobs;         /* with a job shell: the wait statuses of sbx it saw */
	char *seen;       /* all the terminal showed so far */
	size_t len, cap;
	size_t mark;      /* where the awaited text may start: after the last send */
	int queued;       /* bytes left in the caller's input once sbx ended */
	char *stty_before;
	struct termios tio_before;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* `stty -a` run on the caller's terminal. */
static char *stty_a(int tty)
{
	int p[2], status;
	char *out = calloc(1, 8192);
	size_t n = 0;
	ssize_t k;

	cr_assert(out && pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(tty, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execlp("stty", "stty", "-a", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (n < 8191 && (k = read(p[0], out + n, 8191 - n)) > 0)
		n += (size_t)k;
	close(p[0]);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "stty -a failed: %s", out);
	return out;
}

static void set_size(int fd, unsigned short rows, unsigned short cols)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };

	cr_assert_eq(ioctl(fd, TIOCSWINSZ, &ws), 0);
}

/*
 * A minimal job-control shell: sbx as its foreground job in a process
 * group of its own, as a login shell runs it, so that a stop of sbx is a
 * stop (in a session leader's own group, an orphaned group, the kernel
 * drops a SIGTSTP).  It reports sbx's pid, then every wait status of it,
 * on REPORT, and exits with sbx's exit code.
 */
__attribute__((noreturn)) static void job_shell(int tty, int report, int err,
						 const char *const *argv)
{
	int status;
	pid_t job = fork();

	if (job == 0) {
		setpgid(0, 0);
		dup2(tty, 0);
		dup2(tty, 1);
		dup2(err, 2);
		execv(sbx_path(), (char *const *)argv);
		_exit(127);
	}
	setpgid(job, job);
	tcsetpgrp(tty, job);
	close(err);
	(void)!write(report, &job, sizeof(job));
	while (waitpid(job, &status, WUNTRACED) == job) {
		(void)!write(report, &status, sizeof(status));
		if (WIFEXITED(status))
			_exit(WEXITSTATUS(status));
		if (WIFSIGNALED(status))
			_exit(128 + WTERMSIG(status));
	}
	_exit(126);
}

/* sbx run -i OPTS... -- /bin/bash --norc --noprofile -i on a fresh pty;
 * AS_JOB: run by job_shell. */
static void session_start_as(struct session *s, const char *const *opts, bool as_job)
{
	const char *argv[32] = { "sbx", "run", "-i" };
	int n = 3, ep[2];

	REQUIRE_USERNS();
	memset(s, 0, sizeof(*s));
	for (; opts && *opts && n < 24; opts++)
		argv[n++] = *opts;
	argv[n++] = "--";
	argv[n++] = "/bin/bash";
	argv[n++] = "--norc";
	argv[n++] = "--noprofile";
	argv[n++] = "-i";
	argv[n] = NULL;
	cr_assert_eq(openpty(&s->master, &s->slave, NULL, NULL, NULL), 0, "openpty: %s",
		     strerror(errno));
	set_size(s->master, 24, 80);
	s->stty_before = stty_a(s->slave);
	cr_assert_eq(tcgetattr(s->slave, &s->tio_before), 0);
	cr_assert_eq(pipe2(ep, O_CLOEXEC), 0);
	int jp[2];
	cr_assert_eq(pipe2(jp, O_CLOEXEC), 0);
	s->pid = fork();
	cr_assert_geq(s->pid, 0);
	if (s->pid == 0) {
		/* only the test holds the master: when it ends, even by a failed
		 * assertion, the terminal hangs up and SIGHUP ends sbx and the
		 * job shell instead of leaving them waiting */
		close(s->master);
		close(jp[0]);
		close(ep[0]);
		setsid();
		ioctl(s->slave, TIOCSCTTY, 0);
		setenv("TERM", "xterm-256color", 1);
		if (as_job)
			job_shell(s->slave, jp[1], ep[1], argv);
		dup2(s->slave, 0);
		dup2(s->slave, 1);
		dup2(ep[1], 2);
		setenv("TERM", "xterm-256color", 1);
		execv(sbx_path(), (char *const *)argv);
		_exit(127);
	}
	close(ep[1]);
	close(jp[1]);
	s->err = ep[0];
	s->jobs = jp[0];
	s->job = -1;
	if (as_job)
		cr_assert_eq(read(s->jobs, &s->job, sizeof(s->job)), (ssize_t)sizeof(s->job));
	fcntl(s->master, F_SETFL, O_NONBLOCK);
}

static void session_start(struct session *s, const char *const *opts)
{
	session_start_as(s, opts, false);
}

/* The next wait status the job shell saw of sbx (bounded). */
static int session_job_status(struct session *s)
{
	struct pollfd p = { .fd = s->jobs, .events = POLLIN };
	int status = -1;

	cr_assert_eq(poll(&p, 1, WAIT_S * 1000), 1, "the job shell reported nothing");
	cr_assert_eq(read(s->jobs, &status, sizeof(status)), (ssize_t)sizeof(status));
	return status;
}

/* Read the terminal until WHAT shows after the last send (true), or
 * sbx's side closes or SECONDS pass (false). */
static bool session_wait_for(struct session *s, const char *what, double seconds)
{
	double end = now_s() + seconds;

	for (;;) {
		if (s->seen && strstr(s->seen + s->mark, what))
			return true;
		int left = (int)((end - now_s()) * 1000);
		if (left <= 0)
			return false;
		struct pollfd p = { .fd = s->master, .events = POLLIN };
		if (poll(&p, 1, left) <= 0)
			continue;
		if (s->len + 4097 > s->cap) {
			s->cap = (s->cap + 4097) * 2;
			s->seen = realloc(s->seen, s->cap);
			cr_assert_not_null(s->seen);
		}
		ssize_t k = read(s->master, s->seen + s->len, 4096);
		if (k < 0 && errno == EAGAIN)
			continue;
		if (k <= 0)
			return false; /* EIO: no process has the caller's terminal open */
		s->len += (size_t)k;
		s->seen[s->len] = '\0';
	}
}

static bool session_wait(struct session *s, const char *what)
{
	return session_wait_for(s, what, WAIT_S);
}

/* What the terminal showed since the last send. */
static const char *session_since(const struct session *s)
{
	return s->seen ? s->seen + s->mark : "";
}

static void session_send(struct session *s, const char *keys)
{
	size_t n = strlen(keys);

	s->mark = s->len;
	cr_assert_eq(write(s->master, keys, n), (ssize_t)n);
}

/* Send CMD as a line and wait for WANT in what follows. */
static void session_expect(struct session *s, const char *cmd, const char *want)
{
	session_send(s, cmd);
	session_send(s, "\r");
	cr_assert(session_wait(s, want), "no '%s' after '%s'; the terminal showed:\n%s", want,
		  cmd, s->seen ? s->seen : "");
}

/* The shell is up and reading: its first marker. */
static void session_ready(struct session *s)
{
	session_expect(s, "echo UP$((1+1))", "UP2");
}

/* Wait for sbx (bounded: SIGKILL after WAIT_S), then check that the
 * caller's terminal is exactly as before.  Returns sbx's wait status;
 * *RECORD gets its stderr (malloc'd) when RECORD is not NULL. */
static int session_end(struct session *s, char **record)
{
	double end = now_s() + WAIT_S;
	int status = 0;
	char buf[65536];
	size_t n = 0;
	ssize_t k;

	while (waitpid(s->pid, &status, WNOHANG) == 0) {
		if (now_s() > end) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &status, 0);
			cr_assert_fail("sbx did not end; the terminal showed:\n%s",
				       s->seen ? s->seen : "");
		}
		/* keep the terminal drained: sbx must never block on it */
		session_wait_for(s, "\x01\x02never", 0.2);
	}
	/* what sbx wrote last, up to the terminal's EOF or a quiet poll */
	session_wait_for(s, "\x01\x02never", 0.5);
	while (n < sizeof(buf) - 1 && (k = read(s->err, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	char *after = stty_a(s->slave);
	struct termios tio;
	cr_assert_eq(tcgetattr(s->slave, &tio), 0);
	cr_assert_str_eq(after, s->stty_before, "the caller's terminal changed:\nbefore:\n%s\n"
			 "after:\n%s\nsbx's stderr: %s", s->stty_before, after, buf);
	cr_assert(tio.c_iflag == s->tio_before.c_iflag && tio.c_oflag == s->tio_before.c_oflag &&
		  tio.c_cflag == s->tio_before.c_cflag && tio.c_lflag == s->tio_before.c_lflag &&
		  !memcmp(tio.c_cc, s->tio_before.c_cc, sizeof(tio.c_cc)),
		  "the caller's termios changed");
	free(after);
	if (ioctl(s->slave, FIONREAD, &s->queued) != 0)
		s->queued = -1;
	if (record)
		*record = strdup(buf);
	close(s->master);
	close(s->slave);
	close(s->err);
	close(s->jobs);
	free(s->stty_before); /* s->seen stays for the test's checks: it frees it */
	return status;
}

static void assert_exit(int status, int code, const char *err)
{
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == code,
		  "sbx: wait status 0x%x, want exit %d; stderr: %s", status, code, err);
}

Test(interactive, tty_in_the_jail_is_a_pts_of_its_own)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	session_expect(&s, "tty; echo T$((1+1))", "T2");
	cr_assert(strstr(session_since(&s), "/dev/pts/"), "tty printed no /dev/pts/N:\n%s",
		  s.seen);
	cr_assert_null(strstr(s.seen, "not a tty"), "%s", s.seen);
	cr_assert_null(strstr(s.seen, "no job control"), "%s", s.seen);
	/* TERM comes from the caller */
	session_expect(&s, "echo \"term=$TERM\" E$((1+1))", "term=xterm-256color E2");
	session_send(&s, "exit 7\r");
	int status = session_end(&s, &err);
	assert_exit(status, 7, err);
	free(err);
	free(s.seen);
}

/*
 * bubblewrap and nsjail hand the program the caller's own terminal; here
 * no descriptor of the jail may be it: each of the shell's 0, 1, 2 is a
 * node of another devpts instance than the caller's (st_dev differs).
 */
Test(interactive, no_fd_in_the_jail_is_the_callers_terminal)
{
	struct session s;
	struct stat caller;
	char *err, want[64];

	session_start(&s, NULL);
	cr_assert_eq(fstat(s.slave, &caller), 0);
	session_ready(&s);
	session_expect(&s, "for f in 0 1 2; do stat -L -c 'dev=%d' /proc/$$/fd/$f; done; "
		       "echo S$((1+1))", "S2");
	snprintf(want, sizeof(want), "dev=%lu\r", (unsigned long)caller.st_dev);
	int lines = 0;
	for (const char *p = session_since(&s); (p = strstr(p, "dev=")); p++)
		lines += p[4] >= '0' && p[4] <= '9';
	cr_assert_eq(lines, 3, "want 3 stat lines:\n%s", s.seen);
	cr_assert_null(strstr(session_since(&s), want),
		       "a jail fd is on the caller's devpts (%s):\n%s", want, s.seen);
	session_send(&s, "exit\r");
	int status = session_end(&s, &err);
	assert_exit(status, 0, err);
	free(err);
	free(s.seen);
}

Test(interactive, job_control_sleep_in_background_then_fg_and_ctrl_c)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	session_expect(&s, "sleep 100 &", "[1]");
	session_expect(&s, "jobs; echo J$((1+1))", "J2");
	cr_assert(strstr(session_since(&s), "Running"), "jobs shows no running job:\n%s",
		  s.seen);
	session_expect(&s, "fg", "sleep 100");
	/* Ctrl-C is a byte on the jail's pty: its line discipline signals the
	 * foreground job, the shell and sbx go on.  fg prints the job just
	 * before it hands it the terminal: a Ctrl-C that came first reached
	 * the shell, so it is sent again until the prompt is back. */
	bool back = false;
	for (int i = 0; i < 10 && !back; i++) {
		session_send(&s, "\x03");
		back = session_wait_for(&s, "$ ", 3);
	}
	cr_assert(back, "Ctrl-C did not end the foreground job:\n%s", s.seen);
	session_expect(&s, "echo rc=$? C$((1+1))", "rc=130 C2");
	session_expect(&s, "jobs; echo K$((1+1))", "K2");
	cr_assert_null(strstr(session_since(&s), "sleep"), "the job is still there:\n%s", s.seen);
	session_send(&s, "exit\r");
	int status = session_end(&s, &err);
	assert_exit(status, 0, err);
	cr_assert(strstr(err, "\"status\":\"ok\""), "%s", err);
	free(err);
	free(s.seen);
}

Test(interactive, ctrl_z_stops_the_foreground_job_and_bg_resumes_it)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	/* the job prints its marker once it runs in the foreground */
	session_expect(&s, "sh -c 'echo F$((1+1)); exec sleep 100'", "F2");
	session_send(&s, "\x1a");
	cr_assert(session_wait(&s, "Stopped"), "Ctrl-Z stopped nothing:\n%s", s.seen);
	session_expect(&s, "bg; echo B$((1+1))", "B2");
	session_expect(&s, "jobs; echo R$((1+1))", "R2");
	cr_assert(strstr(session_since(&s), "Running"), "bg did not resume:\n%s", s.seen);
	session_send(&s, "kill %1; exit\r");
	int status = session_end(&s, &err);
	assert_exit(status, 0, err);
	free(err);
	free(s.seen);
}

Test(interactive, ctrl_c_ends_a_foreground_loop_not_sbx)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	session_expect(&s, "sh -c 'echo L$((1+1)); while :; do :; done'", "L2");
	session_send(&s, "\x03");
	session_expect(&s, "echo after C$((1+1))", "after C2");
	session_send(&s, "exit 3\r");
	int status = session_end(&s, &err);
	assert_exit(status, 3, err);
	free(err);
	free(s.seen);
}

Test(interactive, stty_size_follows_the_callers_window)
{
	struct session s;
	char *err;
	bool seen = false;

	session_start(&s, NULL);
	session_ready(&s);
	session_expect(&s, "stty size; echo Z$((1+1))", "Z2");
	cr_assert(strstr(session_since(&s), "24 80\r"), "the start size did not pass:\n%s",
		  s.seen);
	set_size(s.master, 40, 132);
	/* SIGWINCH reaches sbx asynchronously: ask until the new size shows,
	 * a bounded number of times, each waiting for the shell's answer */
	for (int i = 0; i < 20 && !seen; i++) {
		char cmd[64], mark[16];

		snprintf(cmd, sizeof(cmd), "stty size; echo W$((%d+1))", 100 + i);
		snprintf(mark, sizeof(mark), "W%d", 101 + i);
		session_expect(&s, cmd, mark);
		seen = strstr(session_since(&s), "40 132\r") != NULL;
	}
	cr_assert(seen, "the new size never reached the jail:\n%s", s.seen);
	/* back as it was, for the check that sbx itself changed nothing */
	set_size(s.master, 24, 80);
	session_send(&s, "exit\r");
	int status = session_end(&s, &err);
	assert_exit(status, 0, err);
	free(err);
	free(s.seen);
}

Test(interactive, vi_starts_draws_and_quits)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	session_expect(&s, "/usr/bin/vim.tiny -N -u NONE /tmp/probe.txt", "[New]");
	/* each step waits for vi to draw it: keys typed ahead of a redraw
	 * may be taken as the terminal's answer to vi's queries */
	session_send(&s, "i");
	cr_assert(session_wait(&s, "INSERT"), "vi shows no insert mode:\n%s", s.seen);
	session_send(&s, "hello from vi");
	cr_assert(session_wait(&s, "vi"), "vi does not echo the text:\n%s", s.seen);
	session_send(&s, "\x1b:wq\r");
	/* leaving the alternate screen is vi's last act */
	cr_assert(session_wait(&s, "\x1b[?1049l"), "vi did not quit:\n%s", s.seen);
	cr_assert(session_wait(&s, "$ "), "no prompt after vi:\n%s", s.seen);
	session_expect(&s, "cat /tmp/probe.txt; echo V$((1+1))", "V2");
	cr_assert(strstr(session_since(&s), "hello from vi\r\n"), "vi did not write the file:\n%s",
		  s.seen);
	session_send(&s, "exit\r");
	int status = session_end(&s, &err);
	assert_exit(status, 0, err);
	free(err);
	free(s.seen);
}

/*
 * TIOCSTI pushes bytes into a terminal's input as if typed: through the
 * caller's terminal it would run a command in the caller's shell after
 * sbx exits (CVE-2017-5226 in bubblewrap).  In the jail the filter
 * refuses it, and the caller's terminal receives nothing.
 */
Test(interactive, tiocsti_cannot_reach_the_callers_terminal)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	session_expect(&s, "python3 -c 'import fcntl, termios, errno, os\n"
		       "for path in (None, \"/dev/tty\"):\n"
		       "    fd = 0 if path is None else os.open(path, os.O_RDWR)\n"
		       "    try:\n"
		       "        for c in b\"echo INJ$((6*7))\\n\": fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n"
		       "        print(\"sti-\" + \"ok\")\n"
		       "    except OSError as e: print(\"sti-\" + errno.errorcode[e.errno])'; "
		       "echo P$((1+1))", "P2");
	cr_assert(strstr(session_since(&s), "sti-EPERM"), "TIOCSTI was not refused:\n%s", s.seen);
	cr_assert_null(strstr(s.seen, "sti-ok"), "%s", s.seen);
	session_send(&s, "exit\r");
	int status = session_end(&s, &err);
	assert_exit(status, 0, err);
	/* nothing waits in the caller's input, and nothing ran */
	cr_assert_eq(s.queued, 0, "%d bytes wait in the caller's input", s.queued);
	cr_assert_null(strstr(s.seen, "INJ42"), "an injected command ran:\n%s", s.seen);
	free(err);
	free(s.seen);
}

Test(interactive, output_flood_ends_at_the_output_limit)
{
	struct session s;
	char *err;
	const char *opts[] = { "--output", "64K", NULL };

	session_start(&s, opts);
	session_ready(&s);
	session_send(&s, "yes flood\r");
	int status = session_end(&s, &err);
	assert_exit(status, 124, err);
	cr_assert(strstr(err, "\"status\":\"output-limit\""), "%s", err);
	cr_assert(strstr(s.seen, "[sbx: output truncated at 65536 bytes]"),
		  "no marker in the terminal's last bytes: %.300s",
		  s.seen + (s.len > 300 ? s.len - 300 : 0));
	free(err);
	free(s.seen);
}

Test(interactive, wall_limit_ends_the_session_and_restores_the_terminal)
{
	struct session s;
	char *err;
	const char *opts[] = { "-t", "3", NULL };

	session_start(&s, opts);
	session_ready(&s);
	session_send(&s, "sleep 100\r");
	int status = session_end(&s, &err);
	assert_exit(status, 124, err);
	cr_assert(strstr(err, "\"status\":\"timeout\""), "%s", err);
	free(err);
	free(s.seen);
}

Test(interactive, cpu_limit_ends_the_session_and_restores_the_terminal)
{
	struct session s;
	char *err;
	const char *opts[] = { "--cpu", "1", NULL };

	session_start(&s, opts);
	session_ready(&s);
	session_send(&s, "while :; do :; done\r");
	int status = session_end(&s, &err);
	assert_exit(status, 124, err);
	cr_assert(strstr(err, "\"status\":\"cpu-limit\""), "%s", err);
	free(err);
	free(s.seen);
}

/* A signal to sbx itself tears the jail down (exit 128+N, aborted) and
 * the caller's terminal is restored first. */
static void signal_to_sbx_restores_the_terminal(int sig)
{
	struct session s;
	char *err;

	session_start(&s, NULL);
	session_ready(&s);
	kill(s.pid, sig);
	int status = session_end(&s, &err);
	assert_exit(status, 128 + sig, err);
	cr_assert(strstr(err, "\"status\":\"aborted\""), "%s", err);
	free(err);
	free(s.seen);
}

Test(interactive, sigterm_to_sbx_restores_the_terminal)
{
	signal_to_sbx_restores_the_terminal(SIGTERM);
}

Test(interactive, sighup_to_sbx_restores_the_terminal)
{
	signal_to_sbx_restores_the_terminal(SIGHUP);
}

Test(interactive, sigint_to_sbx_restores_the_terminal)
{
	signal_to_sbx_restores_the_terminal(SIGINT);
}

/* Without a terminal on stdin there is no pty: a warning, and the
 * program reads sbx's stdin. */
Test(interactive, without_a_terminal_warns_and_relays_stdin)
{
	struct sbx_result r;
	struct sbx_opts o = { .stdin_data = "echo piped-$((1+1))\n", .stdin_len = 20 };

	REQUIRE_USERNS();
	sbx_run(&r, &o, SBX_ARGV("run", "-i", "--", "/bin/sh"));
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.err, "stdin is not a terminal"), "%s", r.err);
	cr_assert(strstr(r.out, "piped-2"), "stdout: %s", r.out);
	sbx_result_free(&r);
}

Test(interactive, with_json_is_a_usage_error)
{
	struct sbx_result r;
	struct sbx_opts o = { .record_on_stdout = true };

	sbx_run(&r, &o, SBX_ARGV("run", "-i", "--json", "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125, "%s", r.err);
	sbx_result_free(&r);
}

/*
 * A stop of sbx itself (SIGTSTP from its shell, as `kill -TSTP` sends;
 * a typed Ctrl-Z is a byte for the jail): the caller's shell gets its
 * terminal back as it was while sbx is stopped, and the session goes on
 * in raw mode once sbx is continued.
 */
Test(interactive, a_stop_of_sbx_gives_the_terminal_back_until_it_continues)
{
	struct session s;
	char *err;

	session_start_as(&s, NULL, true);
	session_ready(&s);
	char *raw = stty_a(s.slave);
	cr_assert(strcmp(raw, s.stty_before) != 0, "the terminal is not raw while sbx runs");
	kill(s.job, SIGTSTP);
	int st = session_job_status(&s);
	cr_assert(WIFSTOPPED(st), "sbx did not stop: wait status 0x%x", st);
	char *stopped = stty_a(s.slave);
	cr_assert_str_eq(stopped, s.stty_before, "the terminal while sbx is stopped:\n%s\n"
			 "before:\n%s", stopped, s.stty_before);
	kill(s.job, SIGCONT);
	session_expect(&s, "echo again G$((1+1))", "again G2");
	char *again = stty_a(s.slave);
	cr_assert_str_eq(again, raw, "not raw again after the stop:\n%s", again);
	session_send(&s, "exit 5\r");
	int status = session_end(&s, &err);
	assert_exit(status, 5, err);
	cr_assert(strstr(err, "\"stopped_ms\""), "%s", err);
	free(raw);
	free(stopped);
	free(again);
	free(err);
	free(s.seen);
}
