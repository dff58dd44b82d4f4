/*
 * test_rootuid.c - run by root, each jail is a host uid of its own and the
 * caller's files stay the caller's.
 *
 * Root only: an unprivileged caller's jail maps the caller itself, which
 * these tests leave alone (each SKIPs with the reason as another user).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define REQUIRE_ROOT()                                                        \
	do {                                                                  \
		REQUIRE_USERNS();                                             \
		if (geteuid() != 0)                                           \
			cr_skip_test("SKIP: needs root (an unprivileged "     \
				     "caller's jail is the caller's own uid)"); \
	} while (0)

/* The host uid a jail's uid_map line ("65534 H 1") names; 0 when none. */
static unsigned long host_uid_of(const char *map_line)
{
	unsigned long in = 0, out = 0, n = 0;

	if (sscanf(map_line, "%lu %lu %lu", &in, &out, &n) != 3 || n != 1)
		return 0;
	return out;
}

static bool uid_in_passwd(unsigned long uid)
{
	struct passwd *pw;
	bool found = false;

	setpwent();
	while ((pw = getpwent()) != NULL)
		found = found || pw->pw_uid == uid;
	endpwent();
	return found;
}

/* sbx run in the background, its stdout on a pipe; the pid. */
static pid_t start_sbx(const char *const argv[], int *out_fd)
{
	int p[2];
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(p[1], 1);
		dup2(null, 2);
		dup2(null, 0);
		close(p[0]);
		execv(sbx_path(), (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	*out_fd = p[0];
	return pid;
}

/* One line from FD (blocking, generous). */
static void read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap && read(fd, buf + n, 1) == 1 && buf[n] != '\n')
		n++;
	buf[n] = '\0';
}

/* Two jails alive at once (each waits for the other's marker in a shared
 * -B directory) have two host uids, neither 65534 nor a host account's. */
Test(rootuid, concurrent_jails_get_different_uids_of_no_account)
{
	char *dir, *bind, line[2][128];
	int fd[2], status;
	pid_t pid[2];

	REQUIRE_ROOT();
	dir = make_temp_dir();
	bind = xasprintf("%s", dir);
	for (int i = 0; i < 2; i++) {
		char *script = xasprintf("read a b c < /proc/self/uid_map; echo $a $b $c; "
					 "touch %s/m%d; n=0; while [ ! -e %s/m%d ] && "
					 "[ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done",
					 dir, i, dir, 1 - i);
		pid[i] = start_sbx(SBX_ARGV("sbx", "run", "-q", "--time", "90s", "-B", bind,
					    "--", "/bin/sh", "-c", script), &fd[i]);
		free(script);
	}
	for (int i = 0; i < 2; i++) {
		read_line(fd[i], line[i], sizeof(line[i]));
		close(fd[i]);
		waitpid(pid[i], &status, 0);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d: %d", i, status);
	}
	unsigned long a = host_uid_of(line[0]), b = host_uid_of(line[1]);
	cr_assert(a && b, "uid_map lines: '%s' '%s'", line[0], line[1]);
	cr_assert_neq(a, b, "two live jails share host uid %lu", a);
	for (int i = 0; i < 2; i++) {
		unsigned long u = i ? b : a;
		cr_assert_neq(u, 65534, "a jail is host uid 65534 (nobody)");
		cr_assert(!uid_in_passwd(u), "host uid %lu is in /etc/passwd", u);
	}
	rm_tree(dir);
	free(bind);
	free(dir);
}

/* The record says which host uid the jail had; the uid_map agrees. */
Test(rootuid, record_names_the_host_uid)
{
	struct sbx_result r;

	REQUIRE_ROOT();
	sbx_run_sh(&r, NULL, NULL, "read a b c < /proc/self/uid_map; echo $b");
	ASSERT_STATUS(&r, "ok");
	cJSON *iso = cJSON_GetObjectItem(r.record, "isolation");
	cJSON *hu = cJSON_GetObjectItem(iso, "host_uid"), *hg = cJSON_GetObjectItem(iso, "host_gid");
	cr_assert(cJSON_IsNumber(hu) && cJSON_IsNumber(hg), "isolation: no host_uid/gid");
	cr_assert_eq((unsigned long)hu->valuedouble, strtoul(r.out, NULL, 10), "out: %s", r.out);
	cr_assert_eq(hu->valuedouble, hg->valuedouble);
	sbx_result_free(&r);
}

