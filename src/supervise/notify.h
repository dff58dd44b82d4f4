/*
 * notify.h - the supervisor's end of the seccomp listener: answer every
 * refusal the filter reports, count it by name, name the call a KILL
 * rule stops, and in `sbx learn` let through and count what the trial
 * run needs.
 *
 * The listener arrives from the target over the control socket
 * (CTL_LISTENER).  The first notification starts one serving thread that
 * waits in poll() and takes each notification with SECCOMP_IOCTL_NOTIF_RECV
 * (with SYNC_WAKE_UP where the kernel has it, so the answer switches
 * straight back to the program); the event
 * loop is never slowed by a program that hammers a refused call, and the
 * bookkeeping is a fixed table.  The thread ends when the last filtered
 * task is gone, or when notify_stop() wakes it through an eventfd; that
 * always joins it before anyone reads the results, so the thread never
 * outlives the notifier it works on.
 */
#ifndef SBX_SUPERVISE_NOTIFY_H
#define SBX_SUPERVISE_NOTIFY_H

#include <linux/filter.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/log.h"
#include "record/denied.h"
#include "supervise/learned.h"
#include "supervise/supervise.h"

struct notifier {
	int fd;                          /* the listener; -1 = none (yet) */
	const struct sock_fprog *policy; /* answers (the jail's copy) */
	const struct sock_fprog *learn;  /* `sbx learn`, else NULL */
	struct learned_calls *learned;   /* the request's, with learn */
	struct denied_report *report;    /* calloc'ed with the listener */
	struct vlog vlog;                /* -v: "sbx: notify +MS ...", the supervisor's t0 */
	pthread_t thread;
	bool threaded;                   /* the serving thread runs */
	int wake_fd;                     /* eventfd: notify_stop ends its poll */
	bool sync_wake;                  /* SYNC_WAKE_UP was accepted */
	bool short_slice;                /* the thread got its 0.1 ms time slice */
	int target_pid;                  /* the target in the jail's pid ns */
	/* written while serving; read after notify_stop(): the processes a
	 * KILL rule ended (their pid in the jail; CTL_STARTED, which names
	 * the target's, may come after the first kill) and at which call */
	struct { int jail_pid, nr; } kills[8];
	unsigned nkills;
	uint64_t served;
	char why_none[200];              /* no listener: why (for -v, messages) */
};

/* LOG: the supervisor's -v log (its switch and start time); LEARNED:
 * `sbx learn`'s counters (the request's), or NULL. */
void notify_init(struct notifier *n, const struct vlog *log, struct learned_calls *learned);

/* Take FD (SCM_RIGHTS with CTL_LISTENER) once it proves a seccomp
 * listener; the programs are the jail's.  -1: FD was closed. */
int notify_adopt(struct notifier *n, int fd, const struct sock_fprog *policy,
		 const struct sock_fprog *learn);

/* The target loaded its filter without a listener: kernel errno E. */
void notify_none(struct notifier *n, int e, const char *why);

/* A notification waits on the listener (not only its hang-up, when the
 * last filtered task is gone). */
bool notify_pending(const struct notifier *n);

/* The listener is readable for the first time: start serving it in the
 * thread (0), or -1: serve it from the loop with notify_serve_one(). */
int notify_start(struct notifier *n);
void notify_serve_one(struct notifier *n);

/* After the jail is gone: join the thread; the report moves to *OUT
 * (NULL when there was none). */
void notify_stop(struct notifier *n, struct denied_report **out);

/* After notify_stop: the call a KILL rule stopped the target at, or -1. */
int notify_target_kill(const struct notifier *n);

#endif
