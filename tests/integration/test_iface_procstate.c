/*
 * test_iface_procstate.c - the process state a hostile caller leaves to
 * sbx: ignored and blocked signals, pending signals, armed
 * interval timers, the persona, the umask, the timer slack and a raised
 * priority.  None of it may change how sbx supervises a run (the status,
 * the exit code, doctor's verdict), and none of it may reach the program.
 *
 * Each test forks a "caller" that sets the state, then execs sbx (or a
 * shell that execs it).  jail/inherited_ignored_signals_are_reset in
 * test_jail.c covers a shell's `trap ''`; these cover what a shell cannot.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the hostile caller sets before it execs. */
struct caller {
	bool ignore_all;     /* SIG_IGN for every signal 1..64 (raw, 32/33 too) */
	bool block_all;      /* every signal blocked, USR1/ALRM/PROF/RT pending */
	unsigned long persona; /* personality(); 0 = leave */
	int umask_value;     /* -1 = leave */
	int itimer_s;        /* ITIMER_REAL armed, SIGALRM default; 0 = none */
	unsigned long slack_ns; /* PR_SET_TIMERSLACK; 0 = leave */
	bool raise_priority; /* root: nice -5, SCHED_FIFO 1, realtime I/O class */
	bool no_userns;      /* in a user namespace with max_user_namespaces=0 */
	bool term_pending;   /* SIGTERM blocked and pending */
};

struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void ignore_every_signal(void)
{
	struct ksigaction ign = { .handler = SIG_IGN };

	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &ign, NULL, sizeof(uint64_t));
}

static void block_every_signal(void)
{
	uint64_t all = ~UINT64_C(0);

	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, sizeof(all));
	/* pending and blocked: unblocked as they are, each kills sbx; held
	 * for the signalfd, the later ones would be read as a request to stop
	 * (SIGRTMIN, sbx's timer signal, was never blocked before) */
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGALRM);
	kill(getpid(), SIGPROF);
	kill(getpid(), SIGRTMIN);
	kill(getpid(), SIGRTMIN + 1);
	kill(getpid(), SIGRTMIN + 1);
}

static void raise_priority(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (setpriority(PRIO_PROCESS, 0, -5) != 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &sp) != 0 ||
	    syscall(SYS_ioprio_set, 1, 0, (1 << 13) | 4) != 0)
		_exit(120);
}

static void write_or_exit(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		_exit(99);
	close(fd);
}

/* Our own user namespace, where no further one may be made: a host
 * where namespaces are blocked, without touching the host's sysctl. */
static void block_user_namespaces(void)
{
	char map[64];
	unsigned uid = getuid(), gid = getgid();

	if (unshare(CLONE_NEWUSER) != 0)
		_exit(99);
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_or_exit("/proc/self/uid_map", map);
	write_or_exit("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_or_exit("/proc/self/gid_map", map);
	write_or_exit("/proc/sys/user/max_user_namespaces", "0");
}

static void become_caller(const struct caller *c)
{
	if (c->no_userns)
		block_user_namespaces();
	if (c->persona && personality(c->persona) < 0)
		_exit(121);
	if (c->umask_value >= 0)
		umask((mode_t)c->umask_value);
	if (c->slack_ns && prctl(PR_SET_TIMERSLACK, c->slack_ns, 0, 0, 0) != 0)
		_exit(122);
	if (c->raise_priority)
		raise_priority();
	if (c->itimer_s) {
		struct itimerval it = { .it_value = { .tv_sec = c->itimer_s } };
		setitimer(ITIMER_REAL, &it, NULL);
	}
	if (c->ignore_all)
		ignore_every_signal();
	if (c->block_all)
		block_every_signal();
	if (c->term_pending) {
		sigset_t term;
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, NULL);
		kill(getpid(), SIGTERM);
	}
}

/*
 * Run ARGV (argv[0] a path; "SBX" is replaced by the binary under test) as
 * the caller C; stdout into R->out, the record parsed from it when --json.
 * The harness's own deadline: a hung sbx fails its test.
 */
