/*
 * test_log.c - the verbose log and the monotonic clock (base/log.h).
 * The supervisor and the jail's init write to one stderr at once: a line
 * split over two writes could be torn apart by the other's, so each line
 * must be one write that ends in a newline, even when the text is too long.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <regex.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

/* What vlog_line writes on stderr, by one read of a pipe put on fd 2. */
static size_t capture(const struct vlog *l, const char *text, char *out, size_t size)
{
	int p[2], saved = dup(STDERR_FILENO);
	ssize_t n;

	cr_assert_eq(pipe2(p, O_NONBLOCK), 0);
	dup2(p[1], STDERR_FILENO);
	vlog_line(l, "%s", text);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(p[1]);
	n = read(p[0], out, size - 1);
	close(p[0]);
	n = n < 0 ? 0 : n;
	out[n] = '\0';
	return (size_t)n;
}

static bool matches(const char *text, const char *pattern)
{
	regex_t re;
	bool ok;

	cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

Test(vlog, off_writes_nothing)
{
	struct vlog l = { .on = false, .who = "", .t0_ns = monotonic_ns() };
	char out[1024];

	cr_assert_eq(capture(&l, "mount /usr", out, sizeof(out)), 0, "wrote '%s'", out);
}

Test(vlog, jail_line_is_prefix_time_text)
{
	struct vlog l = { .on = true, .who = "", .t0_ns = monotonic_ns() };
	char out[1024];

	capture(&l, "pivot_root done", out, sizeof(out));
	cr_assert(matches(out, "^sbx: \\+[0-9]+\\.[0-9]{3}ms pivot_root done\n$"), "'%s'", out);
}

Test(vlog, supervisor_line_names_its_side)
{
	struct vlog l = { .on = true, .who = "supervise ", .t0_ns = monotonic_ns() };
	char out[1024];

	capture(&l, "CTL_GO sent", out, sizeof(out));
	cr_assert(matches(out, "^sbx: supervise \\+[0-9]+\\.[0-9]{3}ms CTL_GO sent\n$"),
		  "'%s'", out);
}

Test(vlog, long_text_is_cut_to_one_line)
{
	struct vlog l = { .on = true, .who = "supervise ", .t0_ns = monotonic_ns() };
	char text[2000], out[4096];
	size_t n;

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	n = capture(&l, text, out, sizeof(out));
	cr_assert(n > 100 && n <= 600, "%zu bytes", n);
	cr_assert_eq(out[n - 1], '\n');
	cr_assert_null(memchr(out, '\n', n - 1), "one line");
}

Test(clock, monotonic_ns_never_goes_back)
{
	int64_t a = monotonic_ns(), b = monotonic_ns();

	cr_assert_gt(a, 0);
	cr_assert_geq(b, a);
}
