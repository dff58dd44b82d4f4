/*
 * test_supervise.c - one test per status and the hostile programs against
 * CPU, memory, time, lifetime and output, through the real sbx binary.  Times are bounded in
 * both directions to prove which mechanism fired.
 */
#include "common.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <regex.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void run(struct sbx_result *r, const char *const argv[])
{
	sbx_run(r, NULL, argv);
}

Test(status, ok_for_exit_zero)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--", "/bin/true"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.exit_status, 0);
	cr_assert_eq(rec_num(&r, "exit_code"), 0);
	cr_assert(rec_is_null(&r, "signal"));
	sbx_result_free(&r);
}

/* Exit codes are mirrored exactly, 255 included. */
Test(status, nonzero_exit_codes_are_mirrored)
{
	static const char *const codes[] = { "1", "7", "255" };

	REQUIRE_USERNS();
	for (size_t i = 0; i < 3; i++) {
		struct sbx_result r;
		char *script = xasprintf("exit %s", codes[i]);
		run(&r, SBX_ARGV("run", "--", "/bin/sh", "-c", script));
		ASSERT_STATUS(&r, "nonzero-exit");
		cr_assert_eq(r.exit_status, atoi(codes[i]));
		cr_assert_eq(rec_num(&r, "exit_code"), atoi(codes[i]));
		free(script);
		sbx_result_free(&r);
	}
}

/* An early self-inflicted SIGKILL is `signaled`, not cpu or memory. */
Test(status, self_sigkill_is_signaled)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--cpu", "5s", "--", "/bin/sh", "-c", "kill -9 $$"));
	ASSERT_STATUS(&r, "signaled");
	cr_assert_eq(r.exit_status, 128 + SIGKILL);
	cr_assert_str_eq(rec_str(&r, "signal"), "SIGKILL");
	cr_assert(rec_is_null(&r, "exit_code"));
	sbx_result_free(&r);
}

/* sleep 60 with a 1 s limit: timeout, and SIGTERM ended it without waiting
 * for the grace period: well before the 10 s grace (sbx's
 * own start took 2 s more under emulation). */
Test(status, timeout_kills_sleep_promptly)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--time", "1s", "--set", "limits.kill_grace_ms=10000",
			 "--", "/bin/sleep", "60"));
	ASSERT_STATUS(&r, "timeout");
	cr_assert_eq(r.exit_status, 124);
	cr_assert(r.elapsed_s >= 1.0 && r.elapsed_s < 6.0, "took %.2fs", r.elapsed_s);
	cr_assert(strstr(rec_str(&r, "message"), "1000 ms") != NULL, "message: %s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* A SIGTERM trapper is SIGKILLed after the grace and still `timeout`. */
Test(status, sigterm_trapper_dies_after_grace)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--time", "1s", "--set", "limits.kill_grace_ms=1000", "--",
			 "/bin/sh", "-c", "trap '' TERM; while :; do :; done"));
	ASSERT_STATUS(&r, "timeout");
	/* the grace was waited; then SIGKILL, not the harness's 20 s (sbx's
	 * own start took 2 s under emulation) */
	cr_assert(r.elapsed_s >= 1.9 && r.elapsed_s < 8.0, "took %.2fs", r.elapsed_s);
	sbx_result_free(&r);
}

/* A handler that prints on SIGTERM gets to print at timeout. */
Test(status, sigterm_handler_output_is_kept_at_timeout)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--time", "1s", "--", "/bin/sh", "-c",
			 "trap 'echo bye; exit 3' TERM; while :; do sleep 0.05; done"));
	ASSERT_STATUS(&r, "timeout");
	cr_assert(strstr(r.out, "bye") != NULL, "stdout: %s", r.out);
	sbx_result_free(&r);
}

/*
 * A busy loop under --cpu 1s ends as cpu-limit at about 1 s of CPU.
 * Judged by the CPU the record counts, not by wall time: on a loaded machine
 * 1 s of CPU took over 4 s of wall and the test failed for nothing.
 */