static void run_as(struct sbx_result *r, const struct caller *c, const char *const argv[])
{
	char *out = calloc(1, 1 << 16);
	size_t got = 0, n = 0;
	int p[2], status = 0;
	double start = now_s();

	memset(r, 0, sizeof(*r));
	while (argv[n])
		n++;
	const char **full = calloc(n + 1, sizeof(*full));
	for (size_t i = 0; i < n; i++)
		full[i] = strcmp(argv[i], "SBX") ? argv[i] : sbx_path();
	cr_assert(out && full && pipe2(p, O_CLOEXEC) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(null, 2);
		setpgid(0, 0);
		become_caller(c);
		execv(full[0], (char *const *)full);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		double left = start + 30 - now_s();
		if (left <= 0) {
			r->timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		ssize_t k = read(p[0], out + got, (1 << 16) - 1 - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	r->elapsed_s = now_s() - start;
	r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = out;
	r->out_len = got;
	r->err = strdup("(sbx's stderr is /dev/null in these tests)");
	r->record = cJSON_Parse(out);
	free(full);
}

static void assert_has(const char *text, const char *needle)
{
	cr_assert(strstr(text, needle) != NULL, "missing '%s' in:\n%s", needle, text);
}

/*
 * A caller that ignores SIGCHLD (a daemon's `signal(SIGCHLD, SIG_IGN)`)
 * made every run wait for the wall limit and end as `timeout`, the real
 * exit code lost: the jail's children were auto-reaped.  With every signal
 * ignored, all blocked and two pending, the run ends at once with its code.
 */
Test(iface_procstate, caller_ignoring_and_blocking_every_signal_gets_the_real_exit_code)
{
	struct sbx_result r;
	struct caller c = { .ignore_all = true, .block_all = true, .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "--json", "--time", "10s", "--",
				"/bin/sh", "-c", "sleep 0.1 & wait; exit 7"));
	cr_assert(!r.timed_out, "sbx hung");
	ASSERT_STATUS(&r, "nonzero-exit");
	cr_assert_eq(rec_num(&r, "exit_code"), 7, "exit_code: %s", r.out);
	cr_assert_eq(r.exit_status, 7);
	cr_assert_lt(r.elapsed_s, 8.0, "took %.1f s: waited for the wall limit", r.elapsed_s);
	sbx_result_free(&r);
}

/* Under that caller the program still starts with no signal ignored,
 * blocked or pending, glibc's 32 and 33 included. */
Test(iface_procstate, caller_ignoring_and_blocking_every_signal_leaves_the_target_clean)
{
	struct sbx_result r;
	struct caller c = { .ignore_all = true, .block_all = true, .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "-q", "--time", "10s", "--", "/bin/grep",
				"-E", "^Sig(Ign|Blk|Pnd)|^ShdPnd", "/proc/self/status"));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.out);
	assert_has(r.out, "SigIgn:\t0000000000000000\n");
	assert_has(r.out, "SigBlk:\t0000000000000000\n");
	assert_has(r.out, "SigPnd:\t0000000000000000\n");
	assert_has(r.out, "ShdPnd:\t0000000000000000\n");
	sbx_result_free(&r);
}

/*
 * The reset keeps a SIGTERM the caller sent while it blocked it: run sees
 * it on its signalfd and aborts with a record before anything runs, where
 * an emptied mask would have let it kill sbx with no record at all.
 */
Test(iface_procstate, pending_sigterm_of_the_caller_aborts_with_a_record)
{
	struct sbx_result r;
	struct caller c = { .term_pending = true, .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "--json", "--", "/bin/echo", "RAN"));
	ASSERT_STATUS(&r, "aborted");
	cr_assert_eq(rec_num(&r, "stdout_bytes"), 0, "the program ran: %s", r.out);
	sbx_result_free(&r);
}

/* A caller's armed ITIMER_REAL survives exec: its SIGALRM killed sbx in
 * the middle of the run (no record, the jail left to PDEATHSIG). */
Test(iface_procstate, caller_itimer_does_not_kill_sbx_mid_run)
{
	struct sbx_result r;
	struct caller c = { .itimer_s = 1, .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "--json", "--", "/bin/sleep", "2"));
	cr_assert_eq(r.exit_status, 0, "sbx exit %d (142 = SIGALRM)", r.exit_status);
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
}

/* READ_IMPLIES_EXEC makes every readable mapping executable, and
 * ADDR_NO_RANDOMIZE turns ASLR off: `setarch -X -R sbx run` must not pass
 * them to the program (seccomp then denies it setting them itself). */
Test(iface_procstate, caller_personality_does_not_reach_the_target)
{
	struct sbx_result r;
	struct caller c = { .persona = READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE,
			    .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "-q", "--", "/bin/cat", "/proc/self/personality"));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.out);
	cr_assert_str_eq(r.out, "00000000\n");
	sbx_result_free(&r);
}

/* umask 0 would make the program's files in a persistent workspace
 * world-writable; 0777 made sbx's own workspace mode 0 (setup-error). */
Test(iface_procstate, caller_umask_0_and_0777_give_the_program_022)
{
	int masks[] = { 0, 0777 };

	REQUIRE_USERNS();
	for (size_t i = 0; i < 2; i++) {
		struct sbx_result r;
		struct caller c = { .umask_value = masks[i] };

		run_as(&r, &c, SBX_ARGV("SBX", "run", "-q", "--", "/bin/sh", "-c",
					"umask; touch f && stat -c %a f"));
		cr_assert_eq(r.exit_status, 0, "umask %o: exit %d: %s", masks[i],
			     r.exit_status, r.out);
		cr_assert_str_eq(r.out, "0022\n644\n", "caller umask %o", masks[i]);
		sbx_result_free(&r);
	}
}

/* A hardened host's umask 077 (root's default on some distributions) made
 * the workspace parent 0700: the jail's uid could not reach it. */
