/* err.c - build error values; see err.h. */
#include "base/err.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

void text_mark_cut(char *buf, size_t size, int total)
{
	static const char mark[] = " [cut]";
	size_t at;

	if (total < 0 || (size_t)total < size || size < sizeof(mark))
		return;
	at = size - sizeof(mark);
	while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(buf + at, mark, sizeof(mark));
}

void text_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(buf, size);
	va_list ap;
	int n;

	if (len + 1 >= size)
		return; /* full: already marked when it was cut */
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	text_mark_cut(buf, size, n < 0 ? n : (int)len + n);
}

int err_set(struct sbx_err *err, enum err_kind kind, int sys_errno,
	    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->kind = kind;
	err->cause = CAUSE_NONE;
	err->sys_errno = sys_errno;
	err->retryable = false;
	va_start(ap, fmt);
	text_mark_cut(err->msg, sizeof(err->msg), vsnprintf(err->msg, sizeof(err->msg), fmt, ap));
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
	text_mark_cut(err->msg, sizeof(err->msg), vsnprintf(err->msg, sizeof(err->msg), fmt, ap));
	va_end(ap);
	n = strlen(err->msg);
	/* the message is for people: cut it rather than fail, and say so */
	if (n + 1 < sizeof(err->msg))
		text_append(err->msg, sizeof(err->msg), ": %s", old);
	return -1;
}

/* Levenshtein distance, case-insensitive; SIZE_MAX for words too long to matter. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, tmp;

	if (la >= 64 || lb >= 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (tolower((unsigned char)a[i - 1]) !=
					      tolower((unsigned char)b[j - 1]));
			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *err_suggest(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word), best_d = SIZE_MAX;
	size_t limit = len / 3 + 1 > 3 ? 3 : len / 3 + 1;
	const char *best = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, names[i]);
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	if (best_d <= limit)
		return best;
	/* a prefix ("--mem") is also a fine guess */
	for (size_t i = 0; len > 3 && i < n; i++)
		if (strncmp(names[i], word, len) == 0)
			return names[i];
	return NULL;
}

/* The limit behind E (EMFILE, ENFILE, EAGAIN) and how to raise it, into
 * BUF; false for any other errno.  RETRY: only waiting can help. */
static bool limit_advice(int e, char *buf, size_t len, bool *retry)
{
	struct rlimit rl = { 0 };
	char cur[24] = "unlimited";

	*retry = false;
	if (e == EMFILE) {
		snprintf(buf, len, "sbx's open-file limit is used up: raise it (ulimit -n 1024) "
			 "or close what the caller leaks");
		return true;
	}
	if (e == ENFILE) {
		snprintf(buf, len, "the host's open-file table is full (fs.file-max): retry later");
		return true;
	}
	if (e != EAGAIN)
		return false;
	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(cur, sizeof(cur), "%llu", (unsigned long long)rl.rlim_cur);
	snprintf(buf, len, "too many processes for this user (ulimit -u is %s; a jail needs at "
		 "least 2 more than you run) or on the host: raise it (ulimit -u 256) or retry "
		 "later", cur);
	*retry = true;
	return true;
}

int err_resource(struct sbx_err *err, const char *what, int e)
{
	char advice[320];
	bool retry;

	if (!limit_advice(e, advice, sizeof(advice), &retry))
		return err_set(err, ERR_SETUP, e, "%s: %s", what, strerror(e));
	err_set(err, ERR_SETUP, e, "%s: %s: %s", what, strerror(e), advice);
	err->cause = CAUSE_LIMIT_NAMED;
	err->retryable = retry;
	return -1;
}

void err_name_limit(struct sbx_err *err)
{
	char advice[320];
	bool retry;

	if (err->cause == CAUSE_LIMIT_NAMED ||
	    !limit_advice(err->sys_errno, advice, sizeof(advice), &retry))
		return;
	text_append(err->msg, sizeof(err->msg), ": %s", advice);
	err->cause = CAUSE_LIMIT_NAMED;
	err->retryable = err->retryable || retry;
}

void err_print(FILE *f, const char *prefix, const char *msg)
{
	fputs(prefix, f);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p == '\n')
			fputs("\\n", f);
		else if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* U+0080..U+009F */
			fprintf(f, "\\x%02x", *++p);
		else
			fputc(*p, f);
	}
	fputc('\n', f);
}
