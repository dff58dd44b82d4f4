/*
 * names.c - signals and errnos as sbx names them in the record and in its
 * messages: the C library's abbreviation (SIGKILL, EPERM), SIGRTMIN+N for
 * the real-time signals, or the bare number when there is no name.
 */
#include "record/denied.h"
#include "record/result.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* PREFIX NAME into BUF, or PREFIX N when NAME is NULL (a signal or errno
 * the C library has no name for). */
static void name_or_number(char *buf, size_t size, const char *prefix, const char *name,
			   int n)
{
	if (name)
		snprintf(buf, size, "%s%s", prefix, name);
	else
		snprintf(buf, size, "%s%d", prefix, n);
}

void result_signal_name(int sig, char *buf, size_t size)
{
	/* as kill -l and the caller's kill -s name them (glibc has no
	 * abbreviation); 32 and 33 are glibc's own, below SIGRTMIN */
	if (sig > SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (sig == SIGRTMIN)
		snprintf(buf, size, "SIGRTMIN");
	else
		name_or_number(buf, size, "SIG", sigabbrev_np(sig), sig);
}

void denied_errno_name(int err, char *buf, size_t size)
{
	name_or_number(buf, size, "", strerrorname_np(err), err);
}
