/*
 * cgfile.c - parse cgroup v2 interface files; see cgfile.h.
 *
 * The kernel writes these files, but a delegated subtree belongs to the
 * caller, so nothing here trusts the text: every number is bounded and a
 * line that does not parse makes the whole answer "unknown".
 */
#include "supervise/cgfile.h"

#include <string.h>

/* Line [*pos, end of line) of TEXT; false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **line,
		      size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*line = text + *pos;
	nl = memchr(*line, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *line) : len - *pos;
	*pos += *n + 1;
	return true;
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int cgfile_key(const char *text, size_t len, const char *key, uint64_t *out)
{
	size_t klen = strlen(key), pos = 0, n;
	const char *line;

	while (next_line(text, len, &pos, &line, &n)) {
		if (n <= klen || memcmp(line, key, klen) != 0 || line[klen] != ' ')
			continue;
		return parse_u64(line + klen + 1, n - klen - 1, out);
	}
	return -1;
}

int cgfile_own_path(const char *text, size_t len, char *out, size_t size)
{
	size_t pos = 0, n;
	const char *line;

	while (next_line(text, len, &pos, &line, &n)) {
		if (n < 4 || memcmp(line, "0::", 3) != 0 || line[3] != '/')
			continue;
		/* a path with NUL or beyond SIZE is not one sbx can use */
		if (n - 3 >= size || memchr(line + 3, '\0', n - 3))
			return -1;
		memcpy(out, line + 3, n - 3);
		out[n - 3] = '\0';
		return 0;
	}
	return -1;
}

bool cgfile_has_word(const char *text, size_t len, const char *word)
{
	size_t wlen = strlen(word), i = 0;

	while (i < len) {
		while (i < len && (text[i] == ' ' || text[i] == '\n'))
			i++;
		size_t start = i;
		while (i < len && text[i] != ' ' && text[i] != '\n')
			i++;
		if (i - start == wlen && wlen && memcmp(text + start, word, wlen) == 0)
			return true;
	}
	return false;
}

int cgfile_procs(const char *text, size_t len, long pid, long other, size_t *count,
		 bool *only)
{
	size_t pos = 0, n;
	const char *line;
	uint64_t v;

	*count = 0;
	*only = true;
	while (next_line(text, len, &pos, &line, &n)) {
		if (n == 0)
			continue;
		if (parse_u64(line, n, &v) != 0)
			return -1;
		(*count)++;
		if (v != (uint64_t)pid && (other < 0 || v != (uint64_t)other))
			*only = false;
	}
	return 0;
}

long cgfile_run_owner(const char *name)
{
	static const char prefix[] = "sbx-run.";
	const char *p, *dot;
	uint64_t v, seq;

	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return -1;
	p = name + sizeof(prefix) - 1;
	dot = strchr(p, '.');
	if (!dot || parse_u64(p, (size_t)(dot - p), &v) != 0 || v == 0 || v > 0x7fffffff ||
	    parse_u64(dot + 1, strlen(dot + 1), &seq) != 0)
		return -1;
	return (long)v;
}