/* Attack: the host's nobody daemons (uid 65534) could signal or ptrace a
 * root-run jail that was uid 65534 too.  Now they cannot reach it. */
Test(rootuid, a_host_nobody_process_cannot_signal_the_jail)
{
	char line[128], path[64], buf[4096];
	int fd, status;
	pid_t sbx, victim = 0;

	REQUIRE_ROOT();
	sbx = start_sbx(SBX_ARGV("sbx", "run", "-q", "--time", "60s", "--", "/bin/sh", "-c",
				 "read a b c < /proc/self/uid_map; echo $b; exec sleep 50"), &fd);
	read_line(fd, line, sizeof(line));
	unsigned long h = strtoul(line, NULL, 10);
	cr_assert(h != 0 && h != 65534, "host uid '%s'", line);
	/* the jail's sleep, found by its host uid */
	for (int tries = 0; tries < 200 && !victim; tries++) {
		FILE *p = popen("ps -eo pid=,uid=,comm=", "r");
		while (p && fgets(buf, sizeof(buf), p)) {
			long pid = 0;
			unsigned long uid = 0;
			char comm[64];
			if (sscanf(buf, "%ld %lu %63s", &pid, &uid, comm) == 3 && uid == h &&
			    !strcmp(comm, "sleep"))
				victim = (pid_t)pid;
		}
		if (p)
			pclose(p);
		if (!victim)
			usleep(100 * 1000);
	}
	cr_assert(victim > 0, "no process of host uid %lu", h);
	pid_t nobody = fork();
	if (nobody == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(kill(victim, SIGTERM) == 0 ? 1 : errno == EPERM ? 0 : 3);
	}
	waitpid(nobody, &status, 0);
	snprintf(path, sizeof(path), "/proc/%d", (int)victim);
	bool alive = access(path, F_OK) == 0;
	kill(sbx, SIGKILL);
	waitpid(sbx, NULL, 0);
	close(fd);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "uid 65534 signalled the jail (%d)", status);
	cr_assert(alive, "the jail's program is gone");
}

/* `-B .` of a root-owned checkout (under a 0700 directory): the build
 * writes there, and on the host what it made is root's. */
Test(rootuid, bind_rw_of_a_root_checkout_writes_files_root_owns)
{
	struct sbx_result r;
	char *dir, *co, *script;
	struct stat st;

	REQUIRE_ROOT();
	dir = make_temp_dir();
	co = xasprintf("%s/private/checkout", dir);
	char *priv = xasprintf("%s/private", dir);
	cr_assert_eq(mkdir(priv, 0700), 0);
	free(priv);
	cr_assert_eq(mkdir(co, 0700), 0);
	script = xasprintf("cd %s && echo built > out.o && mkdir -p obj && echo x > obj/a", co);
	/* -B DIR as `-B .` from the checkout (the harness's sbx path is relative) */
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", "host", "-B", co, "--", "/bin/sh", "-c", script));
	ASSERT_STATUS(&r, "ok");
	char *f = xasprintf("%s/obj/a", co);
	cr_assert_eq(stat(f, &st), 0, "the build wrote nothing: %s", r.err);
	cr_assert_eq(st.st_uid, 0, "owner uid %u", (unsigned)st.st_uid);
	cr_assert_eq(st.st_gid, 0, "owner gid %u", (unsigned)st.st_gid);
	sbx_result_free(&r);
	rm_tree(dir);
	free(f);
	free(script);
	free(co);
	free(dir);
}

/* A policy's bind below a directory only root may search (root's 0700
 * home, where a checkout and the policy `sbx learn` printed for its -b
 * live): sbx opens it, the jail reads what others may read there and
 * nothing more (it is not idmapped), and a symlink on the way to it is
 * never followed by root: the jail's own uid meets the 0700 directory. */
