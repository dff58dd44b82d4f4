/*
 * test_iface_workspace.c - TMPDIR is part of sbx's interface (issue 11
 * item 11): with a TMPDIR another user can write to, a rename/symlink race
 * on sbx-UID left the workspace (and the -f inputs) behind in 184 of 300
 * root runs, because mkdtemp and rmdir re-resolved paths after the parent
 * was checked by fd.  The workspace is now made and removed beneath opened
 * directories, and root refuses a TMPDIR another user can rename entries
 * of.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OTHER_UID 65534
#define INPUT_NAME "input-h7.txt"

#define REQUIRE_ROOT()                                                        \
	do {                                                                  \
		if (geteuid() != 0)                                           \
			cr_skip_test("SKIP: needs root (the racer must be "   \
				     "another user)");                        \
	} while (0)

/* ---- what is left behind --------------------------------------------- */

static int leftovers;

static int count_ours(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	(void)st;
	(void)flag;
	if (!strncmp(base, "ws-", 3) || !strcmp(base, INPUT_NAME))
		leftovers++;
	return 0;
}

/* Workspaces and inputs anywhere under DIR (symlinks are not followed). */
static int count_leftovers(const char *dir)
{
	leftovers = 0;
	nftw(dir, count_ours, 16, FTW_PHYS);
	return leftovers;
}

static char *make_input(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, INPUT_NAME);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs("secret input\n", f);
	fclose(f);
	return path;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the racer ---------------------------------------------------------- */

/*
 * Another user (uid 65534) in TMPDIR: rename sbx-0 away and plant a
 * symlink sbx-0 -> VICTIM, over and over, until killed.
 */
static pid_t start_racer(const char *tmp, const char *victim)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid > 0)
		return pid;
	if (setgroups(0, NULL) < 0 || setgid(OTHER_UID) < 0 || setuid(OTHER_UID) < 0)
		_exit(1);
	char *sbx = xasprintf("%s/sbx-0", tmp);
	for (unsigned long i = 0;; i++) {
		char moved[4096];

		snprintf(moved, sizeof(moved), "%s/moved-%lu", tmp, i % 64);
		(void)rename(sbx, moved);
		if (symlink(victim, sbx) == 0) {
			usleep(300);
			(void)unlink(sbx); /* its own symlink: let some runs start */
		}
		usleep(100);
	}
}

static void stop(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* What one race saw: counted before cleanup, asserted after it. */
struct race {
	int runs, ok, refused, other, victim_entries, left;
	char other_err[512];
};

/* One root run with a -f input in TMPDIR (ENV); counts its outcome in RC. */
static void race_one(struct race *rc, const char *const *env, const char *input)
{
	struct sbx_result r;
	const char *st;

	sbx_run(&r, &(struct sbx_opts){ .env = env },
		SBX_ARGV("run", "-f", input, "--", "/bin/cat", INPUT_NAME));
	st = r.record ? rec_str(&r, "status") : NULL;
	if (st && !strcmp(st, "ok"))
		rc->ok++;
	else if (st && !strcmp(st, "setup-error") && strstr(r.err, "sticky"))
		rc->refused++;
	else if (!st || strcmp(st, "setup-error")) { /* a refused planted name is fine */
		snprintf(rc->other_err, sizeof(rc->other_err), "%.400s (rc %d)", r.err,
			 r.exit_status);
		rc->other++;
	}
	rc->runs++;
	sbx_result_free(&r);
}

/*
 * 100+ root runs with a -f input while the racer works on TMPDIR (mode
 * TMP_MODE), bounded in time; then what is left anywhere.
 */
static struct race race_runs(mode_t tmp_mode)
{
	char *tmp = make_temp_dir(), *victim = make_temp_dir(), *src = make_temp_dir();
	char *input = make_input(src), *env0 = xasprintf("TMPDIR=%s", tmp);
	const char *env[] = { env0, NULL };
	struct race rc = { 0 };
	double start = now_s();
	pid_t racer;

	cr_assert_eq(chmod(tmp, tmp_mode), 0);
	cr_assert_eq(chown(victim, OTHER_UID, OTHER_UID), 0);
	racer = start_racer(tmp, victim);
	/* at least 100 runs, more while under 5 s; never past 30 s */
	while (rc.runs < 100 || (rc.runs < 300 && now_s() - start < 5)) {
		race_one(&rc, env, input);
		if (now_s() - start > 30)
			break;
	}
	stop(racer);
	cr_log_info("race: %d ok, %d refused of %d runs", rc.ok, rc.refused, rc.runs);
	rc.victim_entries = count_entries(victim);
	rc.left = count_leftovers(tmp);
	rm_tree(tmp);
	rm_tree(victim);
	rm_tree(src);
	free(tmp);
	free(victim);
	free(src);
	free(input);
	free(env0);
	return rc;
}

static void assert_nothing_left(const struct race *rc)
{
	cr_assert_eq(rc->other, 0, "%d runs ended otherwise, e.g. %s", rc->other, rc->other_err);
	cr_assert_eq(rc->victim_entries, 0, "sbx created something through the racer's symlink");
	cr_assert_eq(rc->left, 0, "%d workspaces or inputs were left behind", rc->left);
}

/* ---- the tests ---------------------------------------------------------- */

/*
 * A world-writable TMPDIR without the sticky bit: another user can rename
 * sbx-0 and plant a symlink in its place at any moment.  Root refuses it,
 * and every run of the race leaves nothing behind.
 */
Test(iface_workspace, racer_in_a_non_sticky_tmpdir_leaves_nothing_behind)
{
	struct race rc;

	REQUIRE_ROOT();
	REQUIRE_USERNS();
	rc = race_runs(0777);
	assert_nothing_left(&rc);
	cr_assert_eq(rc.ok, 0, "%d runs used a TMPDIR others can rename entries of", rc.ok);
	cr_assert_eq(rc.refused, rc.runs);
}

/*
 * The sticky case (/tmp): others cannot rename sbx-0, only plant a name
 * while it is absent.  Runs either work or refuse the planted name, and
 * nothing is ever created through it or left behind.
 */
Test(iface_workspace, racer_in_a_sticky_tmpdir_leaves_nothing_behind)
{
	struct race rc;

	REQUIRE_ROOT();
	REQUIRE_USERNS();
	rc = race_runs(01777);
	assert_nothing_left(&rc);
	cr_assert_gt(rc.ok, 0, "no run succeeded in a sticky TMPDIR");
	cr_assert_eq(rc.refused, 0);
}

/* The clear message: which directory, why, what to do. */
Test(iface_workspace, root_refuses_a_tmpdir_below_a_non_sticky_world_writable_dir)
{
	struct sbx_result r;
	char *top = make_temp_dir(), *sub = xasprintf("%s/sub", top);
	char *env0 = xasprintf("TMPDIR=%s", sub);
	const char *env[] = { env0, NULL };

	REQUIRE_ROOT();
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(chmod(top, 0777), 0);
	sbx_run(&r, &(struct sbx_opts){ .env = env }, SBX_ARGV("run", "--", "/bin/true"));
	int made = count_entries(sub);
	rm_tree(top);
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, top) && strstr(r.err, "sticky") && strstr(r.err, "TMPDIR"),
		  "stderr: %s", r.err);
	cr_assert_eq(made, 0, "something was created in the refused TMPDIR");
	sbx_result_free(&r);
	free(top);
	free(sub);
	free(env0);
}

