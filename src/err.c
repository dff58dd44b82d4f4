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
	char head[256], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", head, old);
	return -1;
}