Test(rootuid, policy_bind_below_a_0700_directory_is_bound_plain_never_through_a_link)
{
	struct sbx_result r;
	char *dir, *closed, *tree, *policy, *linked, *out;
	const char *cat = "cat /data/open; cat /data/mine 2>/dev/null || echo no-mine";
	int rc;

	REQUIRE_ROOT();
	dir = make_temp_dir();
	closed = xasprintf("%s/closed", dir);
	tree = xasprintf("%s/tree", closed);
	cr_assert_eq(mkdir(closed, 0700), 0);
	cr_assert_eq(mkdir(tree, 0755), 0);
	char *cmd = xasprintf("cd '%s' && echo open > open && chmod 0644 open && "
			      "echo mine > mine && chmod 0600 mine && "
			      "ln -s '%s' '%s/link'", tree, closed, dir);
	rc = host_sh(cmd, &out);
	cr_assert_eq(rc, 0, "%s: %s", cmd, out);
	free(out);
	free(cmd);

	policy = xasprintf("include: \"default\"\nmount { dst: \"/data\" src: \"%s\" "
			   "type: BIND }\n", tree);
	free(put_test_file(dir, "closed.policy", policy));
	free(policy);
	policy = xasprintf("%s/closed.policy", dir);
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", policy, "--", "/bin/sh", "-c", cat));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "open\nno-mine\n", "others' access only, not the owner's: %s",
			 r.err);
	sbx_result_free(&r);
	free(policy);

	/* DIR/link -> DIR/closed: the same tree, through a link */
	linked = xasprintf("include: \"default\"\nmount { dst: \"/data\" src: "
			   "\"%s/link/tree\" type: BIND }\n", dir);
	free(put_test_file(dir, "linked.policy", linked));
	policy = xasprintf("%s/linked.policy", dir);
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", policy, "--", "/bin/sh", "-c", cat));
	ASSERT_STATUS(&r, "setup-error");
	cr_assert(strstr(r.err, "Permission denied"), "%s", r.err);
	cr_assert_null(strstr(r.out, "open"), "bound through a link: %s", r.out);
	sbx_result_free(&r);
	rm_tree(dir);
	free(policy);
	free(linked);
	free(tree);
	free(closed);
	free(dir);
}

/* A root-owned --workdir (mode 0755) works across runs whatever uid each
 * gets, and its files stay root's. */
Test(rootuid, workdir_owned_by_root_works_over_three_runs)
{
	struct sbx_result r;
	char *dir = NULL, *wd, *log;
	struct stat st;

	REQUIRE_ROOT();
	dir = make_temp_dir();
	wd = xasprintf("%s/state", dir);
	cr_assert_eq(mkdir(wd, 0755), 0);
	for (int i = 1; i <= 3; i++) {
		sbx_run(&r, NULL, SBX_ARGV("run", "-w", wd, "--", "/bin/sh", "-c",
					   "echo run >> log && wc -l < log"));
		ASSERT_STATUS(&r, "ok");
		cr_assert_eq(atoi(r.out), i, "run %d: out '%s' err '%s'", i, r.out, r.err);
		sbx_result_free(&r);
	}
	log = xasprintf("%s/log", wd);
	cr_assert_eq(stat(log, &st), 0);
	cr_assert_eq(st.st_uid, 0, "owner uid %u", (unsigned)st.st_uid);
	rm_tree(dir);
	free(log);
	free(wd);
	free(dir);
}

/* A 0700 TMPDIR (pam_tmpdir, systemd, CI runners) for every kind of
 * workspace: disposable, persistent under it, and a compiled language's
 * two jails. */
