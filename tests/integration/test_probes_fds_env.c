/*
 * test_probes_fds_env.c - descriptor and environment probes: only fds 0-2
 * reach the program, even when sbx
 * starts with extra fds or a full fd table; the nofile limit holds; no
 * host variable leaks; stdin is at EOF.
 */
#include "test_probes_common.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

TestSuite(probes_fds_env, .init = probes_require_jail);

/* Attack: an fd inherited from the caller (3<secret, a jobserver pipe) used as a channel out. */
Test(probes_fds_env, only_fds_0_1_2_reach_the_program_when_sbx_inherits_more)
{
	struct sbx_result r;
	int fds[7];

	for (int i = 0; i < 7; i++) {
		fds[i] = open("/etc/hostname", O_RDONLY); /* no O_CLOEXEC: sbx inherits them */
		if (fds[i] < 0)
			fds[i] = open("/dev/null", O_RDONLY);
	}
	run_probe(&r, NULL, NULL, "fd_inherited", NULL);
	for (int i = 0; i < 7; i++)
		close(fds[i]);
	expect_blocked(&r);
	sbx_result_free(&r);
}

/*
 * Attack: an fd inherited at a high number (a service's listening socket
 * dup'd to 1000, a descriptor near the caller's limit) stays open if a
 * runner closes only up to its highest kept fd or up to a fixed ceiling.
 */
Test(probes_fds_env, only_fds_0_1_2_reach_the_program_when_sbx_inherits_high_numbers)
{
	struct rlimit rl;
	struct sbx_result r;
	int fd = open("/etc/hostname", O_RDONLY); /* no O_CLOEXEC: sbx inherits them */
	int high[3] = { 300, 1000, -1 };

	cr_assert_geq(fd, 0);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 1001)
		high[2] = (int)(rl.rlim_cur > 65536 ? 65535 : rl.rlim_cur - 1);
	for (int i = 0; i < 3; i++)
		if (high[i] >= 0 && (rlim_t)high[i] < rl.rlim_cur)
			cr_assert_eq(dup2(fd, high[i]), high[i], "dup2 to %d: %s", high[i],
				     strerror(errno));
	run_probe(&r, NULL, NULL, "fd_inherited", NULL);
	for (int i = 0; i < 3; i++)
		if (high[i] >= 0)
			close(high[i]);
	close(fd);
	expect_blocked(&r);
	sbx_result_free(&r);
}

/*
 * Attack: closing inherited fds needs a free fd (opendir /proc/self/fd);
 * at EMFILE a careless runner skips the close and leaks them all.  sbx
 * starts under `ulimit -n 64` with fds 3-59 open (a python wrapper; the
 * last 4 are left so that the dynamic loader can still map sbx's libraries
 * -- with none left, ld.so fails before sbx runs).  sbx closes what it
 * inherited before it opens anything, so the run must succeed with only
 * 0-2 in the program (it used to fail with EMFILE at its first pipe).
 */
Test(probes_fds_env, only_fds_0_1_2_reach_the_program_when_sbx_starts_at_emfile)
{
	struct sbx_result r;
	char *dir = make_temp_dir(), *wrapper = xasprintf("%s/sbx-emfile", dir);
	char *real = xasprintf("SBX_REAL=%s", sbx_path());
	FILE *f = fopen(wrapper, "w");

	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: /usr/bin/python3 is needed for the EMFILE wrapper");
	cr_assert(f);
	fputs("#!/usr/bin/python3\n"
	      "import os, resource, sys\n"
	      "resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))\n"
	      "fd = 0\n"
	      "while fd < 59:\n"
	      "    fd = os.open('/dev/null', os.O_RDONLY)\n"
	      "    os.set_inheritable(fd, True)\n"
	      "sbx = os.environ['SBX_REAL']\n"
	      "os.execv(sbx, [sbx] + sys.argv[1:])\n", f);
	fclose(f);
	chmod(wrapper, 0755);
	setenv("SBX", wrapper, 1); /* this test's own process: run_probe now starts the wrapper */
	run_probe(&r, &(struct sbx_opts){ .env = SBX_ARGV(real) }, NULL, "fd_inherited", NULL);
	cr_assert(!r.timed_out, "sbx hung at EMFILE: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), "fds leaked into the jail: " PROBE_REPORT(&r));
	expect_blocked(&r);
	rm_tree(dir);
	free(dir);
	free(wrapper);
	free(real);
	sbx_result_free(&r);
}

/* Attack: exhausting descriptors (kernel memory) without bound; EMFILE must come at --nofile. */
Test(probes_fds_env, opening_files_hits_emfile_at_the_nofile_limit)
{
	struct sbx_result r;
	int opens = -1, highest = -1;

	run_probe(&r, NULL, SBX_ARGV("--nofile", "64"), "fd_emfile", SBX_ARGV("100000"));
	expect_blocked(&r);
	sscanf(verdict_of(&r), "BLOCKED: EMFILE after %d opens, highest fd %d", &opens, &highest);
	cr_assert_eq(highest, 63, "highest fd %d under --nofile 64: " PROBE_REPORT(&r), highest);
	cr_assert(r.record && !strcmp(rec_str(&r, "status"), "ok"), PROBE_REPORT(&r));
	sbx_result_free(&r);
}

/* Attack: host secrets in the environment (tokens, agent sockets) and loader injection. */
Test(probes_fds_env, host_canary_variables_are_absent)
{
	struct sbx_result r;
	struct sbx_opts o = { .env = SBX_ARGV("SECRET_TOKEN=sbx-canary-token", "SSH_AUTH_SOCK=/tmp/agent.sock",
					      "LD_PRELOAD=/nonexistent.so", "SBX_CANARY=1",
					      "AWS_SECRET_ACCESS_KEY=sbx-canary-aws") };

	run_probe(&r, &o, NULL, "env_canary", NULL);
	expect_blocked(&r);
	cr_assert(!strstr(r.out, "sbx-canary"), "a canary value was printed: " PROBE_REPORT(&r));
	sbx_result_free(&r);
}

/* Attack: reading the caller's input (or its terminal) from inside. */
Test(probes_fds_env, stdin_is_at_eof)
{
	struct sbx_result r;
	struct sbx_opts o = { .stdin_data = "caller-input\n", .stdin_len = 13 };

	run_probe(&r, &o, NULL, "stdin_eof", NULL);
	expect_blocked(&r);
	sbx_result_free(&r);
}