Test(status, busy_loop_is_cpu_limit)
{
	struct sbx_result r;
	double cpu_ms;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--cpu", "1s", "--time", "20s", "--", "/bin/sh", "-c",
			 "while :; do :; done"));
	ASSERT_STATUS(&r, "cpu-limit");
	cr_assert_eq(r.exit_status, 124);
	cpu_ms = rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms");
	cr_assert(cpu_ms >= 700 && cpu_ms < 2500, "used %.0f ms of CPU", cpu_ms);
	cr_assert(r.elapsed_s >= 0.9, "took %.2fs", r.elapsed_s);
	sbx_result_free(&r);
}

/* SIGXCPU ignored (inherited from sbx's own caller): still cpu-limit. */
Test(status, inherited_ignored_sigxcpu_still_cpu_limit)
{
	char *cmd = xasprintf("trap '' XCPU; exec %s run -q --cpu 1s --time 20s -- "
			      "/bin/sh -c 'while :; do :; done'", sbx_path());

	REQUIRE_USERNS();
	/* run through sh so that SIGXCPU is ignored when sbx starts */
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 124,
		  "sbx exit %d", WEXITSTATUS(status));
	free(cmd);
}

/* Trapping SIGXCPU and exiting 0 in the soft-to-hard gap is still cpu-limit. */
Test(status, trapped_sigxcpu_then_exit_zero_is_cpu_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--cpu", "1s", "--time", "20s", "--", "/usr/bin/python3", "-c",
			 "import signal,time\n"
			 "signal.signal(signal.SIGXCPU, lambda *a: None)\n"
			 "t=time.process_time()\n"
			 "while time.process_time() < 1.2: pass\n"));
	ASSERT_STATUS(&r, "cpu-limit");
	sbx_result_free(&r);
}

/* Two sequential children each burning 0.7 s exceed a 1 s tree budget. */
Test(status, sequential_children_are_charged)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--cpu", "1s", "--time", "20s", "--", "/bin/sh", "-c",
			 "for i in 1 2; do /usr/bin/python3 -c 'import time\n"
			 "while time.process_time() < 0.7: pass'; done; exit 0"));
	ASSERT_STATUS(&r, "cpu-limit");
	sbx_result_free(&r);
}

/* Four parallel busy children share a 1 s budget: the supervisor's meter
 * stops the tree near 1 s of CPU in all; RLIMIT_CPU alone (per process)
 * would let each burn its own second, 4 s in all.  Judged by
 * the CPU the record reports, not by wall time, which load stretches. */
Test(status, parallel_children_are_stopped_by_the_tree_meter)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--cpu", "1s", "--time", "30s", "--", "/bin/sh", "-c",
			 "for i in 1 2 3 4; do (while :; do :; done) & done; wait"));
	ASSERT_STATUS(&r, "cpu-limit");
	double cpu = rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms");
	cr_assert(cpu >= 900 && cpu < 2500, "the tree used %.0f ms of CPU: the whole-tree "
		  "meter did not stop it", cpu);
	sbx_result_free(&r);
}

/* Sleeping is not charged to the CPU budget: 4 s asleep under a
 * 3 s budget (the jail's start and sh took 1.4 s of CPU under emulation). */
Test(status, sleeping_is_not_charged)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--cpu", "3s", "--", "/bin/sh", "-c", "sleep 4; /bin/true"));
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
}

/* Output past the limit: one marker, last; status output-limit. */
Test(status, output_flood_is_output_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--output", "64K", "--time", "20s", "--", "/usr/bin/yes"));
	ASSERT_STATUS(&r, "output-limit");
	cr_assert_eq(r.exit_status, 124);
	cr_assert(r.elapsed_s < 8.0, "took %.2fs", r.elapsed_s); /* not the 20 s wall */
	cr_assert(r.out_len <= 65536 + 200, "stdout %zu bytes", r.out_len);
	cr_assert_eq(rec_num(&r, "stdout_bytes") >= 65536, 1);
	sbx_result_free(&r);
}

/* Exactly at the limit: no marker, no truncation; one more byte: marker. */
Test(status, output_limit_boundary_is_exact)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--output", "4096", "--", "/usr/bin/head", "-c", "4096",
			 "/dev/zero"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.out_len, 4096);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(r.record, "output_truncated")));
	sbx_result_free(&r);

	run(&r, SBX_ARGV("run", "--output", "4096", "--", "/usr/bin/head", "-c", "4097",
			 "/dev/zero"));
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.record, "output_truncated")),
		  "record: %s", r.err);
	/* the output is NUL bytes, so search with memmem */
	cr_assert(memmem(r.out, r.out_len, "[sbx: output truncated", 22) != NULL,
		  "no truncation marker");
	cr_assert_eq(r.out_len, 4096 + strlen("\n[sbx: output truncated at 4096 bytes]\n"),
		     "the marker is not last or bytes past the limit were kept");
	sbx_result_free(&r);
}