Test(rootuid, private_tmpdir_works_for_every_workspace_kind)
{
	struct sbx_result r;
	char *dir, *tmp, *env, *wd, *src;
	FILE *f;

	REQUIRE_ROOT();
	dir = make_temp_dir();
	tmp = xasprintf("%s/tmp", dir);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	env = xasprintf("TMPDIR=%s", tmp);
	const char *envv[] = { env, NULL };
	struct sbx_opts o = { .env = envv, .deadline_s = 120 };

	sbx_run(&r, &o, SBX_ARGV("run", "--", "/bin/sh", "-c", "echo a > f && cat f"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "a\n");
	sbx_result_free(&r);

	wd = xasprintf("%s/wd", tmp);
	cr_assert_eq(mkdir(wd, 0700), 0);
	sbx_run(&r, &o, SBX_ARGV("run", "-w", wd, "--", "/bin/sh", "-c", "echo b > f && cat f"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "b\n");
	sbx_result_free(&r);

	if (access("/usr/bin/cc", X_OK) == 0) {
		src = xasprintf("%s/hello.c", dir);
		f = fopen(src, "w");
		cr_assert_not_null(f);
		fputs("#include <stdio.h>\nint main(void){puts(\"c\");return 0;}\n", f);
		fclose(f);
		sbx_run(&r, &o, SBX_ARGV("run", "--lang", "c", src));
		ASSERT_STATUS(&r, "ok");
		cr_assert_str_eq(r.out, "c\n");
		sbx_result_free(&r);
		free(src);
	}
	rm_tree(dir);
	free(wd);
	free(env);
	free(tmp);
	free(dir);
}

/* A filesystem that refuses idmapped mounts (ramfs): the bind works as
 * before, with one warning that names the directory and the fix. */
Test(rootuid, bind_on_a_filesystem_without_idmap_warns_once)
{
	char *dir, *mnt, *cmd, *want, out[8192] = "";
	FILE *p;

	REQUIRE_ROOT();
	if (system("unshare --help >/dev/null 2>&1") != 0)
		cr_skip_test("SKIP: needs unshare(1) for a private ramfs");
	dir = make_temp_dir();
	mnt = xasprintf("%s/ram", dir);
	cr_assert_eq(mkdir(mnt, 0755), 0);
	/* a private mount namespace: the ramfs is never seen by the host */
	cmd = xasprintf("unshare -m sh -c \"mount -t ramfs ramfs '%s' && chmod 755 '%s' && "
			"exec '%s' run -q -B '%s' -- /bin/sh -c 'echo ran'\" 2>&1",
			mnt, mnt, sbx_path(), mnt);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
	cr_assert_eq(pclose(p), 0, "output: %s", out);
	cr_assert(strstr(out, "ran\n"), "output: %s", out);
	want = xasprintf("sbx: warning: --bind-rw %s: this filesystem or kernel refused "
			 "an idmapped mount", mnt);
	char *at = strstr(out, want);
	cr_assert(at, "no warning naming the directory: %s", out);
	cr_assert(strstr(at, "put it on ext4, xfs, btrfs or tmpfs"), "no fix: %s", out);
	cr_assert_null(strstr(at + 1, "sbx: warning"), "more than one warning: %s", out);
	rm_tree(dir);
	free(want);
	free(cmd);
	free(mnt);
	free(dir);
}

/* kill -9 of sbx: the uid lock dies with it (and with the jail's init,
 * which PDEATHSIG ends), so it blocks no later run. */
Test(rootuid, kill_9_leaves_no_uid_lock_behind)
{
	char line[128], *lock;
	int fd, lfd = -1, got = -1;
	pid_t sbx;

	REQUIRE_ROOT();
	sbx = start_sbx(SBX_ARGV("sbx", "run", "-q", "--time", "60s", "--", "/bin/sh", "-c",
				 "read a b c < /proc/self/uid_map; echo $b; exec sleep 50"), &fd);
	read_line(fd, line, sizeof(line));
	unsigned long h = strtoul(line, NULL, 10);
	cr_assert(h != 0, "host uid '%s'", line);
	lock = xasprintf("/run/sbx/uid/%lu", h);
	lfd = open(lock, O_RDWR | O_CLOEXEC);
	cr_assert(lfd >= 0, "%s: %s", lock, strerror(errno));
	cr_assert_neq(flock(lfd, LOCK_EX | LOCK_NB), 0, "the live run holds no lock");
	kill(sbx, SIGKILL);
	waitpid(sbx, NULL, 0);
	close(fd);
	/* the init dies by PDEATHSIG: give it generous time */
	for (int i = 0; i < 300 && got != 0; i++) {
		got = flock(lfd, LOCK_EX | LOCK_NB);
		if (got != 0)
			usleep(100 * 1000);
	}
	cr_assert_eq(got, 0, "%s is still locked after kill -9", lock);
	close(lfd);
	free(lock);
}
