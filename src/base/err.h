/*
 * err.h - an error value passed up to the one place that prints it.
 *
 * Functions that can fail take a `struct sbx_err *` and return -1 (or NULL)
 * after filling it with err_set().  The message is complete and meant for a
 * person: it names the file:line:col, the option or the syscall, and what to
 * do.  Only the commands (src/cmd/) print it: on stderr, in the result
 * record's message, or both.
 */
#ifndef SBX_ERR_H
#define SBX_ERR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum err_kind {
	ERR_NONE = 0,
	ERR_USAGE,  /* bad command line: exit 125, status config-error */
	ERR_CONFIG, /* bad policy: exit 125, status config-error */
	ERR_SETUP,  /* the jail could not be built: exit 125, setup-error */
	ERR_INTERNAL,
};

/* What a caller must tell apart without reading the message's words. */
enum err_cause {
	CAUSE_NONE = 0,
	CAUSE_NOT_FOUND,    /* the policy or file asked for directly does not exist */
	CAUSE_LIMIT_NAMED,  /* the message names the limit that ran out, and its fix */
};

struct sbx_err {
	enum err_kind kind;
	enum err_cause cause; /* reset by err_set, kept by err_prefix */
	int sys_errno;    /* errno of the failing syscall, 0 if none */
	bool retryable;   /* transient (EAGAIN from clone) vs environment */
	char msg[1024];
};

/* Fill err (kind, errno, printf-style message). Returns -1 for chaining. */
int err_set(struct sbx_err *err, enum err_kind kind, int sys_errno,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Text for people is cut rather than failed, but never silently: when
 * TOTAL (the length a vsnprintf into BUF of SIZE wanted) did not fit, the
 * end of BUF becomes " [cut]", placed between UTF-8 characters.
 */
void text_mark_cut(char *buf, size_t size, int total);

/* Append printf-style text to the string in BUF of SIZE, marked when cut. */
void text_append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix an existing message with more context ("loading py: ..."). */
int err_prefix(struct sbx_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * WHAT failed with E; for EMFILE, ENFILE and EAGAIN (processes) the message
 * names the limit that ran out and the ulimit that raises it.  Returns -1.
 */
int err_resource(struct sbx_err *err, const char *what, int e);

/* ERR, an EMFILE, ENFILE or EAGAIN whose message names no limit yet, in
 * err_resource's words (kind and errno kept). */
void err_name_limit(struct sbx_err *err);

/*
 * The name in NAMES nearest to WORD ("memroy_mb" -> "memory_mb", "--tme" ->
 * "--time"): case-insensitive edit distance within a bound that grows with
 * the word, or a candidate WORD is a prefix of; NULL when none is close.
 * Every "did you mean" of sbx comes from here.
 */
const char *err_suggest(const char *word, const char *const *names, size_t n);

/*
 * PREFIX MSG and a newline on F, one line whatever MSG holds: a newline
 * becomes \\n, other C0 and C1 controls and DEL \\xNN.  Messages quote the
 * caller's values (-C, a policy's strings): a newline split the error,
 * an ESC sequence reached the terminal.
 */
void err_print(FILE *f, const char *prefix, const char *msg);

#endif
