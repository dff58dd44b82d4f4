/*
 * procstate.c - reset what sbx inherits from its caller (procstate.h).
 *
 * Only what survives execve() can be inherited: ignored dispositions (a
 * handler cannot), the blocked mask and pending signals, ITIMER_*, the
 * personality, the umask and the timer slack.  The alternate signal stack
 * and sa_flags (SA_NOCLDWAIT) are cleared by execve itself.  Signals are
 * handled with the raw system calls: glibc's sigaction() and sigprocmask()
 * refuse or skip its internal signals 32 and 33 (commit 52dd357).
 */
#include "base/procstate.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NSIG_KERNEL 64
#define KERNEL_SIGRTMIN 32 /* glibc's SIGRTMIN is 34 */
#define TIMER_SLACK_DEFAULT_NS 50000 /* the kernel's default, 50 us */
#define SBX_STACK_MIN (8UL << 20) /* the usual default; sbx needs far less */
#define SBX_STACK_FLOOR (256UL << 10) /* sbx's own need, with room */

/* struct sigaction as the rt_sigaction system call takes it (x86-64, arm64). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static uint64_t bit(int sig)
{
	return UINT64_C(1) << (sig - 1);
}

/* Async signals whose default ends sbx: a caller's kill -PROF, -PWR, -IO,
 * -RTMIN+3 left no record (and -o's staging dir); the synchronous fault
 * signals (SEGV, BUS, ILL, FPE, TRAP, SYS, ABRT) stay out, as blocking
 * them changes nothing for a real fault. */
static const int abort_signals[] = { SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1,
				     SIGUSR2, SIGALRM,   SIGPROF, SIGVTALRM, SIGPWR,
				     SIGIO,   SIGSTKFLT, SIGXCPU };

int procstate_timer_signal(void)
{
	return SIGRTMIN;
}

static void on_timer_signal(int sig)
{
	(void)sig; /* only here to cut a system call short (no SA_RESTART) */
}

int procstate_catch_timer_signal(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer_signal;
	sigemptyset(&sa.sa_mask);
	return sigaction(procstate_timer_signal(), &sa, NULL);
}

/* Set when a SIGALRM that is not the itimer's lands in a write window. */
static volatile sig_atomic_t caller_alarm;

static void on_alarm(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)ctx;
	/* the itimer's own is SI_KERNEL, which kill(2) and sigqueue(3) cannot
	 * claim; anything else is the caller's request to stop */
	if (info->si_code != SI_KERNEL)
		caller_alarm = 1;
}

int procstate_alarm_open(void)
{
	static bool caught;
	sigset_t set;

	if (!caught) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_alarm;
		sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: the write is cut short */
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGALRM, &sa, NULL) != 0)
			return -1;
		caught = true;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	return sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void procstate_alarm_close(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* the handler took the caller's SIGALRM: pend it again, for the signalfd */
	if (caller_alarm) {
		caller_alarm = 0;
		kill(getpid(), SIGALRM);
	}
}

bool procstate_is_abort(int sig)
{
	for (size_t i = 0; i < sizeof(abort_signals) / sizeof(abort_signals[0]); i++)
		if (abort_signals[i] == sig)
			return true;
	/* the realtime signals from the kernel's first (a caller's kill -32 or
	 * -33, glibc's own for threads sbx does not have, ended sbx with no
	 * record), but the one of sbx's own timer */
	return sig >= KERNEL_SIGRTMIN && sig <= SIGRTMAX && sig != procstate_timer_signal();
}

void procstate_abort_set(sigset_t *set)
{
	uint64_t mask = 0;

	for (int sig = 1; sig <= NSIG_KERNEL; sig++)
		if (procstate_is_abort(sig))
			mask |= bit(sig);
	/* by hand: glibc's sigaddset() refuses 32 and 33; its sigprocmask()
	 * drops them too, so procstate_reset() blocks them raw */
	sigemptyset(set);
	memcpy(set, &mask, sizeof(mask));
}

int procstate_abort_pending(void)
{
	uint64_t pending = 0;

	if (syscall(SYS_rt_sigpending, &pending, sizeof(pending)) != 0)
		return 0;
	for (int sig = 1; sig <= NSIG_KERNEL; sig++)
		if ((pending & bit(sig)) && procstate_is_abort(sig))
			return sig;
	return 0;
}

static int raw_sigaction(int sig, const struct ksigaction *act, struct ksigaction *old)
{
	return (int)syscall(SYS_rt_sigaction, sig, act, old, sizeof(uint64_t));
}

static void raw_sigmask(uint64_t mask)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, sizeof(uint64_t));
}

/* An inherited SIG_IGN for SIGCHLD auto-reaps sbx's children: every run
 * would end as `timeout` and doctor's probes would read as ok. */
static void unignore_signals(void)
{
	struct ksigaction dfl = { .handler = SIG_DFL }, old;

	for (int sig = 1; sig <= NSIG_KERNEL; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (raw_sigaction(sig, NULL, &old) == 0 && old.handler == SIG_IGN)
			raw_sigaction(sig, &dfl, NULL);
	}
}

