/*
 * test_record_causes.c - the record says why a run went wrong when sbx
 * knows it: a file cut at the file-size limit, a file -o could not copy,
 * the process limit reached, and the system calls the filter refused.
 * Each was known to sbx (or the kernel) and left out of the record, so a
 * caller saw "exited with code 1" and a complete-looking file list.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

/* One run of SCRIPT (sh, from /) with $SBX, $REC (the record's path) and
 * $D (a fresh directory) set. */
struct causes_run {
	char *dir, *rec;
	int rc;
	cJSON *r;
	char *err;
};

/* The whole of PATH, "" when it is empty; NULL when it cannot be read. */
static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(buf);
		return xasprintf("%s", "");
	}
	return buf;
}

static cJSON *load_record(const char *path)
{
	char *text = read_all(path);
	const char *log = getenv("SBX_RECORDS");
	cJSON *r;

	if (!text)
		return NULL;
	if (log && *text) {
		FILE *l = fopen(log, "ae");
		if (l) {
			fprintf(l, "%s%s", text, text[strlen(text) - 1] == '\n' ? "" : "\n");
			fclose(l);
		}
	}
	r = cJSON_Parse(text);
	free(text);
	return r;
}

static void causes_run(struct causes_run *x, const char *script)
{
	char *cmd, *errpath;
	int st;

	x->dir = make_temp_dir();
	x->rec = xasprintf("%s/record", x->dir);
	errpath = xasprintf("%s/stderr", x->dir);
	cmd = xasprintf("cd / && SBX='%s' REC='%s' D='%s' timeout 120 sh -c '%s' 2>'%s'",
			sbx_path(), x->rec, x->dir, script, errpath);
	st = system(cmd);
	x->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	x->r = load_record(x->rec);
	x->err = read_all(errpath);
	if (!x->err)
		x->err = xasprintf("%s", "");
	free(errpath);
	free(cmd);
}

static void causes_free(struct causes_run *x)
{
	cJSON_Delete(x->r);
	rm_tree(x->dir);
	free(x->rec);
	free(x->dir);
	free(x->err);
}

static const char *field(const cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));

	return s ? s : "(none)";
}

/* The record's "files" entry for PATH, or NULL. */
static cJSON *file_entry(const cJSON *r, const char *path)
{
	cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(r, "files"))
		if (!strcmp(field(f, "path"), path))
			return f;
	return NULL;
}

#define REQUIRE_RECORD(x) \
	cr_assert_not_null((x)->r, "no record (sh exit %d); stderr: %s", (x)->rc, (x)->err)

/*
 * A program that ignores SIGXFSZ (Python does) gets EFBIG at --fsize and
 * goes on; -o then copied the cut file out as if it were whole, and the
 * record listed it like any other.  The file must say it reached the
 * limit, and the message must say a write hit it.
 */
Test(record_causes, a_file_cut_at_the_file_size_limit_is_marked, .timeout = 180)
{
	struct causes_run x;
	cJSON *big, *small;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	causes_run(&x, "mkdir \"$D/out\" && \"$SBX\" run -r \"$REC\" --fsize 1M -o \"$D/out\" "
		       "-- sh -c \"trap \\\"\\\" XFSZ; echo hi > small; "
		       "head -c 2097152 /dev/zero > big; exit 1\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "nonzero-exit", "%s", field(x.r, "message"));
	big = file_entry(x.r, "big");
	small = file_entry(x.r, "small");
	cr_assert_not_null(big, "no files entry for big");
	cr_assert_not_null(small, "no files entry for small");
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(big, "bytes")), 1 << 20);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(big, "at_size_limit")),
		  "big is not marked at the size limit: %s", cJSON_PrintUnformatted(big));
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(small, "at_size_limit")),
		  "small is marked at the size limit: %s", cJSON_PrintUnformatted(small));
	cr_assert(strstr(field(x.r, "message"), "file-size limit"), "%s", field(x.r, "message"));
	cr_assert(strstr(field(x.r, "message"), "big"), "%s", field(x.r, "message"));
	causes_free(&x);
}

/*
 * -o onto a full file system: "could not copy big: No space left on
 * device" went to stderr only; the record said ok and listed big like
 * the file that was copied.  A tmpfs of 1 MiB is the full disk, mounted
 * in a mount namespace of the test's own (as a user, in a user namespace
 * too: sbx's jail nests in it).
 */
