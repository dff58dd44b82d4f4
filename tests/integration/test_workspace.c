/*
 * test_workspace.c - the workspace on every exit path: disposable and
 * removed, persistent and locked,
 * the record's "files" and its truncation, -o, and programs that plant
 * symlinks and FIFOs to lead the host side astray.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A private TMPDIR for one test, so leftovers can be counted exactly. */
struct private_tmp {
	char *dir, *env0;
	const char *env[2];
	struct sbx_opts opts;
};

static void private_tmp_init(struct private_tmp *t)
{
	t->dir = make_temp_dir();
	t->env0 = xasprintf("TMPDIR=%s", t->dir);
	t->env[0] = t->env0;
	t->env[1] = NULL;
	t->opts = (struct sbx_opts){ .env = t->env };
}

static void private_tmp_done(struct private_tmp *t)
{
	cr_assert_eq(count_entries(t->dir), 0, "sbx left something in its TMPDIR");
	rm_tree(t->dir);
	free(t->dir);
	free(t->env0);
}

/* A --workdir the jailed program can write: as root it is host uid 65534. */
static char *make_workdir(void)
{
	char *dir = make_temp_dir();

	if (geteuid() == 0)
		cr_assert_eq(chown(dir, 65534, 65534), 0);
	return dir;
}

static cJSON *find_file(const struct sbx_result *r, const char *path)
{
	cJSON *files = cJSON_GetObjectItem(r->record, "files"), *f;

	cJSON_ArrayForEach(f, files)
		if (!strcmp(cJSON_GetObjectItem(f, "path")->valuestring, path))
			return f;
	return NULL;
}

/* ---- lifetime ------------------------------------------------------------------ */

/* Run 1 writes, run 2 reads; /tmp never persists. */
Test(workspace, workdir_persists_between_runs_and_tmp_does_not)
{
	struct sbx_result r;
	char *wd = make_workdir();

	REQUIRE_USERNS();
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", wd), "echo kept > note; echo gone > /tmp/t");
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", wd), "cat note; ls /tmp");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "kept\n");
	sbx_result_free(&r);
	/* the files belong to the user the jail runs as on the host */
	char *note = xasprintf("%s/note", wd);
	struct stat st;
	cr_assert_eq(stat(note, &st), 0);
	cr_assert_eq(st.st_uid, geteuid() == 0 ? 65534 : geteuid());
	free(note);
	rm_tree(wd);
	free(wd);
}

/* Run B sees nothing of run A. */
Test(workspace, disposable_workspace_is_fresh_each_run)
{
	struct sbx_result r;
	struct private_tmp t;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	sbx_run_sh(&r, &t.opts, NULL, "echo a > left; pwd");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "/mnt/data\n");
	sbx_result_free(&r);
	sbx_run_sh(&r, &t.opts, NULL, "ls -A");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "");
	sbx_result_free(&r);
	private_tmp_done(&t);
}

Test(workspace, disposable_workspace_is_removed_after_a_timeout)
{
	struct sbx_result r;
	struct private_tmp t;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("--time", "500ms"),
	   "mkdir -p a/b; chmod 000 a; echo x > f; sleep 30");
	ASSERT_STATUS(&r, "timeout");
	sbx_result_free(&r);
	private_tmp_done(&t);
}

Test(workspace, disposable_workspace_is_removed_after_a_setup_error)
{
	struct sbx_result r;
	struct private_tmp t;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("--bind", "/nonexistent-sbx-src:/x"), "true");
	cr_assert_eq(r.exit_status, 125);
	sbx_result_free(&r);
	private_tmp_done(&t);
}

/*
 * Start sbx with ARGV (argv[0] included), its stdout on a pipe, and return
 * once the program in the jail printed "ready": the run is then live (its
 * workspace made, its files written), not merely forked.  STDIN_FD, when
 * >= 0, is sbx's stdin; *OUT gets the pipe's read end.
 */
