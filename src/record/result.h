/*
 * result.h - what happened in one `sbx run`, and its JSON record (sbx-result(5)).
 *
 * Filled only from kernel facts (wait status, rusage, /proc, cgroup files)
 * and sbx's own timers and counters; nothing the program prints reaches it
 * except the captured stdout/stderr text in capture mode.
 */
#ifndef SBX_RESULT_H
#define SBX_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/policy.h"

struct artifacts;
struct denied_report;

enum run_status {
	ST_OK, ST_NONZERO_EXIT, ST_SIGNALED, ST_TIMEOUT, ST_CPU_LIMIT,
	ST_MEMORY_LIMIT, ST_OUTPUT_LIMIT, ST_SECCOMP, ST_EXEC_ERROR,
	ST_CONFIG_ERROR, ST_SETUP_ERROR, ST_ABORTED,
	ST_COMPILE_ERROR, /* compiled languages: the compile stage failed */
};

const char *run_status_name(enum run_status s); /* "nonzero-exit" ... */

/* "SIGKILL" for 9, "SIGRTMIN+5" for 39; "SIG32" when glibc names none. */
void result_signal_name(int sig, char *buf, size_t size);

/* How a limit was enforced, for limits.enforced_by. */
enum enforcement { ENF_NONE, ENF_RLIMIT, ENF_CGROUP, ENF_SUPERVISOR, ENF_TMPFS,
	ENF_RLIMIT_DATA,       /* "rlimit-data": per-process private writable memory */
	ENF_RLIMIT_NPROC,      /* "rlimit-nproc": per-uid process count */
	ENF_RLIMIT_SUPERVISOR, /* "rlimit+supervisor": RLIMIT_CPU + tree meter */
	ENF_RLIMIT_DATA_SUPERVISOR, /* "rlimit-data+supervisor": tree memory meter + RLIMIT_DATA backstop */
};

struct captured {            /* capture mode only */
	char *text;              /* valid UTF-8, NUL-terminated */
	size_t len;
	bool lossy;              /* invalid UTF-8 was replaced by U+FFFD */
};

struct result {
	enum run_status status;
	int exit_code;           /* valid when has_exit_code */
	bool has_exit_code;
	int term_signal;         /* 0 = none */
	bool core_dumped;
	char message[2048];      /* names the cause and the limit; " [cut]" ends one too long */
	bool retryable;          /* setup-error only */

	char **command;          /* argv as run inside the jail */
	const struct policy *policy; /* NULL for config errors before loading */

	/* measurements: negative = unknown -> JSON null */
	double wall_ms, cpu_user_ms, cpu_sys_ms;
	double stopped_ms;       /* of wall_ms, the jail held for the caller's stops */
	int64_t max_rss_kib;
	int64_t memory_peak_kib;  /* the run cgroup's memory.peak; -1 = no cgroup */
	int64_t processes_peak;   /* the most jail processes sbx saw at once; -1 = unknown */
	int64_t forks_refused;    /* the cgroup's pids.events max; -1 = no cgroup */

	uint64_t stdout_bytes, stderr_bytes; /* raw bytes the program wrote */
	bool output_truncated;

	enum enforcement enforced_by[LIM_COUNT];
	bool cgroup;             /* a cgroup was used for this run */
	bool jail_started;       /* the namespaces were made (clone succeeded) */
	bool cgroup_oom;         /* memory.events oom_kill rose */
	int64_t host_uid, host_gid; /* the jail's ids on the host; -1 = none yet */

	struct captured out, err; /* capture mode */
	bool capture;

	int exit_status;         /* what `sbx run` exits with (see sbx(1)) */
	/* the program's output left sbx's fd 1 / 2 in the middle of a line
	 * (or not known): the record starts on a new one there (index = fd) */
	bool line_open[3];

	/* what the seccomp filter refused (record/denied.h; owned, freed by
	 * result_free); NULL = no report, "denied_syscalls": null */
	struct denied_report *denied;

	/* languages and workspaces, set by src/cmd/run.c (the owner frees);
	 * the record only reads them (record/files.c) */
	struct artifacts *files; /* NULL = no scan: no "files" in the record */
	struct result *compile;  /* compiled languages: the compile stage */
	const char *stage;       /* "compile" / "run" for compiled languages */
};

/* A result with every measurement unknown, status st, and message. */
void result_init(struct result *r);
void result_free(struct result *r);

/*
 * sbx's own failure ERR, before or instead of a run: exit 125 and ERR's
 * message.  The one mapping from error kind to status: a bad command
 * line or policy is config-error (fixing it is the caller's part, so
 * never retryable); anything else is setup-error, retryable when the
 * jail's step said its cause was transient, and always for sbx's internal
 * failures (out of memory, a failed epoll_wait), which no change of the
 * caller's would fix and which may pass on the next try.
 */
void result_set_error(struct result *r, const struct sbx_err *err);

/* An abort signal SIG (0: none) that came after the jail was gone, during
 * -o's copy or the workspace's removal: R becomes `aborted`, 128 + SIG,
 * its message kept after the cause (an abort is honoured in every phase). */
void result_abort_late(struct result *r, int sig);

/* Serialize R as one JSON object; one line (no pretty print). NULL on OOM. */
char *result_to_json(const struct result *r);

/*
 * Write the record where DEST says: NULL = stderr, "-" = stdout, "fd:N",
 * or a path.  Falls back to a fixed minimal record when building the full
 * one fails, so that the status still reaches the caller.
 */
int result_emit(const struct result *r, const char *dest);

/*
 * Open DEST (as result_emit reads it) before the run, so a destination that
 * cannot take the record is a usage error naming --result, not a record
 * lost after the program ran: fd:N and - must be open for writing, a path
 * is created without blocking on a FIFO.  *CLOSE_AFTER: sbx owns the fd.
 */
int result_open_dest(const char *dest, bool *close_after, struct sbx_err *err);

/* Whether the regular file FD that result_open_dest opened on DEST was
 * replaced or written meanwhile (then the program may have forged it). */
bool result_file_tampered(int fd, const char *dest);

/* Write R as one line to FD; -1 with errno when it could not be written. */
int result_emit_fd(const struct result *r, int fd);

/* files.c: after -o, add to R's message what R's files say the caller
 * must know: a file at the file-size limit, files -o did not copy. */
void result_note_files(struct result *r);

/* limits.c: the file-size limit the program had, in bytes (the policy's,
 * or the stricter inherited RLIMIT_FSIZE); 0 = unlimited. */
uint64_t record_file_size_bytes(const struct policy *p);

/* limits.c: limit ID as it applied, the stricter of P's and sbx's own
 * inherited rlimit (the record's "limits"). */
uint64_t record_applied_limit(const struct policy *p, enum limit_id id);

#endif