Test(record_causes, a_file_copy_out_could_not_write_is_marked_in_the_record, .timeout = 180)
{
	struct causes_run x;
	cJSON *big, *small;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	if (access("/usr/bin/unshare", X_OK) != 0)
		cr_skip_test("SKIP: no /usr/bin/unshare (Debian package util-linux)");
	causes_run(&x, "mkdir \"$D/out\" && "
		       "if [ \"$(id -u)\" = 0 ]; then ns=\"-m\"; else ns=\"-Urm\"; fi && "
		       "unshare $ns sh -c \"mount -t tmpfs -o size=1m sbxfull \\\"$D/out\\\" && "
		       "\\\"$SBX\\\" run -r \\\"$REC\\\" -o \\\"$D/out\\\" -- sh -c "
		       "\\\"head -c 2000000 /dev/zero > big; echo hi > small\\\"\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "ok", "%s", field(x.r, "message"));
	cr_assert(strstr(x.err, "could not copy big"), "stderr: %s", x.err);
	big = file_entry(x.r, "big");
	small = file_entry(x.r, "small");
	cr_assert_not_null(big, "no files entry for big");
	cr_assert_not_null(small, "no files entry for small");
	cr_assert_str_eq(field(big, "copy_out"), "out_failed", "%s", cJSON_PrintUnformatted(big));
	cr_assert_str_eq(field(small, "copy_out"), "copied", "%s", cJSON_PrintUnformatted(small));
	cr_assert(strstr(field(x.r, "message"), "incomplete"), "%s", field(x.r, "message"));
	cr_assert(strstr(field(x.r, "message"), "big"), "%s", field(x.r, "message"));
	causes_free(&x);
}

/* Without -o nothing is copied, so no entry claims a copy either way. */
Test(record_causes, without_out_no_file_has_a_copy_out, .timeout = 180)
{
	struct causes_run x;
	cJSON *f;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	causes_run(&x, "\"$SBX\" run -r \"$REC\" -- sh -c \"echo hi > small\"");
	REQUIRE_RECORD(&x);
	f = file_entry(x.r, "small");
	cr_assert_not_null(f, "no files entry for small");
	cr_assert_null(cJSON_GetObjectItem(f, "copy_out"), "%s", cJSON_PrintUnformatted(f));
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(f, "at_size_limit")), "%s",
		  cJSON_PrintUnformatted(f));
	causes_free(&x);
}

/*
 * --pids 5 and ten background sleeps: "sh: Cannot fork" and nonzero-exit,
 * with nothing in the record to say the process limit did it.  Without a
 * cgroup the kernel counts no refused fork anywhere sbx can read, so the
 * evidence is the tree's peak: it held five processes, the limit.  The
 * sleeps outlive the shell, so the count at the program's exit sees them.
 */
Test(record_causes, a_tree_that_reached_the_process_limit_says_so, .timeout = 180)
{
	struct causes_run x;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	causes_run(&x, "\"$SBX\" run -r \"$REC\" --pids 5 -- sh -c "
		       "\"for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1000 & done\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "nonzero-exit", "%s", field(x.r, "message"));
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(x.r, "processes_peak")), 5,
		     "processes_peak: %s",
		     cJSON_PrintUnformatted(cJSON_GetObjectItem(x.r, "processes_peak")));
	cr_assert(strstr(field(x.r, "message"), "process limit (processes = 5)"), "%s",
		  field(x.r, "message"));
	causes_free(&x);
}

/* A tree well under the limit is not blamed on it. */
Test(record_causes, a_tree_under_the_process_limit_is_not_blamed_on_it, .timeout = 180)
{
	struct causes_run x;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	causes_run(&x, "\"$SBX\" run -r \"$REC\" --pids 5 -- sh -c \"sleep 0 & wait; exit 3\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "nonzero-exit", "%s", field(x.r, "message"));
	cr_assert_str_eq(field(x.r, "message"), "exited with code 3");
	cr_assert_lt(cJSON_GetNumberValue(cJSON_GetObjectItem(x.r, "processes_peak")), 5);
	causes_free(&x);
}

/*
 * strace under -p host: ptrace refused four times, and the message said
 * only "exited with code 1", the cause one key away.  A failed program's
 * message names what the filter refused it.
 */
Test(record_causes, a_failed_program_names_the_calls_the_filter_refused, .timeout = 180)
{
	struct causes_run x;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: no /usr/bin/python3");
	/* keyctl(0) twice: refused with EPERM, reported */
	causes_run(&x, "\"$SBX\" run -r \"$REC\" -- python3 -c \"import ctypes, sys; "
		       "libc = ctypes.CDLL(None); libc.syscall(250, 0); libc.syscall(250, 0); "
		       "sys.exit(1)\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "nonzero-exit", "%s", field(x.r, "message"));
	cr_assert(strstr(field(x.r, "message"),
			 "exited with code 1; refused by the seccomp filter: keyctl (2x, EPERM)"),
		  "%s", field(x.r, "message"));
	causes_free(&x);
}

/* clone3 is refused with ENOSYS for every program that starts a thread
 * (glibc falls back to clone): no cause of a failure, so not named. */
Test(record_causes, a_refused_clone3_is_not_named_as_a_cause, .timeout = 180)
{
	struct causes_run x;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: no /usr/bin/python3");
	causes_run(&x, "\"$SBX\" run -r \"$REC\" -- python3 -c \"import sys, threading; "
		       "t = threading.Thread(target=print); t.start(); t.join(); sys.exit(1)\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "nonzero-exit", "%s", field(x.r, "message"));
	char *denied = cJSON_PrintUnformatted(cJSON_GetObjectItem(x.r, "denied_syscalls"));
	bool clone3 = denied && strstr(denied, "clone3");

	free(denied);
	cr_assert(clone3, "no clone3 refused: the test proves nothing");
	cr_assert_str_eq(field(x.r, "message"), "exited with code 1");
	causes_free(&x);
}

/* A program that ends well is not told about what was refused. */
Test(record_causes, a_program_that_succeeds_keeps_a_plain_message, .timeout = 180)
{
	struct causes_run x;

	if (!have_userns())
		cr_skip_test("SKIP: no user namespaces");
	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: no /usr/bin/python3");
	causes_run(&x, "\"$SBX\" run -r \"$REC\" -- python3 -c \"import ctypes; "
		       "ctypes.CDLL(None).syscall(250, 0)\"");
	REQUIRE_RECORD(&x);
	cr_assert_str_eq(field(x.r, "status"), "ok", "%s", field(x.r, "message"));
	cr_assert_str_eq(field(x.r, "message"), "exited with code 0");
	causes_free(&x);
}