/* A syscall killed by the filter is `seccomp` (KILL action via --set). */
Test(status, seccomp_kill_is_seccomp)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--set", "seccomp.deny_action=KILL", "--", "/usr/bin/python3",
			 "-c", "import ctypes; ctypes.CDLL(None).syscall(165, 0, 0, 0, 0, 0)"));
	ASSERT_STATUS(&r, "seccomp");
	cr_assert_eq(r.exit_status, 128 + SIGSYS);
	sbx_result_free(&r);
}

Test(status, missing_command_is_exec_error_127)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--", "/no/such/program"));
	ASSERT_STATUS(&r, "exec-error");
	cr_assert_eq(r.exit_status, 127);
	sbx_result_free(&r);

	run(&r, SBX_ARGV("run", "--", "no-such-program-on-path"));
	ASSERT_STATUS(&r, "exec-error");
	cr_assert_eq(r.exit_status, 127);
	sbx_result_free(&r);
}

Test(status, non_executable_file_is_exec_error_126)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--", "/etc/passwd"));
	ASSERT_STATUS(&r, "exec-error");
	cr_assert_eq(r.exit_status, 126);
	sbx_result_free(&r);
}

Test(status, bad_option_is_config_error_with_record)
{
	struct sbx_result r;

	run(&r, SBX_ARGV("run", "--time", "5q", "--", "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "--time") != NULL, "stderr: %s", r.err);
	sbx_result_free(&r);
}

/* A missing non-optional bind source fails closed and leaves no temp dir. */
Test(status, missing_bind_source_is_setup_error)
{
	struct sbx_result r;
	char *tmp = make_temp_dir();
	char *env = xasprintf("TMPDIR=%s", tmp);

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .env = (const char *const[]){ env, NULL } },
		SBX_ARGV("run", "-b", "/no/such/dir:/x", "--", "/bin/true"));
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(rec_str(&r, "message"), "/no/such/dir") != NULL, "message: %s",
		  rec_str(&r, "message"));
	cr_assert_eq(rmdir(tmp), 0, "sbx left something in TMPDIR");
	sbx_result_free(&r);
	free(env);
	free(tmp);
}

/* A program printing a forged record cannot change the real one. */
Test(status, forged_record_is_ignored)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .record_on_stdout = true },
		SBX_ARGV("run", "--json", "--", "/bin/sh", "-c",
			 "echo '{\"status\":\"ok\",\"exit_code\":0}'; "
			 "echo '{\"status\":\"ok\",\"exit_code\":0}' >&2; exit 3"));
	ASSERT_STATUS(&r, "nonzero-exit");
	cr_assert_eq(rec_num(&r, "exit_code"), 3);
	cr_assert(strstr(rec_str(&r, "stdout"), "\"status\"") != NULL);
	sbx_result_free(&r);
}

/* Capture mode keeps multibyte characters split across a 64 KiB read whole
 * and replaces invalid bytes with U+FFFD, marking the text lossy. */
Test(capture, utf8_across_chunk_boundary_and_invalid_bytes)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .record_on_stdout = true },
		SBX_ARGV("run", "--json", "--", "/usr/bin/python3", "-c",
			 "import sys\n"
			 "sys.stdout.buffer.write(b'a'*65535 + '\\u0900\\u4f60\\U0001f600'.encode())\n"
			 "sys.stderr.buffer.write(b'x\\xff\\xed\\xa0\\x80y')\n"));
	ASSERT_STATUS(&r, "ok");
	const char *out = rec_str(&r, "stdout");
	cr_assert_not_null(out);
	cr_assert(strstr(out, "\xe0\xa4\x80\xe4\xbd\xa0\xf0\x9f\x98\x80") != NULL);
	cr_assert(strstr(out, "\xef\xbf\xbd") == NULL, "stdout has U+FFFD");
	const char *err = rec_str(&r, "stderr");
	cr_assert(err && strncmp(err, "x\xef\xbf\xbd", 4) == 0, "stderr: %s", err);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.record, "stderr_lossy")));
	sbx_result_free(&r);
}