static pid_t start_until_ready(const char *tmpdir, const char *const *argv, int stdin_fd,
			       int *out)
{
	int p[2];
	char got[64] = "";
	size_t len = 0;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(p[1], 1);
		dup2(null, 2);
		dup2(stdin_fd >= 0 ? stdin_fd : null, 0);
		if (tmpdir)
			setenv("TMPDIR", tmpdir, 1);
		execv(sbx_path(), (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	/* a bound for a hang, not a timing: the line comes as the run starts */
	struct pollfd pf = { .fd = p[0], .events = POLLIN };
	while (!strstr(got, "ready\n")) {
		cr_assert(len < sizeof(got) - 1 && poll(&pf, 1, 60000) == 1,
			  "the run did not start: %s", got);
		ssize_t n = read(p[0], got + len, sizeof(got) - 1 - len);
		cr_assert(n > 0, "sbx ended before its program was ready: %s", got);
		len += (size_t)n;
		got[len] = '\0';
	}
	*out = p[0];
	return pid;
}

Test(workspace, disposable_workspace_is_removed_after_sigint)
{
	struct private_tmp t;
	int status, out;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	pid_t pid = start_until_ready(t.dir, (const char *const[]){ "sbx", "run", "--",
		"/bin/sh", "-c", "mkdir d; echo x > d/f; echo ready; exec sleep 60", NULL },
		-1, &out);
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	close(out);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
	private_tmp_done(&t);
}

/* SIGKILL cannot be handled: the disposable workspace is a tmpfs in the
 * jail, so nothing of it is on the host while the run lasts, nor after
 * sbx is killed (the old host directory stayed until the next run). */
Test(workspace, a_killed_sbx_leaves_no_workspace_on_the_host)
{
	struct private_tmp t;
	int status, out;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	pid_t pid = start_until_ready(t.dir, (const char *const[]){ "sbx", "run", "--",
		"/bin/sh", "-c", "mkdir d; echo x > d/f; echo ready; exec sleep 60", NULL },
		-1, &out);
	cr_assert_eq(count_entries(t.dir), 0, "the live run has a workspace in $TMPDIR");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(out);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
	private_tmp_done(&t);
}

/* The tmpfs bounds the total: many files each within --fsize fill it
 * (WS_TMPFS_FILES x the file-size limit, at least 64 MiB), never the
 * host's $TMPDIR file system. */
Test(workspace, disposable_workspace_has_a_total_size_bound)
{
	struct sbx_result r;
	struct private_tmp t;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	t.opts.deadline_s = 90; /* 80 writes took over 20 s under emulation */
	sbx_run_sh(&r, &t.opts, SBX_ARGV("--fsize", "1m", "--time", "60s"),
		   "for i in $(seq 1 80); do head -c 1048576 /dev/zero > f$i 2>/dev/null || "
		   "{ echo full at $i; exit 3; }; done");
	ASSERT_STATUS(&r, "nonzero-exit");
	cr_assert_eq(r.exit_status, 3, "80 MiB fit in the workspace; out: %s", r.out);
	cr_assert(strstr(r.out, "full at 6"), "full too early or late: %s", r.out);
	sbx_result_free(&r);
	private_tmp_done(&t);
}

/* ---- concurrency ------------------------------------------------------------------- */

/* Runs that start while others end share $TMPDIR/sbx-UID, which the last
 * one out removes: a run that found it a moment before it vanished used
 * to fail with "not a private directory" (1 in ~2000 under xargs -P 2; this
 * burst caught it about one time in three). */
Test(workspace, parallel_bursts_share_the_workspace_parent_safely)
{
	struct private_tmp t;
	char *cmd, line[4096] = "";

	REQUIRE_USERNS();
	private_tmp_init(&t);
	cmd = xasprintf("seq 1 600 | TMPDIR='%s' xargs -P 8 -I{} sh -c "
			"\"'%s' run -q -- /bin/true || echo FAIL\" 2>&1", t.dir, sbx_path());
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(line, 1, sizeof(line) - 1, p);
	line[n] = '\0';
	pclose(p);
	cr_assert_str_eq(line, "", "some runs failed:\n%s", line);
	free(cmd);
	private_tmp_done(&t);
}

/* A second run on a busy --workdir fails fast. */
Test(workspace, concurrent_run_on_one_workdir_is_busy)
{
	struct sbx_result r;
	char *wd = make_workdir();
	int status, out, hold[2];

	REQUIRE_USERNS();
	/* the first run lasts until the test closes its stdin */
	cr_assert_eq(pipe2(hold, O_CLOEXEC), 0);
	pid_t pid = start_until_ready(NULL, (const char *const[]){ "sbx", "run", "--stdin", "-",
		"-w", wd, "--", "/bin/sh", "-c", "echo ready; read x; exit 0", NULL }, hold[0], &out);
	close(hold[0]);
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", wd), "echo second");
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(rec_str(&r, "message"), "workspace busy"), "%s", rec_str(&r, "message"));
	cr_assert_lt(r.elapsed_s, 2.0, "it must fail fast, not wait");
	sbx_result_free(&r);
	close(hold[1]);
	waitpid(pid, &status, 0);
	close(out);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	/* the lock went with the first run */
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", wd), "echo free");
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
	rm_tree(wd);
	free(wd);
}

/* 16 runs at once: each sees and reports only its own files. */
Test(workspace, sixteen_parallel_runs_see_only_their_own_files)
{
	struct private_tmp t;
	pid_t pids[16];
	int pipes[16][2];

	REQUIRE_USERNS();
	private_tmp_init(&t);
	for (int i = 0; i < 16; i++) {
		cr_assert_eq(pipe(pipes[i]), 0);
		pids[i] = fork();
		if (pids[i] == 0) {
			char *script = xasprintf("echo %d > mine-%d; sleep 0.3; ls", i, i);
			int null = open("/dev/null", O_WRONLY);
			dup2(pipes[i][1], 1);
			dup2(null, 2);
			setenv("TMPDIR", t.dir, 1);
			execl(sbx_path(), "sbx", "run", "--", "/bin/sh", "-c", script, (char *)NULL);
			_exit(127);
		}
		close(pipes[i][1]);
	}
	for (int i = 0; i < 16; i++) {
		char buf[256] = "", *want = xasprintf("mine-%d\n", i);
		ssize_t n = read(pipes[i][0], buf, sizeof(buf) - 1);
		int status;

		buf[n > 0 ? n : 0] = '\0';
		waitpid(pids[i], &status, 0);
		close(pipes[i][0]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d: %d", i, status);
		cr_assert_str_eq(buf, want, "run %d saw: %s", i, buf);
		free(want);
	}
	private_tmp_done(&t);
}

/* ---- the record's files ------------------------------------------------------------------ */

Test(files, nested_paths_and_changes_are_listed)
{
	struct sbx_result r;
	char *wd = make_workdir();
	char *in = xasprintf("%s/input.txt", wd), *old = xasprintf("%s/old.txt", wd);
	FILE *f;

	REQUIRE_USERNS();
	cr_assert_not_null(f = fopen(in, "w"));
	fputs("in\n", f);
	fclose(f);
	cr_assert_not_null(f = fopen(old, "w"));
	fclose(f);
	if (geteuid() == 0)
		cr_assert_eq(chown(in, 65534, 65534) | chown(old, 65534, 65534), 0);
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", wd),
	   "mkdir -p a b/c; echo 1 > a/notes.md; echo 22 > b/c/notes.md; "
	   "echo more >> input.txt; rm old.txt");
	ASSERT_STATUS(&r, "ok");
	cJSON *a = find_file(&r, "a/notes.md"), *b = find_file(&r, "b/c/notes.md");
	cr_assert(a && b, "files: %s", r.err);
	cr_assert_str_eq(cJSON_GetObjectItem(a, "change")->valuestring, "created");
	cr_assert_eq(cJSON_GetObjectItem(b, "bytes")->valuedouble, 3);
	cr_assert_str_eq(cJSON_GetObjectItem(find_file(&r, "input.txt"), "change")->valuestring,
			 "changed");
	cr_assert_str_eq(cJSON_GetObjectItem(find_file(&r, "old.txt"), "change")->valuestring,
			 "deleted");
	cr_assert_null(cJSON_GetObjectItem(r.record, "artifact_truncation"));
	sbx_result_free(&r);
	rm_tree(wd);
	free(in);
	free(old);
	free(wd);
}

/* A 10,000-file tree: bounded scan, truncation reported. */
Test(files, a_10000_file_tree_reports_truncation)
{
	struct sbx_result r;
	struct private_tmp t;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	t.opts.deadline_s = 200; /* 30 s was hit at load 18: the limit is not what is tested */
	sbx_run_sh(&r, &t.opts, SBX_ARGV("--time", "3m", "--cpu", "1m"),
	   "for d in 0 1 2 3 4 5 6 7 8 9; do mkdir d$d; (cd d$d && "
	   "seq 1 1000 | xargs touch); done");
	ASSERT_STATUS(&r, "ok");
	cJSON *files = cJSON_GetObjectItem(r.record, "files");
	cJSON *tr = cJSON_GetObjectItem(r.record, "artifact_truncation");
	cr_assert(cJSON_IsArray(files) && cJSON_GetArraySize(files) > 0);
	cr_assert_lt(cJSON_GetArraySize(files), 10000);
	cr_assert(cJSON_IsObject(tr), "no artifact_truncation");
	cJSON *reasons = cJSON_GetObjectItem(tr, "reasons");
	cr_assert_gt(cJSON_GetObjectItem(reasons, "file_count")->valuedouble, 0);
	cr_assert_gt(cJSON_GetObjectItem(tr, "skipped_count")->valuedouble, 0);
	cr_assert_leq(cJSON_GetArraySize(cJSON_GetObjectItem(tr, "skipped")), 20);
	sbx_result_free(&r);
	private_tmp_done(&t);
}

/* ---- -o and hostile workspaces ------------------------------------------------------------------ */

/*
 * The program plants leak -> /etc, up -> .., a FIFO and a link inside a
 * directory: -o copies only the regular files, never through a link, and
 * never blocks on the FIFO; cleanup removes the links, not their targets.
 */
Test(files, planted_symlinks_and_fifo_neither_leak_nor_block)
{
	struct sbx_result r;
	struct private_tmp t;
	char *out = make_temp_dir();
	char *leak = xasprintf("%s/leak", out), *passwd = xasprintf("%s/leak/passwd", out);
	char *real = xasprintf("%s/d/real.txt", out), *outfifo = xasprintf("%s/fifo", out);
	struct stat st;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("-o", out),
	   "ln -s /etc leak; ln -s .. up; mkfifo fifo; mkdir d; echo ok > d/real.txt; "
	   "ln -s /etc/passwd d/pw; ln -s ../../.. d/upup");
	ASSERT_STATUS(&r, "ok");
	cr_assert_lt(r.elapsed_s, 10.0);
	cr_assert_str_eq(cJSON_GetObjectItem(find_file(&r, "leak"), "kind")->valuestring, "symlink");
	cr_assert_str_eq(cJSON_GetObjectItem(find_file(&r, "fifo"), "kind")->valuestring, "fifo");
	cr_assert_eq(lstat(real, &st), 0, "d/real.txt was not copied out");
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_neq(lstat(leak, &st), 0, "a symlink was copied out");
	cr_assert_neq(stat(passwd, &st), 0);
	cr_assert_neq(lstat(outfifo, &st), 0, "a FIFO was copied out");
	cr_assert_eq(stat("/etc/passwd", &st), 0, "cleanup followed a link");
	sbx_result_free(&r);
	private_tmp_done(&t);
	rm_tree(out);
	free(out);
	free(leak);
	free(passwd);
	free(real);
	free(outfifo);
}

