/*
 * test_record_line.c - the record is one line of its own wherever it goes
 * after the program's output: a program cannot make it share a line with
 * text it printed last.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What `sh -c SCRIPT` prints, with SBX in it replaced by the binary's path. */
static char *shell_out(const char *script)
{
	char *cmd = xasprintf("SBX='%s'; %s", sbx_path(), script);
	FILE *p = popen(cmd, "r");
	char *buf = calloc(1, 8192);

	cr_assert(p && buf);
	size_t n = fread(buf, 1, 8191, p);
	buf[n] = '\0';
	pclose(p);
	free(cmd);
	return buf;
}

/*
 * A forgery printed without a newline just before the record started the
 * record's line: `tail -n1 | jq` read the forgery first.  The
 * record starts a line of its own on stderr, through a pipe, into a file,
 * and on 2>&1 after a partial stdout line.
 */
Test(status, a_forgery_without_a_newline_does_not_share_the_records_line)
{
	static const char *const cases[] = {
		"\"$SBX\" run -- /bin/sh -c 'printf FORGED >&2; exit 3' 2>&1 >/dev/null | tail -n1",
		"\"$SBX\" run -- /bin/sh -c 'printf FORGED >&2; exit 3' 2>&1 >/dev/null | cat | tail -n1",
		"d=$(mktemp -d); \"$SBX\" run -- /bin/sh -c 'printf FORGED >&2' 2>\"$d/e\"; "
		"tail -n1 \"$d/e\"; rm -r \"$d\"",
		"\"$SBX\" run -- /bin/sh -c 'printf FORGED' 2>&1 | tail -n1",
		"\"$SBX\" run -- /bin/sh -c 'head -c 300000 /dev/zero; printf FORGED' 2>&1 | tail -n1",
	};

	REQUIRE_USERNS();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = shell_out(cases[i]);
		cr_assert(strncmp(out, "{\"sbx_version\":", 15) == 0, "case %zu: last line %.200s",
			  i, out);
		free(out);
	}
}

/*
 * `--result -` puts the record on stdout after the program's own output.
 * Output that ends with a newline is followed by the record at once, not
 * by an empty line a line-oriented reader would take for a line of the
 * program's; output cut mid-line still gets the newline that keeps a
 * forgery off the record's line.
 */
Test(status, result_dash_follows_a_finished_line_without_an_empty_line)
{
	static const struct {
		const char *script, *want;
	} cases[] = {
		{ "\"$SBX\" run --result - -- /bin/sh -c 'echo hi' | head -c 18",
		  "hi\n{\"sbx_version\":" },
		{ "\"$SBX\" run --result /dev/stdout -- /bin/sh -c 'echo hi' | head -c 18",
		  "hi\n{\"sbx_version\":" },
		{ "\"$SBX\" run --result - -- /bin/sh -c 'head -c 300000 /dev/zero | tr \"\\\\0\" x; "
		  "echo' | tail -n 2 | head -c 3",
		  "xxx" },
		{ "\"$SBX\" run --result - -- /bin/sh -c 'printf FORGED' | tail -n1 | head -c 15",
		  "{\"sbx_version\":" },
	};

	REQUIRE_USERNS();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = shell_out(cases[i].script);
		cr_assert_str_eq(out, cases[i].want, "case %zu", i);
		free(out);
	}
}

/* A long message is never cut silently: a 600-byte path stays whole, and
 * a text too long for the record (or for the jail's report of its
 * set-up, as an unprivileged caller's bind is opened in the jail) is
 * marked " [cut]", on stderr as in the record. */
Test(status, a_message_too_long_is_marked_cut_never_silently)
{
	struct sbx_result r;
	char path[3000] = "/nonexistent-";

	memset(path + 13, 'd', sizeof(path) - 14);
	path[sizeof(path) - 1] = '\0';
	char *bind = xasprintf("%.600s:/mnt/x", path);
	sbx_run(&r, NULL, SBX_ARGV("run", "-b", bind, "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125, "stderr: %s", r.err);
	const char *m = rec_str(&r, "message");
	char *whole = xasprintf("%.600s", path);
	const char *at = strstr(m, whole);
	cr_assert(at && at[600] != 'd', "the 600-byte path was cut: %s", m);
	cr_assert_null(strstr(m, "[cut]"), "%s", m);
	free(whole);
	sbx_result_free(&r);
	free(bind);

	bind = xasprintf("%s:/mnt/x", path);
	sbx_run(&r, NULL, SBX_ARGV("run", "-b", bind, "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125, "stderr: %s", r.err);
	m = rec_str(&r, "message");
	/* cut where the text was too long: at the end, or inside the jail's
	 * part when the init's report was the long one */
	cr_assert(strstr(m, " [cut]"), "%s", m);
	cr_assert(strstr(r.err, " [cut]"), "stderr: %s", r.err);
	sbx_result_free(&r);
	free(bind);
}
