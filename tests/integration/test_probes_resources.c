/*
 * test_probes_resources.c - resource probes: a program cannot exceed its
 * limits, so every bomb ends within its limit with the right
 * status.  Judged from outside: elapsed time, the record's status, bytes
 * relayed, host files and processes afterwards.
 */
#include "test_probes_common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

TestSuite(probes_resources, .init = probes_require_jail);

static const char *status_of(const struct sbx_result *r)
{
	const char *s = rec_str(r, "status");

	return s ? s : "(no record)";
}

/* The kill grace of the run (record limits.kill_grace_ms), default 2 s. */
static double grace_s(const struct sbx_result *r)
{
	const cJSON *lim = cJSON_GetObjectItemCaseSensitive(r->record, "limits");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(lim, "kill_grace_ms");

	return cJSON_IsNumber(g) ? g->valuedouble / 1000 : 2.0;
}

/* Attack: a fork bomb exhausting the host's process table. */
Test(probes_resources, fork_bomb_hits_the_pids_limit_and_nothing_survives)
{
	struct sbx_result r;
	char *marker = unique_marker("forkbomb");

	run_probe(&r, NULL, SBX_ARGV("--pids", "32", "--time", "3s"), "res_fork_bomb", SBX_ARGV(marker));
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert(strstr(r.out, "BLOCKED: fork failed") && strstr(r.out, "EAGAIN"),
		  "fork never failed with EAGAIN: " PROBE_REPORT(&r));
	cr_assert(!strcmp(status_of(&r), "timeout") || !strcmp(status_of(&r), "nonzero-exit"),
		  "status: " PROBE_REPORT(&r));
	cr_assert(r.elapsed_s < 3 + grace_s(&r) + 2, PROBE_REPORT(&r));
	cr_assert(marker_gone_within(marker, 1.0), "fork-bomb processes outlived the run");
	free(marker);
	sbx_result_free(&r);
}

/* Attack: a memory bomb (10 GB) taking the host's RAM. */
Test(probes_resources, memory_bomb_is_never_ok)
{
	struct sbx_result r;

	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: /usr/bin/python3 is not installed");
	run_probe(&r, NULL, SBX_ARGV("--memory", "256M", "--time", "20s"), "res_mem_bomb.py", NULL);
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert(strcmp(status_of(&r), "ok") != 0, "a memory bomb ended ok: " PROBE_REPORT(&r));
	cr_assert(r.record, PROBE_REPORT(&r));
	sbx_result_free(&r);
}

/* Attack: filling /tmp (host RAM or disk) past its 20 MiB size. */
Test(probes_resources, tmp_filler_gets_enospc)
{
	expect_denied("res_tmp_fill", "ENOSPC", NULL);
}

/* Attack: reserving 10 GiB of host disk through the workspace. */
Test(probes_resources, workspace_fallocate_of_10_gib_fails)
{
	struct sbx_result r;
	char *ws = make_temp_dir();
	struct statvfs before, after;

	statvfs(ws, &before);
	run_probe(&r, NULL, SBX_ARGV("-w", ws), "res_ws_fallocate", NULL);
	statvfs(ws, &after);
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert(strstr(r.out, "BLOCKED:") || strcmp(status_of(&r), "ok") != 0,
		  "neither refused nor stopped: " PROBE_REPORT(&r));
	if (strstr(r.out, "BLOCKED:"))
		expect_errno(&r, "EFBIG", "ENOSPC");
	double lost = ((double)before.f_bavail - after.f_bavail) * before.f_frsize;
	cr_assert(lost < 1e9, "host free space fell by %.0f bytes", lost);
	rm_tree(ws);
	free(ws);
	sbx_result_free(&r);
}

/* Attack: an output flood filling the caller's memory or disk. */
Test(probes_resources, output_flood_is_cut_at_the_output_limit)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--output", "1M"), "res_output_flood", NULL);
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert_str_eq(status_of(&r), "output-limit", "%.300s", r.err);
	cr_assert_eq(r.exit_status, 124);
	cr_assert(r.out_len <= (1 << 20) + 256, "sbx relayed %zu bytes for a 1 MiB limit", r.out_len);
	sbx_result_free(&r);
}

