/*
 * denied.h - what the seccomp filter refused in one run: the record's
 * "denied_syscalls" (sbx-result(5)).
 *
 * The supervisor (src/supervise/notify.c) fills one fixed-size report
 * from the filter's notifications; the record lists its entries sorted by
 * count.  No report at all (the kernel gave no listener) is JSON null,
 * never an empty list, which says that nothing was refused.
 */
#ifndef SBX_RECORD_DENIED_H
#define SBX_RECORD_DENIED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Distinct (call, answer, argument) entries kept; more are only counted. */
#define DENIED_MAX 128

struct denied_call {
	int nr;            /* native syscall number */
	int err;           /* the errno the program got; 0 = the filter killed */
	int arg;           /* the argument that decided, -1 = the call itself */
	uint64_t arg_value;
	uint64_t count;
	char name[32];     /* "unshare" */
	char arg_text[64]; /* "flags=CLONE_NEWUSER", "" */
};

struct denied_report {
	size_t n;
	struct denied_call v[DENIED_MAX];
	uint64_t omitted;  /* refusals that found no free entry */
};

/* The errno's symbolic name ("EPERM"), or its number (names.c). */
void denied_errno_name(int err, char *buf, size_t size);

#endif
