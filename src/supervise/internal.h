/*
 * internal.h - the supervisor's state, shared by the files of supervise_run;
 * not for other modules.  All of this folder runs in sbx's own process
 * (notify.c in a thread of it); the stages are listed in supervise.h.
 *  - supervise.c: supervise_run, its setup, the spawn, its teardown;
 *  - loop.c: the running jail (the epoll loop, the init's messages, signals
 *    and reaping, the timer and the meter's deadlines);
 *  - relay.c with capture.c: the program's output to sbx's stdout/stderr,
 *    the --stdout/--stderr copies and --json's capture; stdin.c: its stdin;
 *    terminal.c: -i, the caller's terminal and the jail's pty;
 *  - cputree.c with cputree_proc.c (one process's /proc), cputree_mem.c and
 *    sockmem.c (the memory a jail holds, sockets included): the meter,
 *    where no cgroup counts;
 *  - cgroup.c with cgfile.c: the run's own cgroup v2 and its watchdog;
 *  - notify.c: the seccomp listener, counting refused calls (learned.h for
 *    `sbx learn`);
 *  - classify.c: the facts -> status, message, exit status.
 */
#ifndef SBX_SUPERVISE_INTERNAL_H
#define SBX_SUPERVISE_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/resource.h>

#include "base/err.h"
#include "base/log.h"
#include "jail/jail.h"
#include "record/result.h"
#include "supervise/cgroup.h"
#include "supervise/cputree.h"
#include "supervise/notify.h"
#include "supervise/relay.h"
#include "supervise/stdin.h"
#include "supervise/supervise.h"
#include "supervise/terminal.h"

#define MS (INT64_C(1000000))
/* The meter samples every 10 ms while the tree changes (births, deaths)
 * and for a second after, 100 ms once it is still, and never spends more
 * than 1/SAMPLE_COST_SHARE of one CPU: a sample that cost C waits >= C *
 * share. */
#define SAMPLE_MIN_NS (10 * MS)
#define SAMPLE_MAX_NS (100 * MS)
#define SAMPLE_FAST_FOR_NS (1000 * MS)
#define SAMPLE_COST_SHARE 20
#define SETTLE_MARGIN_NS (1000 * MS)

/* TAG_OUT/TAG_ERR: the jail pipes (EPOLLIN); the DEST/COPY tags: sbx sinks (EPOLLOUT) */
enum tag {
	TAG_CTL, TAG_PIDFD, TAG_SIGNAL, TAG_TIMER, TAG_OUT, TAG_ERR, TAG_STDIN,
	TAG_OUT_DEST, TAG_ERR_DEST, TAG_OUT_COPY, TAG_ERR_COPY, TAG_NOTIFY, TAG_COUNT
};

/*
 * A SIGSTOP of sbx can be neither caught nor passed on, and a SIGCONT
 * alone proves none: job engines (Slurm's scancel) send one to every task
 * before SIGTERM, stopped or not.  So a SIGCONT counts as the end of a stop
 * of sbx only with a sign of it (loop.c):
 *  - epoll_wait() failed with EINTR, as it does after a stop and a continue
 *    even where no handler ran (signal(7)); every signal the loop reads is
 *    blocked, so nothing else cuts the wait short;
 *  - or the loop woke STOPPED_LATE_NS after its timer was due, or one turn
 *    of it took that long, for a stop that caught sbx at work between two
 *    waits (a loaded machine wakes a loop late by milliseconds, not by this);
 * either at most STOPPED_CONT_NS before the SIGCONT, as the kernel resumes
 * sbx before it queues the signal;
 *  - or, after the SIGCONT, the meter's sample taken at once finds the CPU
 *    budget spent (loop.c), as a tree can spend it unseen only while
 *    sbx cannot look.
 */
#define STOPPED_LATE_NS (250 * 1000 * 1000LL)
#define STOPPED_CONT_NS (1000 * 1000 * 1000LL)