/* Attack: a busy loop holding a CPU forever. */
Test(probes_resources, busy_loop_hits_the_cpu_limit)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--cpu", "1s", "--time", "20s"), "res_busy_loop", SBX_ARGV("10"));
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert_str_eq(status_of(&r), "cpu-limit", "%.300s", r.err);
	cr_assert_eq(r.exit_status, 124);
	/* by the CPU it was allowed, not by wall time (a loaded machine is slow) */
	cr_assert(rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms") < 2500,
		  "used %.0f ms of CPU under a 1 s CPU limit",
		  rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms"));
	sbx_result_free(&r);
}

/* Attack: ignoring SIGXCPU (the soft CPU warning) to keep burning CPU. */
Test(probes_resources, sigxcpu_ignorer_hits_the_cpu_limit)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--cpu", "1s", "--time", "20s"), "res_sigxcpu_ignorer", SBX_ARGV("10"));
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert_str_eq(status_of(&r), "cpu-limit", "%.300s", r.err);
	/* by the CPU it was allowed, not by wall time (a loaded machine is slow) */
	cr_assert(rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms") < 2500,
		  "used %.0f ms of CPU under a 1 s CPU limit",
		  rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms"));
	sbx_result_free(&r);
}

/* Attack: trapping SIGTERM to outlive the wall-clock limit. */
Test(probes_resources, sigterm_trapper_ends_at_the_wall_limit_plus_grace)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--time", "1s"), "res_sigterm_trapper", SBX_ARGV("30"));
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(strstr(r.out, "ready"), "the trap was never set: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), PROBE_REPORT(&r));
	cr_assert_str_eq(status_of(&r), "timeout", "%.300s", r.err);
	cr_assert_eq(r.exit_status, 124);
	cr_assert(r.elapsed_s >= 1.0, "ended after %.3f s, before the 1 s limit", r.elapsed_s);
	cr_assert(r.elapsed_s < 1.0 + grace_s(&r) + 2, "ended after %.3f s (grace %.1f s)",
		  r.elapsed_s, grace_s(&r));
	sbx_result_free(&r);
}

/* Read FD until EOF or a bounded 20 s of silence into BUF (NUL-terminated). */
static size_t read_all(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (len + 1 >= cap || poll(&p, 1, 20000) <= 0)
			break;
		if ((n = read(fd, buf + len, cap - 1 - len)) <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return len;
}

/* Attack: 120 of the jail's pipes raised to 1 MiB (F_SETPIPE_SZ) take the
 * caller's whole per-user pipe quota (fs.pipe-user-pages-soft): the
 * caller's own new pipes on the host got one 8 KiB buffer instead of 64
 * KiB for as long as the jail held them. */
Test(probes_resources, jail_pipes_leave_the_callers_new_pipes_their_64_kib)
{
	int in[2], out[2], err[2], host[2], status;
	char *bind = xasprintf("%s:/probes", getenv("SBX_PROBES") ? getenv("SBX_PROBES")
								  : "build/probes");
	char line[256] = "", text[8192], rec[16384];

	cr_assert(pipe(in) == 0 && pipe(out) == 0 && pipe(err) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execl(sbx_path(), "sbx", "run", "-b", bind, "--stdin", "-", "--",
		      "/probes/res_pipe_quota", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	/* the jail holds its pipes once it says so */
	for (size_t n = 0; n + 1 < sizeof(line) && !strchr(line, '\n');) {
		struct pollfd p = { .fd = out[0], .events = POLLIN };
		ssize_t k;

		if (poll(&p, 1, 20000) <= 0 || (k = read(out[0], line + n, 1)) <= 0)
			break;
		line[n += (size_t)k] = '\0';
	}
	cr_assert(pipe(host) == 0);
	int host_size = fcntl(host[0], F_GETPIPE_SZ);
	close(host[0]);
	close(host[1]);
	close(in[1]); /* the probe lets its pipes go and gives its verdict */
	read_all(out[0], text, sizeof(text));
	read_all(err[0], rec, sizeof(rec));
	waitpid(pid, &status, 0);
	close(out[0]);
	close(err[0]);
	free(bind);
	cr_assert(strstr(line, "holding"), "the probe never held its pipes: %s\n%s\n%.2000s",
		  line, text, rec);
	cr_assert_eq(host_size, 64 * 1024, "the caller's new pipe had %d bytes while the jail "
		     "held its pipes (%s)", host_size, line);
	cr_assert(strstr(text, "BLOCKED:") && strstr(text, "EPERM"), "%s%s\n%.2000s", line,
		  text, rec);
}