/* -o copies created and changed files, not unchanged inputs. */
Test(files, out_copies_new_and_changed_files_only)
{
	struct sbx_result r;
	struct private_tmp t;
	char *src = make_temp_dir(), *out = make_temp_dir();
	char *in = xasprintf("%s/in.txt", src), *got_in = xasprintf("%s/in.txt", out);
	char *got_new = xasprintf("%s/sub/new.txt", out);
	struct stat st;
	FILE *f;

	REQUIRE_USERNS();
	private_tmp_init(&t);
	cr_assert_not_null(f = fopen(in, "w"));
	fputs("input\n", f);
	fclose(f);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("-f", in, "-o", out), "mkdir sub; cat in.txt > sub/new.txt");
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(stat(got_new, &st), 0);
	cr_assert_eq(st.st_size, 6);
	cr_assert_neq(stat(got_in, &st), 0, "an unchanged input was copied out");
	sbx_result_free(&r);
	private_tmp_done(&t);
	rm_tree(src);
	rm_tree(out);
	free(src);
	free(out);
	free(in);
	free(got_in);
	free(got_new);
}

Test(files, file_names_that_are_not_names_are_config_errors)
{
	struct sbx_result r;
	struct private_tmp t;

	private_tmp_init(&t);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("-f", ".."), "true");
	ASSERT_STATUS(&r, "config-error");
	sbx_result_free(&r);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("-f", "/"), "true");
	ASSERT_STATUS(&r, "config-error");
	sbx_result_free(&r);
	sbx_run_sh(&r, &t.opts, SBX_ARGV("-f", ""), "true");
	ASSERT_STATUS(&r, "config-error");
	sbx_result_free(&r);
	private_tmp_done(&t);
}