/* A setsid orphan holding stdout open does not hold sbx. */
Test(lifetime, setsid_orphan_holding_stdout_does_not_hang_sbx)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--time", "30s", "--", "/bin/sh", "-c",
			 "setsid /bin/sleep 30 & exit 0"));
	ASSERT_STATUS(&r, "ok");
	/* well before the sleep's 30 s (4.2 s under emulation) */
	cr_assert(r.elapsed_s < 12.0, "took %.2fs", r.elapsed_s);
	sbx_result_free(&r);
}

/* How many processes have `marker` in their command line. */
static int marker_count(const char *marker)
{
	/* "[s]bx" so that grep does not find its own command line */
	char *cmd = xasprintf("grep -l -a -- '[s]%s' /proc/[0-9]*/cmdline 2>/dev/null | "
			      "grep -v self | wc -l", marker + 1);
	FILE *p = popen(cmd, "r");
	int count = -1;

	cr_assert(p && fscanf(p, "%d", &count) == 1);
	pclose(p);
	free(cmd);
	return count;
}

/*
 * A SIGTERM-ignoring child with a heartbeat stops when the run ends.
 * The parent exits after the first beat, not after a fixed sleep: under TCG the
 * child's first touch came later than 0.3 s and the test failed for nothing.
 */
Test(lifetime, sigterm_ignoring_child_stops_after_run)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *bind = xasprintf("%s:/hb", dir);
	char *beat = xasprintf("%s/beat", dir);
	struct stat a;
	char marker[64];

	REQUIRE_USERNS();
	chmod(dir, 0777);
	snprintf(marker, sizeof(marker), "sbx-heartbeat-%d", getpid());
	run(&r, SBX_ARGV("run", "-B", bind, "--", "/bin/sh", "-c",
			 "(trap '' TERM; exec >/dev/null 2>&1; while :; do touch /hb/beat; "
			 "sleep 0.05; done) & while [ ! -e /hb/beat ]; do sleep 0.05; done; exit 0",
			 marker));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(stat(beat, &a), 0, "heartbeat never ran");
	/* the heartbeat's shell carries the marker in its argv: none may be
	 * left the moment sbx has returned, with no wait for it to go */
	cr_assert_eq(marker_count(marker), 0, "the heartbeat outlived sbx");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(bind);
	free(beat);
}


/*
 * kill -9 of sbx: the jail dies with it.  sbx is killed once the
 * jail's sleep is seen, not after a fixed wait: under TCG the jail was not
 * up after 0.4 s, and the test then proved nothing.
 */
Test(lifetime, sigkill_of_sbx_leaves_no_jail_process)
{
	char marker[64];
	int status, count = 0;

	REQUIRE_USERNS();
	snprintf(marker, sizeof(marker), "sbx-orphan-%d", getpid());
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		execl(sbx_path(), "sbx", "run", "--", "/bin/bash", "-c",
		      "exec -a \"$0\" /bin/sleep 60", marker, (char *)NULL);
		_exit(127);
	}
	/* sbx's own argv and the jail's sleep both carry the marker */
	for (int i = 0; i < 400 && count < 2; i++) {
		usleep(50 * 1000);
		count = marker_count(marker);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert_geq(count, 2, "the jail's sleep never started (%d found)", count);
	for (int i = 0; i < 100 && (count = marker_count(marker)) > 0; i++)
		usleep(50 * 1000);
	cr_assert_eq(count, 0, "%d jail processes survived sbx's death by 5 s", count);
}

/* A single-process memory bomb is stopped by RLIMIT_DATA (MemoryError): never
 * ok, and not reported as memory-limit, which needs the tree to have held
 * more than the limit. */
