/*
 * test_attack_interface.c - a hostile caller at sbx's interface: where
 * --result points, and sbx started with stdio closed.
 * A record that cannot be written is an error the caller can see, never
 * silently lost, and a destination that would block sbx is refused before
 * anything runs.
 */
#include "common.h"

#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run `sh -c SCRIPT` with $SBX exported; its exit status (-1: no exit). */
static int sh_status(const char *script)
{
	char *cmd = xasprintf("SBX='%s' timeout -s KILL 15 /bin/sh -c '%s'", sbx_path(), script);
	int st = system(cmd);

	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A judge passes -r fd:N for an fd it forgot to open: the record would go
 * nowhere and the caller would wait for it forever. */
Test(attack_interface, result_to_a_closed_fd_is_refused_before_the_run)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *mark = xasprintf("%s/ran", dir);
	char *script = xasprintf("touch %s", mark);

	REQUIRE_USERNS();
	cr_assert_eq(chmod(dir, 0777), 0); /* the jail's uid may write the mark */
	sbx_run(&r, &(struct sbx_opts){ .no_record = true },
		(const char *[]){ "run", "-B", dir, "-r", "fd:9", "--", "/bin/sh", "-c",
				  script, NULL });
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "--result"), "stderr names --result: %s", r.err);
	cr_assert(access(mark, F_OK) != 0, "the program ran although its record had nowhere to go");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(mark);
	free(script);
}

/* An fd opened read-only cannot take the record. */
Test(attack_interface, result_to_a_read_only_fd_is_refused)
{
	REQUIRE_USERNS();
	cr_assert_eq(sh_status("exec 9</dev/null; exec \"$SBX\" run -r fd:9 -- /bin/true 2>/dev/null"),
		     125);
}

/* A record that cannot be written (disk full) is an error, not exit 0. */
Test(attack_interface, result_that_cannot_be_written_exits_125_and_says_so)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .no_record = true },
		(const char *[]){ "run", "-r", "/dev/full", "--", "/bin/true", NULL });
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "--result /dev/full"), "stderr names --result: %s", r.err);
	sbx_result_free(&r);
}

/* -r FIFO with no reader blocked sbx in open() with SIGTERM held, so even
 * `timeout` could not stop it; it is refused at once instead. */
Test(attack_interface, result_to_a_fifo_without_reader_does_not_hang)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *fifo = xasprintf("%s/fifo", dir);

	REQUIRE_USERNS();
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true, .deadline_s = 8 },
		(const char *[]){ "run", "-r", fifo, "--", "/bin/true", NULL });
	cr_assert(!r.timed_out, "sbx hung opening the FIFO");
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "--result"), "stderr names --result: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(fifo);
}

/* -r - with stdout closed: the record is lost, so the run is an error. */
Test(attack_interface, result_to_a_closed_stdout_exits_125)
{
	REQUIRE_USERNS();
	cr_assert_eq(sh_status("exec \"$SBX\" run -r - -- /bin/true >&- 2>/dev/null"), 125);
}

/* With fd 0 closed, sbx's own first open() took fd 0 and --stdin - then
 * inspected (or relayed) one of sbx's files; a closed fd 0 reads as empty. */
Test(attack_interface, closed_stdin_relayed_with_stdin_dash_reads_empty)
{
	char *dir = make_temp_dir();
	char *out = xasprintf("%s/out", dir);
	char *script = xasprintf("exec \"$SBX\" run -q --stdin - -- "
				 "/bin/sh -c \"wc -c\" <&- >%s 2>/dev/null", out);
	char *got;

	REQUIRE_USERNS();
	cr_assert_eq(sh_status(script), 0);
	got = slurp(out);
	cr_assert(got && strcmp(got, "0\n") == 0, "the program read '%s'", got ? got : "(none)");
	rm_tree(dir);
	free(dir);
	free(out);
	free(script);
}

/* A service passes -p SEALED and appends the user's options; a second -p
 * replaced the sealed policy, and every limit after it was the user's. */
Test(attack_interface, a_second_policy_cannot_replace_a_sealed_one)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *pol = xasprintf("%s/sealed.policy", dir);
	FILE *f = fopen(pol, "w");

	cr_assert_not_null(f);
	fputs("include: \"default\"\nsealed: true\nlimits { wall_time_ms: 2000 }\n", f);
	fclose(f);
	sbx_run(&r, NULL, (const char *[]){ "run", "-p", pol, "-p", "host", "-t", "1h",
					    "--", "/bin/true", NULL });
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "--policy given twice"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(pol);
}

/* A caller's `ulimit -f 0` killed sbx by SIGXFSZ while it copied -f into
 * the workspace: no record, and the workspace with the input left behind. */
Test(attack_interface, inherited_tiny_fsize_is_an_error_that_leaves_no_workspace)
{
	char *tmp = make_temp_dir();
	char *in = xasprintf("%s/in.txt", tmp);
	char *script = xasprintf("(ulimit -f 0; TMPDIR=%s exec \"$SBX\" run -f %s -- /bin/true "
				 ">/dev/null 2>&1)", tmp, in);
	char *pat = xasprintf("%s/sbx-*/ws-*", tmp);
	FILE *f = fopen(in, "w");
	glob_t g;

	REQUIRE_USERNS();
	cr_assert_not_null(f);
	fputs("input\n", f);
	fclose(f);
	cr_assert_eq(chmod(tmp, 0755), 0);
	cr_assert_eq(sh_status(script), 125);
	cr_assert_eq(glob(pat, 0, NULL, &g), GLOB_NOMATCH, "a workspace was left in %s", tmp);
	rm_tree(tmp);
	free(tmp);
	free(in);
	free(script);
	free(pat);
}