struct sup {
	const struct run_request *req;
	const struct policy *pol;
	struct result *res;
	struct sbx_err *err;
	struct vlog vlog;           /* -v, timed from supervise_run */

	struct jail jail;
	bool jail_up;
	int epfd, tfd, sigfd, ctl_fd;

	struct out_stream out[2];   /* [0] stdout, [1] stderr */
	struct out_budget budget;
	unsigned char *buf;         /* RELAY_BUF_SIZE */
	struct stdin_relay in;
	struct terminal term;       /* -i: the caller's terminal and the jail's pty */
	int in_fd;                  /* fd registered for the stdin relay */
	unsigned in_events;
	struct cputree cpu;
	struct cgroup_run cg;       /* the run's cgroup, where one is delegated */
	struct notifier notify;     /* the seccomp listener (notify.h) */
	int64_t grace_ns;

	/* what the init reported */
	bool ready, go_sent, started, target_exited, ctl_eof;
	int ws_fd;                  /* the workspace tmpfs from READY, -1 */
	int target_status;          /* raw wait status (CTL_EXITED) */
	int32_t target_evidence;    /* CTL_EV_* bits the init saw on the zombie */
	int64_t target_cpu_ns;      /* its CPU by the kernel's tick count, -1 = unknown */
	int32_t target_procs;       /* the jail's processes as it ended, init included, -1 */
	bool exec_failed;
	int exec_errno;
	bool setup_failed, setup_timed_out;
	int setup_errno;
	char setup_text[1024];

	/* what sbx decided or saw */
	int abort_sig;
	bool timed_out, cpu_exceeded, memory_exceeded, output_limited;
	int64_t memory_seen_kib;    /* the meter's total when it fired */
	bool memory_near_limit;     /* the last total was over half of memory_mb */
	bool term_sent, init_killed, init_reaped;
	bool frozen;                /* the caller's stop froze the cgroup */
	int64_t stopped_ns;         /* the jail was held for the caller's stops */
	bool sigstop_seen;          /* a SIGCONT after a stop no job stop of ours asked for */
	int64_t t_stop_sign;        /* the last sign that sbx was stopped (loop.c) */
	int64_t t_cont_unexplained; /* a SIGCONT came with no such sign before it */
	int64_t cpu_sampled_ms;     /* last whole-tree sample (0 = none) */
	int64_t t_cpu_sampled;      /* when it was taken (0 = none) */
	int64_t sample_ns;          /* the meter's current interval */
	int64_t t_churn;            /* when a sample last saw a birth or death */
	int64_t setup_cpu_ms;       /* the jail's CPU before GO (the init's setup) */
	bool rusage_ok;
	struct rusage init_ru;
	int init_code, init_status; /* waitid si_code / si_status of the init */

	/* CLOCK_MONOTONIC ns; deadlines 0 = not armed */
	int64_t t_go, t_exit, t_init_dead;
	int64_t dl_setup, dl_wall, dl_cpu, dl_kill, dl_exit_grace, dl_close;
	int64_t timer_armed;        /* deadline the timerfd holds; -1 = none */
};

/* loop.c: run until the init is reaped and the output drained (-1 and
 * s->err on a failure of sbx's own); after a failure, SIGKILL the init and
 * wait for it (sbx never leaves a jail behind). */
int sup_event_loop(struct sup *s);
void sup_reap_blocking(struct sup *s);

/* Register FD for EVENTS under TAG in the loop's epoll set. */
static inline int sup_watch(struct sup *s, int fd, unsigned events, enum tag tag)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* terminal.c, -i: the pty master from CTL_READY becomes the stdout
 * stream's source and the stdin relay's destination, the caller's
 * terminal goes raw; -1 with setup_text/setup_errno filled. */
int terminal_attach(struct sup *s, int master);

/* classify.c: fill s->res from the facts once the run settled. */
void sup_classify(struct sup *s);

#endif