Test(iface_procstate, caller_umask_077_still_runs)
{
	struct sbx_result r;
	struct caller c = { .umask_value = 077 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "--json", "--", "/bin/sh", "-c", "umask"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(rec_str(&r, "stdout"), "0022\n", "record: %s", r.out);
	sbx_result_free(&r);
}

/* A 10 s timer slack (PR_SET_TIMERSLACK survives exec) delays every sleep
 * and poll of sbx and the program; both get the kernel default back. */
Test(iface_procstate, caller_timer_slack_is_reset)
{
	struct sbx_result r;
	struct caller c = { .slack_ns = 10000000000ul, .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "run", "-q", "--", "/bin/cat", "/proc/self/timerslack_ns"));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.out);
	cr_assert_str_eq(r.out, "50000\n");
	sbx_result_free(&r);
}

/*
 * Run by root at nice -5, SCHED_FIFO and the realtime I/O class (`chrt -f
 * 1 ionice -c1 nice -n -5 sbx run`), the program kept all three and could
 * starve the host; it starts at nice 0, SCHED_OTHER, no realtime I/O.
 */
Test(iface_procstate, raised_priority_of_a_root_caller_does_not_reach_the_target)
{
	struct sbx_result r;
	struct caller c = { .raise_priority = true, .umask_value = -1 };

	REQUIRE_USERNS();
	if (geteuid() != 0)
		cr_skip_test("SKIP: only root can raise a caller's priority");
	/* fields 19 and 41 of /proc/self/stat: nice and scheduling policy */
	run_as(&r, &c, SBX_ARGV("SBX", "run", "-q", "--", "/bin/sh", "-c",
				"cut -d' ' -f19,41 /proc/self/stat; ionice"));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.out);
	cr_assert(strncmp(r.out, "0 0\n", 4) == 0, "nice/policy: %s", r.out);
	cr_assert(strstr(r.out, "realtime") == NULL, "I/O class: %s", r.out);
	sbx_result_free(&r);
}

/* Whether every check of a doctor --json report is not "ok" for NAMES. */
static void assert_checks_not_ok(const char *json, const char *const *names)
{
	cJSON *root = cJSON_Parse(json), *c;

	cr_assert_not_null(root, "doctor --json: %s", json);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(root, "ok")), "ok is not false: %s", json);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
		const char *state = cJSON_GetStringValue(cJSON_GetObjectItem(c, "state"));

		for (const char *const *n = names; *n; n++)
			if (name && !strcmp(name, *n))
				cr_assert(state && strcmp(state, "ok") != 0,
					  "'%s' is ok with namespaces blocked: %s", name, json);
	}
	cJSON_Delete(root);
}

/*
 * doctor fails closed: under SIGCHLD=SIG_IGN its probe children were
 * auto-reaped, waitpid said ECHILD and the unset status read as ok, so a
 * host that cannot make a user namespace was reported fit to run sbx.
 * max_user_namespaces=0 in a user namespace of our own blocks them (not
 * through a shell: dash resets an ignored SIGCHLD).
 */
Test(iface_procstate, doctor_under_ignored_sigchld_reports_blocked_namespaces)
{
	static const char *const ns[] = { "user namespaces", "mount namespace",
		"pid namespace+proc", "network namespace", "ipc/uts/cgroup ns", NULL };
	struct sbx_result r;
	struct caller c = { .ignore_all = true, .no_userns = true, .umask_value = -1 };

	REQUIRE_USERNS();
	run_as(&r, &c, SBX_ARGV("SBX", "doctor", "--json"));
	if (r.exit_status == 99)
		cr_skip_test("SKIP: cannot lower max_user_namespaces in a user namespace");
	cr_assert_eq(r.exit_status, 1, "doctor exit %d: %s", r.exit_status, r.out);
	assert_checks_not_ok(r.out, ns);
	sbx_result_free(&r);
}

/* The state of each check, "name=state;..." in order. */
static char *states_of(const char *json)
{
	cJSON *root = cJSON_Parse(json), *c;
	char *acc = strdup("");

	cr_assert_not_null(root, "doctor --json: %s", json);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks")) {
		char *next = xasprintf("%s%s=%s;", acc,
				       cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")),
				       cJSON_GetStringValue(cJSON_GetObjectItem(c, "state")));
		free(acc);
		acc = next;
	}
	cJSON_Delete(root);
	return acc;
}

/* Whatever this host allows, an ignored SIGCHLD does not change a verdict. */
Test(iface_procstate, doctor_says_the_same_with_sigchld_ignored)
{
	struct sbx_result plain, ign;
	struct caller none = { .umask_value = -1 }, c = { .ignore_all = true, .umask_value = -1 };

	run_as(&plain, &none, SBX_ARGV("SBX", "doctor", "--json"));
	run_as(&ign, &c, SBX_ARGV("SBX", "doctor", "--json"));
	char *a = states_of(plain.out), *b = states_of(ign.out);
	cr_assert_str_eq(b, a, "with SIGCHLD ignored: %s\nplain: %s", b, a);
	cr_assert_eq(ign.exit_status, plain.exit_status);
	free(a);
	free(b);
	sbx_result_free(&plain);
	sbx_result_free(&ign);
}
