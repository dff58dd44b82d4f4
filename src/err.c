/* err.c - build error values; see err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct sbx_err *err, enum err_kind kind, int sys_errno,
	    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->kind = kind;
	err->sys_errno = sys_errno;
	err->retryable = false;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct sbx_err *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	size_t n;
	va_list ap;

	if (!err)
		return -1;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	/* the message is for people: cut it rather than fail */
	if (n + 2 < sizeof(err->msg)) {
		memcpy(err->msg + n, ": ", 2);
		n += 2;
		size_t room = sizeof(err->msg) - n - 1;
		size_t len = strnlen(old, room);
		memcpy(err->msg + n, old, len);
		err->msg[n + len] = '\0';
	}
	return -1;
}
