/*
 * procstate.h - undo the process state a caller can leave behind.
 *
 * A process keeps across execve() what its parent set: ignored signals, the
 * blocked mask and pending signals, armed interval timers, the persona, the
 * umask, the timer slack, closed fds 0-2.  A caller of sbx (a service, a CI runner, a
 * hostile local user) must not change how sbx supervises a run, nor hand
 * any of it on to the jail.  main() calls procstate_reset() first of all;
 * the target drops what is left (priority, umask 022) in jail/target.c.
 */
#ifndef SBX_PROCSTATE_H
#define SBX_PROCSTATE_H

#include <signal.h>
#include <stdbool.h>

/* The umask of every jail process (the init and the program). */
#define JAIL_UMASK 022

/*
 * Every ignored signal back to SIG_DFL (1..64, glibc's 32 and 33 too),
 * pending signals the caller had blocked dropped, no interval timer, the
 * default timer slack and persona, and of the caller's umask only the
 * group/other read and write bits (never the owner's or search bits).
 * The blocked mask becomes empty, or the abort set when HOLD_ABORT (`sbx
 * run` reads those from a signalfd); a pending SIGINT, SIGTERM or SIGHUP
 * then aborts the run instead of killing sbx before its record.
 */
void procstate_reset(bool hold_abort);

/*
 * The abort set: the signals `sbx run` takes as a request to stop (tear
 * the jail down, record `aborted`, exit 128 + the signal).  SIGINT,
 * SIGTERM, SIGHUP, and the others whose default would kill sbx without a
 * record: SIGQUIT (Ctrl-\ at a terminal), SIGUSR1, SIGUSR2, SIGALRM,
 * SIGPROF, SIGVTALRM, SIGPWR, SIGIO, SIGSTKFLT, SIGXCPU and every signal
 * from 32 to SIGRTMAX (glibc's own 32 and 33, and its SIGRTMIN onwards) but
 * procstate_timer_signal().
 */
void procstate_abort_set(sigset_t *set);
bool procstate_is_abort(int sig);
/* The lowest abort signal pending (held blocked, not yet read), or 0: a
 * request to stop that came after the signalfd's last read. */
int procstate_abort_pending(void);

/* The signal of sbx's own write timer (relay.c), a POSIX timer: never in
 * the abort set, as a blocked timer signal cannot cut a write short.
 * Caught, it interrupts a system call and does nothing else; 0 or -1 as
 * sigaction(). */
int procstate_timer_signal(void);
int procstate_catch_timer_signal(void);

/*
 * The window of the fallback write timer, ITIMER_REAL, for when no POSIX
 * timer can be made (the caller's `ulimit -i 0` leaves no queued-signal
 * slot): SIGALRM, held blocked as an abort signal, is let through to a
 * handler only between open and close, to cut a write short.  A caller's
 * SIGALRM caught in the window is sent again on close, so it still aborts
 * the run.  Open is 0, or -1 (then SIGALRM stays blocked).
 */
int procstate_alarm_open(void);
void procstate_alarm_close(void);

/* Every signal 1..64 (but SIGKILL/SIGSTOP) to SIG_DFL, even handled ones,
 * and an empty blocked mask: for a process about to exec the program. */
void procstate_default_signals(void);

#endif