Test(status, memory_bomb_is_never_ok_and_never_guessed_as_memory_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "--memory", "256M", "--", "/usr/bin/python3", "-c",
			 "x = bytearray(10**10)"));
	cr_assert_not_null(r.record);
	cJSON *enf = cJSON_GetObjectItem(cJSON_GetObjectItem(r.record, "limits"), "enforced_by");
	/* a cgroup's memory.max counts what is touched, not reserved (no
	 * RLIMIT_AS): test_cgroup.c judges that path */
	if (cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.record, "isolation"), "cgroup"))) {
		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(enf, "memory")), "cgroup");
		sbx_result_free(&r);
		return;
	}
	const char *st = rec_str(&r, "status");
	cr_assert(st && strcmp(st, "ok") != 0 && strcmp(st, "memory-limit") != 0,
		  "status %s", st ? st : "(none)");
	cr_assert(strstr(r.err, "MemoryError") != NULL, "stderr: %s", r.err);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(enf, "memory")),
			 "rlimit-data+supervisor");
	sbx_result_free(&r);
}

/* Python that forks N children, each holding MB MiB of its own (or, with
 * "share", one parent array the children only share copy-on-write). */
static const char membomb_py[] =
	"import os, sys, time\n"
	"n, mb, share = int(sys.argv[1]), int(sys.argv[2]), len(sys.argv) > 3\n"
	"big = bytearray(mb << 20) if share else None\n"
	"kids = []\n"
	"for i in range(n):\n"
	"    pid = os.fork()\n"
	"    if pid == 0:\n"
	"        x = None if share else bytearray(mb << 20)\n"
	"        time.sleep(1.5)\n"
	"        os._exit(0)\n"
	"    kids.append(pid)\n"
	"for p in kids:\n"
	"    os.waitpid(p, 0)\n"
	"print('done')\n";
/* a wall limit that judges memory, not speed: 10 s passed under emulation */
static const struct sbx_opts membomb_opts = { .deadline_s = 90 };

/* RLIMIT_AS is per process: eight children of 100 MiB each fit it at 256M,
 * but together they hold 800 MiB; the tree meter ends the run. */
Test(status, children_together_over_the_memory_limit_are_memory_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &membomb_opts, SBX_ARGV("run", "--memory", "256M", "--time", "60s", "--",
					    "/usr/bin/python3", "-c", membomb_py, "8", "100"));
	ASSERT_STATUS(&r, "memory-limit");
	cr_assert_eq(r.exit_status, 124);
	cr_assert(strstr(rec_str(&r, "message"), "memory_mb = 256") != NULL, "%s",
		  rec_str(&r, "message"));
	cr_assert(strstr(r.out, "done") == NULL, "the bomb ran to the end");
	sbx_result_free(&r);
}

/* Pages a parent shares with its children after fork() count once (PSS):
 * 150 MiB shared by seven processes is not 1 GiB. */
Test(status, memory_shared_after_fork_counts_once)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &membomb_opts, SBX_ARGV("run", "--memory", "256M", "--time", "60s", "--",
					    "/usr/bin/python3", "-c", membomb_py, "6", "150",
					    "share"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "done\n");
	sbx_result_free(&r);
}

/*
 * -v: the jail's steps ("sbx: +N.NNNms ...") and the supervisor's ("sbx:
 * supervise +N.NNNms ...") as whole lines on stderr, from one logger (the
 * two sides write at once; a torn line would mix them).
 */
Test(verbose, jail_and_supervisor_steps_are_whole_timed_lines)
{
	static const char *const want[] = {
		"^sbx: \\+[0-9]+\\.[0-9]{3}ms seccomp filter compiled \\([0-9]+ instructions\\)$",
		"^sbx: \\+[0-9]+\\.[0-9]{3}ms mount /proc \\(proc\\)$",
		"^sbx: \\+[0-9]+\\.[0-9]{3}ms pivot_root done$",
		"^sbx: \\+[0-9]+\\.[0-9]{3}ms target started$",
		"^sbx: supervise \\+[0-9]+\\.[0-9]{3}ms CTL_GO sent$",
		"^sbx: supervise \\+[0-9]+\\.[0-9]{3}ms init reaped$",
	};
	struct sbx_result r;

	REQUIRE_USERNS();
	run(&r, SBX_ARGV("run", "-v", "--", "/bin/true"));
	ASSERT_STATUS(&r, "ok");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		regex_t re;

		cr_assert_eq(regcomp(&re, want[i], REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
		cr_assert_eq(regexec(&re, r.err, 0, NULL, 0), 0, "no line %s in:\n%s",
			     want[i], r.err);
		regfree(&re);
	}
	sbx_result_free(&r);
}