/* A caller's tiny hard RLIMIT_STACK crashed sbx (SIGSEGV, no message).
 * The environment is kept small: its strings share those 16 KiB, and with
 * a few KiB of them the dynamic loader itself runs out before main() (an
 * empty PIE program crashes as often), which made this test flaky. */
Test(attack_interface, inherited_tiny_stack_is_refused_with_a_message)
{
	cr_assert_eq(sh_status("exec env -i SBX=\"$SBX\" PATH=/usr/bin:/bin /bin/sh -c "
			       "\"ulimit -s 16; exec \\\"\\$SBX\\\" run -- /bin/true 2>/dev/null\""), 125);
}

/* --stdout F --stderr F (spelled two ways): each copy wrote from offset 0,
 * so stderr's bytes overwrote stdout's and a byte-exact copy was lost. */
Test(attack_interface, stdout_and_stderr_copies_to_one_file_are_refused)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *a = xasprintf("%s/both", dir);
	char *b = xasprintf("%s/./both", dir);

	REQUIRE_USERNS();
	sbx_run(&r, NULL, (const char *[]){ "run", "--stdout", a, "--stderr", b, "--",
					    "/bin/sh", "-c", "echo out; echo err >&2", NULL });
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "same file"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(a);
	free(b);
}

/* TMPDIR naming a file was reported as a race ("changed while being
 * opened"); since the workspace is a tmpfs in the jail, TMPDIR is unused. */
Test(attack_interface, tmpdir_that_is_a_file_does_not_matter)
{
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .env = (const char *const[]){ "TMPDIR=/etc/passwd", NULL } },
		(const char *[]){ "run", "--", "/bin/true", NULL });
	cr_assert_eq(r.exit_status, 0, "exit %d; stderr: %s", r.exit_status, r.err);
	sbx_result_free(&r);
}

/* -r F --stdout F: the record replaced the program's byte-exact output. */
Test(attack_interface, result_to_the_stdout_copy_is_refused)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *a = xasprintf("%s/same", dir);

	REQUIRE_USERNS();
	sbx_run(&r, NULL, (const char *[]){ "run", "--stdout", a, "-r", a, "--",
					    "/bin/echo", "out", NULL });
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(r.err, "same file"), "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(a);
}

/* `sbx doctor --json > /dev/full` exited 0: a script saw "all ok" and no report. */
Test(attack_interface, doctor_whose_report_cannot_be_written_fails)
{
	cr_assert_eq(sh_status("exec \"$SBX\" doctor --json >/dev/full 2>/dev/null"), 125);
}

/* -e $'\xff=1' and -e 1A=2 were accepted: a name no shell can use, and
 * raw bytes a service passes through into the record; the policy's env
 * rule applies to the command line too. */
Test(attack_interface, env_names_that_are_not_variable_names_are_refused)
{
	const char *bad[] = { "\xff=1", "1A=2", "A-B=3", "A B=4", NULL };
	struct sbx_result r;

	for (const char *const *b = bad; *b; b++) {
		sbx_run(&r, NULL, (const char *[]){ "run", "-e", *b, "--", "/bin/true", NULL });
		cr_assert_eq(r.exit_status, 125, "-e '%s': exit %d", *b, r.exit_status);
		ASSERT_STATUS(&r, "config-error");
		cr_assert(strstr(r.err, "is not a variable name"), "stderr: %s", r.err);
		sbx_result_free(&r);
	}
	sbx_run(&r, NULL, (const char *[]){ "run", "--env-keep", "A-B", "--", "/bin/true", NULL });
	cr_assert_eq(r.exit_status, 125, "--env-keep A-B: exit %d", r.exit_status);
	sbx_result_free(&r);
	sbx_run(&r, NULL, (const char *[]){ "run", "-e", "_A1=ok", "--", "/bin/sh", "-c",
					    "echo $_A1", NULL });
	cr_assert_eq(r.exit_status, 0, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert_str_eq(r.out, "ok\n");
	sbx_result_free(&r);
}

/* Run SCRIPT in a workspace DIR with -r DIR/rec.json: the program can
 * reach the record's file.  Checks that sbx refuses it with 125 and gives
 * the true record (exit code 3) on stderr instead. */
static void expect_tampered_record_refused(const char *script)
{
	char *dir = make_temp_dir();
	char *rec = xasprintf("%s/rec.json", dir);
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true },
		(const char *[]){ "run", "-w", dir, "-r", rec, "--", "/bin/sh", "-c", script,
				  NULL });
	rm_tree(dir);
	cr_assert_eq(r.exit_status, 125, "exit %d; stderr: %s", r.exit_status, r.err);
	cr_assert(strstr(r.err, "--result"), "stderr names --result: %s", r.err);
	cr_assert(strstr(r.err, "\"status\":\"nonzero-exit\"") && strstr(r.err, "\"exit_code\":3"),
		  "the true record is on stderr: %s", r.err);
	sbx_result_free(&r);
	free(rec);
	free(dir);
}

/* -w . -r result.json put the record's file in the program's reach: it
 * replaced the file with a forged {"status":"ok"} and sbx wrote the real
 * record to the unlinked inode. */
Test(attack_interface, a_result_file_replaced_by_the_program_is_refused)
{
	REQUIRE_USERNS();
	expect_tampered_record_refused("rm -f rec.json; "
				       "echo '{\"status\":\"ok\",\"exit_code\":0}' > rec.json; exit 3");
}

/* The same file written through past where the record ends: its last line
 * was the program's forged record. */
Test(attack_interface, a_result_file_written_by_the_program_is_refused)
{
	REQUIRE_USERNS();
	expect_tampered_record_refused("head -c 8000 /dev/zero | tr '\\000' '\\n' 1<>rec.json; "
				       "echo '{\"status\":\"ok\",\"exit_code\":0}' >> rec.json; exit 3");
}