/*
 * While the program runs, sbx-UID is renamed away and a symlink to
 * another directory takes its name: removal by path then missed the
 * workspace (and the -f input) and looked inside the symlink's target.
 * Removal goes by fd: the workspace goes, the target is untouched.
 */
Test(iface_workspace, workspace_is_removed_even_when_its_parent_is_renamed_mid_run)
{
	struct sbx_result r;
	char *tmp = make_temp_dir(), *victim = make_temp_dir(), *src = make_temp_dir();
	char *input = make_input(src), *env0 = xasprintf("TMPDIR=%s", tmp);
	char *parent = xasprintf("%s/sbx-%u", tmp, (unsigned)geteuid());
	char *moved = xasprintf("%s/moved", tmp);
	const char *env[] = { env0, NULL };
	int status;
	pid_t pid;

	REQUIRE_USERNS();
	if (geteuid() == 0)
		cr_assert_eq(chown(victim, OTHER_UID, OTHER_UID), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) { /* wait for the program, then swap the parent's name */
		for (int i = 0; i < 2000; i++) {
			DIR *d = opendir(parent);
			struct dirent *e;
			char *ready = NULL;

			while (d && (e = readdir(d)))
				if (!strncmp(e->d_name, "ws-", 3))
					ready = xasprintf("%s/%s/ready", parent, e->d_name);
			if (d)
				closedir(d);
			if (ready && access(ready, F_OK) == 0) {
				char *go = xasprintf("%s/%s", moved, ready + strlen(parent) + 1);
				go[strlen(go) - 5] = '\0';
				strcat(go, "go");
				_exit(rename(parent, moved) == 0 && symlink(victim, parent) == 0 &&
				      close(open(go, O_CREAT | O_WRONLY, 0644)) == 0 ? 0 : 2);
			}
			free(ready);
			usleep(5000);
		}
		_exit(3);
	}
	sbx_run(&r, &(struct sbx_opts){ .env = env },
		SBX_ARGV("run", "-f", input, "--", "/bin/sh", "-c",
			 "touch ready; i=0; while [ ! -e go ] && [ $i -lt 1000 ]; do sleep 0.01; "
			 "i=$((i+1)); done; test -e go"));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	int victim_entries = count_entries(victim), left = count_leftovers(tmp);
	const char *st = r.record ? rec_str(&r, "status") : NULL;
	bool ran = st && !strcmp(st, "ok");
	unlink(parent);
	rm_tree(tmp);
	rm_tree(victim);
	rm_tree(src);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the racer failed (%d)", status);
	cr_assert(ran, "status %s; stderr: %s", st ? st : "(none)", r.err);
	cr_assert_eq(victim_entries, 0, "sbx worked through the planted symlink");
	cr_assert_eq(left, 0, "the workspace or its input was left behind");
	sbx_result_free(&r);
	free(tmp);
	free(victim);
	free(src);
	free(input);
	free(env0);
	free(parent);
	free(moved);
}