/*
 * Drop the pending signals the caller kept blocked (a SIGALRM of its
 * itimer, a SIGUSR1): unblocked, their default action would kill sbx
 * before it writes a record.  The abort signals stay for `sbx run`.
 */
static void drop_pending(uint64_t keep)
{
	uint64_t pending = 0;
	struct timespec zero = { 0, 0 };

	if (syscall(SYS_rt_sigpending, &pending, sizeof(pending)) != 0)
		return;
	for (int sig = 1; sig <= NSIG_KERNEL; sig++) {
		uint64_t one = bit(sig);

		if (!(pending & one) || (keep & one))
			continue;
		/* realtime signals queue: take them until none is left */
		for (int i = 0; i < 4096; i++)
			if (syscall(SYS_rt_sigtimedwait, &one, NULL, &zero,
				    sizeof(uint64_t)) != sig)
				break;
	}
}

/* ITIMER_REAL/VIRTUAL/PROF survive execve: a caller's armed timer would
 * kill sbx (SIGALRM) in the middle of a run. */
static void disarm_itimers(void)
{
	static const int which[] = { ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF };
	struct itimerval off;

	memset(&off, 0, sizeof(off));
	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++)
		setitimer(which[i], &off, NULL);
}

/*
 * Give a closed fd 0, 1 or 2 a /dev/null opened read-only: otherwise sbx's
 * own next open() lands there and --stdin - relays, or the record is written
 * into, one of sbx's files; read-only makes a write there fail (EBADF), so a
 * record sent to a closed stdout is an error, not lost.
 */
static void fill_closed_stdio(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lower ones are open now: open() takes exactly FD */
		(void)open("/dev/null", O_RDONLY | O_NOCTTY);
	}
}

/*
 * sbx's own limits against what the caller inherited it: a tiny RLIMIT_FSIZE
 * killed sbx by SIGXFSZ while it copied -f into the workspace (left behind,
 * no record), a tiny RLIMIT_STACK crashed it.  Ignored, SIGXFSZ turns into
 * EFBIG that sbx reports; the jail gets SIG_DFL back (procstate_default_signals).
 */
static void own_limits(void)
{
	struct ksigaction ign = { .handler = SIG_IGN };
	struct rlimit st;

	raw_sigaction(SIGXFSZ, &ign, NULL);
	if (getrlimit(RLIMIT_STACK, &st) == 0 && st.rlim_cur < SBX_STACK_MIN) {
		st.rlim_cur = st.rlim_max < SBX_STACK_MIN ? st.rlim_max : SBX_STACK_MIN;
		setrlimit(RLIMIT_STACK, &st);
	}
	/* below this sbx crashes (SIGSEGV, no record): say so instead, with
	 * write() only, as printf alone overflows such a stack */
	if (st.rlim_cur < SBX_STACK_FLOOR) {
		static const char msg[] = "sbx: the inherited stack limit (RLIMIT_STACK, "
			"ulimit -s) is below 256 KiB and its hard limit too; sbx needs "
			"256 KiB (raise it: ulimit -Hs 8192)\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)w;
		_exit(125);
	}
}

void procstate_reset(bool hold_abort)
{
	/* a pending request to stop stays; a stale SIGUSR1 or SIGALRM the
	 * caller had blocked is dropped, not taken for one */
	uint64_t stop = bit(SIGINT) | bit(SIGTERM) | bit(SIGHUP);
	uint64_t keep = hold_abort ? stop : 0, blocked = 0;
	mode_t mask;

	fill_closed_stdio();
	disarm_itimers();
	unignore_signals();
	own_limits();
	drop_pending(keep);
	for (int sig = 1; hold_abort && sig <= NSIG_KERNEL; sig++)
		if (procstate_is_abort(sig))
			blocked |= bit(sig);
	raw_sigmask(blocked);
	/* a caller's kill -RTMIN, sbx's timer signal, is not a way to end sbx */
	if (hold_abort)
		(void)procstate_catch_timer_signal();
	/* READ_IMPLIES_EXEC makes every readable mapping executable and
	 * ADDR_NO_RANDOMIZE turns ASLR off, in sbx and in the jail. */
	if (personality(0xffffffff) != PER_LINUX)
		personality(PER_LINUX);
	/* A huge slack delays sbx's timers: the wall limit would fire late. */
	if (prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) != TIMER_SLACK_DEFAULT_NS)
		prctl(PR_SET_TIMERSLACK, TIMER_SLACK_DEFAULT_NS, 0, 0, 0);
	/* The caller's umask keeps deciding who else may read what sbx writes
	 * for it (-o, --result: its read/write bits for group and other); not
	 * the owner's bits nor the search bits, or a root caller's umask 077
	 * makes the workspace parent 0700 and locks the jail's uid out. */
	mask = umask(0);
	umask(mask & 066);
}

void procstate_default_signals(void)
{
	struct ksigaction dfl = { .handler = SIG_DFL };

	for (int sig = 1; sig <= NSIG_KERNEL; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			raw_sigaction(sig, &dfl, NULL);
	raw_sigmask(0);
}
