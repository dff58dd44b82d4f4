/*
 * test_probes_concurrency.c - runs do not see each other and leave nothing
 * behind: 16 parallel runs each see only their
 * own workspace; 200 runs in a row leave $TMPDIR, the process table and
 * the mount table as they were.
 */
#include "test_probes_common.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/wait.h>

TestSuite(probes_concurrency, .init = probes_require_jail);

#define PARALLEL 16

/* One run in a child process: 0 when it saw only its own token. */
static int one_parallel_run(int i)
{
	struct sbx_result r;
	char *token = xasprintf("tok-%d-%d", (int)getppid(), i);
	int bad = 0;

	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/sh", "-c",
				   "echo \"$1\" > \"$1\" && ls && echo \"token=$1\"", "sh", token));
	char *line = xasprintf("token=%s", token);
	if (r.exit_status != 0 || !strstr(r.out, line)) {
		fprintf(stderr, "run %d: exit %d\n%s\n%s\n", i, r.exit_status, r.out, r.err);
		bad = 1;
	}
	/* Any other run's token in our listing means a shared workspace. */
	for (const char *p = r.out; (p = strstr(p, "tok-")); p++)
		if (strncmp(p, token, strlen(token)) != 0 ||
		    (p[strlen(token)] != '\n' && p[strlen(token)] != '\0')) {
			fprintf(stderr, "run %d saw a foreign token: %.40s\n", i, p);
			bad = 1;
		}
	free(line);
	free(token);
	sbx_result_free(&r);
	return bad;
}

/* Attack: one job reading another's files (shared temp paths, reused workspaces). */
Test(probes_concurrency, sixteen_parallel_runs_see_only_their_own_workspace)
{
	pid_t pids[PARALLEL];
	int failed = 0, status;

	for (int i = 0; i < PARALLEL; i++) {
		pids[i] = fork();
		cr_assert(pids[i] >= 0, "fork: %s", strerror(errno));
		if (pids[i] == 0)
			_exit(one_parallel_run(i));
	}
	for (int i = 0; i < PARALLEL; i++) {
		waitpid(pids[i], &status, 0);
		failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	cr_assert_eq(failed, 0, "%d of %d parallel runs failed or saw another's files (see stderr)",
		     failed, PARALLEL);
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/* Processes whose parent is this test process (orphans come here: we are a subreaper). */
static int count_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	char path[300];

	while (d && (e = readdir(d))) {
		int ppid = -1;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) == 1 && ppid == getpid())
			n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* Attack (on the host's health): each run leaking a temp dir, a process or a mount. */
Test(probes_concurrency, two_hundred_runs_leave_nothing_behind)
{
	char *tmp = make_temp_dir(), *tmpenv = xasprintf("TMPDIR=%s", tmp);
	struct sbx_opts o = { .env = SBX_ARGV(tmpenv) };
	int mounts = count_lines("/proc/self/mountinfo");

	/* Orphans of sbx re-parent to us instead of init, so we can count them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (int i = 0; i < 200; i++) {
		struct sbx_result r;
		sbx_run(&r, &o, SBX_ARGV("run", "--", "/bin/true"));
		cr_assert_eq(r.exit_status, 0, "run %d: %s", i, r.err);
		sbx_result_free(&r);
	}
	/* at once: a run leaves nothing once its sbx has returned */
	cr_assert_eq(count_entries(tmp), 0, "sbx left %d entries in $TMPDIR %s", count_entries(tmp), tmp);
	cr_assert_eq(count_children(), 0, "%d processes outlived their sbx run", count_children());
	cr_assert_eq(count_lines("/proc/self/mountinfo"), mounts, "the host mount table changed");
	rm_tree(tmp);
	free(tmp);
	free(tmpenv);
}
