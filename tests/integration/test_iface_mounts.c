/*
 * test_iface_mounts.c - the mount options at sbx's interface: -b, -B and
 * --tmpfs destinations are held to the same
 * rules as a policy's mounts however they are spelled, binds carry their
 * submounts and keep them read-only, mounts land on the destination that
 * was checked, and --output obeys the policy's minimum.  A caller (or a
 * service passing user input into these options) is hostile.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The name messages use for OPT (its long form). */
static const char *long_name(const char *opt)
{
	return strcmp(opt, "-b") == 0 ? "--bind" : strcmp(opt, "-B") == 0 ? "--bind-rw" : opt;
}

/* OPT VALUE is refused before anything runs: 125, config-error, and a
 * message that names the option. */
static void expect_refused(const char *opt, const char *value)
{
	const char *name = long_name(opt);
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", opt, value, "--", "/bin/true"));
	cr_expect_eq(r.exit_status, 125, "%s %s: exit %d; stderr: %s", opt, value,
		     r.exit_status, r.err);
	if (r.record) {
		const char *st = rec_str(&r, "status"), *msg = rec_str(&r, "message");

		cr_expect(st && strcmp(st, "config-error") == 0, "%s %s: status %s", opt,
			  value, st ? st : "(none)");
		cr_expect(msg && strncmp(msg, name, strlen(name)) == 0,
			  "%s %s: message does not start with %s: %s", opt, value, name,
			  msg ? msg : "(none)");
	} else {
		cr_expect(strstr(r.err, name), "%s %s: stderr does not name %s: %s",
			  opt, value, name, r.err);
	}
	sbx_result_free(&r);
}

/* Each spelling of a reserved path, for each of -b, -B and --tmpfs. */
static void expect_every_option_refuses(const char *const *spellings)
{
	for (size_t i = 0; spellings[i]; i++) {
		char *bind = xasprintf("/usr:%s", spellings[i]);

		expect_refused("-b", bind);
		expect_refused("-B", bind);
		expect_refused("--bind-rw", bind);
		expect_refused("--tmpfs", spellings[i]);
		free(bind);
	}
}

/* -B /proc:/proc/ put the host's /proc over the jail's. */
Test(iface_mounts, every_spelling_of_proc_is_refused_as_a_destination)
{
	expect_every_option_refuses((const char *const[]){
		"/proc", "/proc/", "//proc", "/./proc", "/x/../proc", "/proc/.",
		"/proc//", "///proc/./", NULL });
}

Test(iface_mounts, every_spelling_of_dev_is_refused_as_a_destination)
{
	expect_every_option_refuses((const char *const[]){
		"/dev", "/dev/", "//dev", "/./dev", "/x/../dev", "/dev/.", NULL });
}

Test(iface_mounts, every_spelling_of_the_root_is_refused_as_a_destination)
{
	expect_every_option_refuses((const char *const[]){
		"/", "//", "/.", "/./", "/x/..", "/x/../", NULL });
}

/* A bind on the workspace hides the program's files and sbx's copy-out. */
Test(iface_mounts, every_spelling_of_the_workspace_is_refused_as_a_destination)
{
	expect_every_option_refuses((const char *const[]){
		"/mnt/data", "/mnt/data/", "//mnt/data", "/mnt/./data", "/mnt//data",
		"/mnt/x/../data", "/mnt/data/.", NULL });
}

/* A mount above a reserved one covers it (-B /x:/mnt after a mount inside
 * the workspace hides the workspace). */
Test(iface_mounts, a_parent_of_the_workspace_is_refused_as_a_destination)
{
	expect_refused("-B", "/usr:/mnt");
	expect_refused("--tmpfs", "/mnt/");
	expect_refused("-b", "/usr://mnt/.");
}

/* The workspace bind on "/" was a setup error (EINVAL) after the jail was
 * half built; it is a config error now, like any mount on the root. */
Test(iface_mounts, the_root_is_refused_as_the_workspace)
{
	expect_refused("--set", "workspace=/");
}

/* What the supervisor reads below the jail's /proc must be the kernel's. */
Test(iface_mounts, a_mount_below_proc_is_refused)
{
	expect_refused("-b", "/usr:/proc/sys");
	expect_refused("--tmpfs", "/proc/1");
	expect_refused("-B", "/usr:/proc//self/");
}

/* The dst defaults to the source: "-b /proc/" is "-b /proc:/proc/". */
Test(iface_mounts, a_bind_without_dst_of_proc_is_refused)
{
	expect_refused("-b", "/proc/");
	expect_refused("-B", "//proc");
}

/* Relative, ".." and non-UTF-8 destinations are refused, not guessed at. */
Test(iface_mounts, unnormalizable_destinations_are_refused)
{
	expect_refused("-b", "/usr:/a/../b");
	expect_refused("--tmpfs", "/a/..");
	expect_refused("-b", "/usr:/x\xff\xfe");
	expect_refused("--tmpfs", "/x\xc0\xaf");
}

/* A host symlink bound into the jail (merged-usr /bin -> usr/bin) is a
 * symlink there: a mount through it could land anywhere, so it is refused
 * and the message says why. */
Test(iface_mounts, a_mount_through_a_bound_symlink_is_refused)
{
	struct stat st;
	struct sbx_result r;

	REQUIRE_USERNS();
	if (lstat("/bin", &st) != 0 || !S_ISLNK(st.st_mode))
		cr_skip_test("SKIP: /bin is not a symlink on this host (not merged-usr)");
	sbx_run(&r, NULL, SBX_ARGV("run", "-b", "/etc:/bin/x", "--", "/usr/bin/true"));
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(rec_str(&r, "message"), "symlink"), "%s", rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* Harmless spellings still work, at the normalized place. */
Test(iface_mounts, a_spelled_out_destination_is_normalized)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run_sh(&r, NULL, SBX_ARGV("-b", "/usr/:/x//y/./", "--tmpfs", "/t/./u/:1M"),
	   "test -x /x/y/bin/sh && test -d /t/u && "
	   "grep -c ' /x/y \\| /t/u ' /proc/self/mountinfo");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "2\n", "stdout: %s stderr: %s", r.out, r.err);
	sbx_result_free(&r);
}

/*
 * The hostile flag once made the supervisor meter the host's processes
 * (its /proc was the host's): a 100 ms run came back cpu-limit.  It is a
 * config error now, and can never be reported as a limit.
 */
Test(iface_mounts, host_proc_over_proc_is_never_metered_as_the_jail)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "-B", "/proc:/proc/", "--cpu", "1s", "--",
				   "/bin/sleep", "0.1"));
	ASSERT_STATUS(&r, "config-error");
	cr_assert_eq(r.exit_status, 125);
	sbx_result_free(&r);
}

/* The meters read the jail's own proc: sleeping costs no CPU. */
Test(iface_mounts, a_sleeping_program_is_metered_near_zero_cpu)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--cpu", "1s", "--", "/bin/sleep", "0.1"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_lt(rec_num(&r, "cpu_user_ms") + rec_num(&r, "cpu_sys_ms"), 500.0);
	sbx_result_free(&r);
}

/* A user namespace may not bind a tree without the mounts locked under it:
 * -b /sys:/x failed with a bare "Invalid argument". */
Test(iface_mounts, a_bind_of_a_tree_with_submounts_works)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run_sh(&r, NULL, SBX_ARGV("-b", "/sys:/x"), "test -d /x/kernel && echo OK");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "OK\n", "stdout: %s stderr: %s", r.out, r.err);
	sbx_result_free(&r);
}

static bool is_mountpoint(const char *path)
{
	char line[4096], *want = xasprintf(" %s ", path);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ' ');

		/* the fifth field is the mount point */
		for (int i = 0; p && i < 3; i++)
			p = strchr(p + 1, ' ');
		found = p && strncmp(p, want, strlen(want)) == 0;
	}
	if (f)
		fclose(f);
	free(want);
	return found;
}

/* -b of a tree whose submount is a writable tmpfs: the submount must be
 * read-only too, or -b would hand out a writable host directory. */
Test(iface_mounts, a_readonly_bind_keeps_every_submount_readonly)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	if (!is_mountpoint("/dev/shm") || access("/dev/shm", W_OK) != 0)
		cr_skip_test("SKIP: no writable tmpfs mounted on /dev/shm to bind");
	sbx_run_sh(&r, NULL, SBX_ARGV("-b", "/dev:/x"),
	   "test -d /x/shm || exit 3; "
	   "echo leak > /x/shm/sbx-iface-mounts-$$ 2>/dev/null && echo WROTE; "
	   "rm -f /x/shm/sbx-iface-mounts-$$ 2>/dev/null; echo done");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "done\n", "stdout: %s stderr: %s", r.out, r.err);
	sbx_result_free(&r);
}

/* Device nodes under a bound tree do not work (nodev on every submount). */
Test(iface_mounts, device_nodes_in_a_bound_tree_do_not_open)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run_sh(&r, NULL, SBX_ARGV("-b", "/dev:/x"),
	   "head -c1 /x/zero >/dev/null 2>&1 && echo OPENED; echo done");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "done\n", "stdout: %s stderr: %s", r.out, r.err);
	sbx_result_free(&r);
}

/*
 * Every mount the program can write or bind is nosuid and nodev: a setuid
 * file or a device node in a bound directory (a host directory another
 * user fills, a checkout) gives nothing.  no_new_privs already stops
 * setuid at exec, so the mount flags are read where the program sees them:
 * the per-mount options of /proc/self/mountinfo.  Only the device nodes
 * under /dev (bound one by one, the point of which is that they open)
 * may lack nodev.
 */
Test(iface_mounts, every_mount_but_the_device_nodes_is_nosuid_and_nodev)
{
	char *ro = make_temp_dir(), *rw = make_temp_dir(), *ws = make_temp_dir();
	char *ro_arg = xasprintf("%s:/in", ro), *rw_arg = xasprintf("%s:/out", rw);
	struct sbx_result r;
	int seen = 0;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "-b", ro_arg, "-B", rw_arg, "--tmpfs", "/scratch",
				   "-w", ws, "--", "/bin/cat", "/proc/self/mountinfo"));
	ASSERT_STATUS(&r, "ok");
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		char point[256], opts[256];
		bool device;

		/* ID PARENT MAJ:MIN ROOT POINT OPTIONS ... */
		cr_assert_eq(sscanf(line, "%*s %*s %*s %*s %255s %255s", point, opts), 2,
			     "unreadable mountinfo line: %s", line);
		device = strncmp(point, "/dev/", 5) == 0 && strcmp(point, "/dev/shm") != 0 &&
			 strcmp(point, "/dev/pts") != 0 && strcmp(point, "/dev/mqueue") != 0;
		if (device)
			continue;
		seen++;
		cr_expect(strstr(opts, ",nosuid") || strncmp(opts, "nosuid", 6) == 0,
			  "%s is mounted without nosuid: %s", point, opts);
		if (strcmp(point, "/dev") != 0)
			cr_expect(strstr(opts, ",nodev") || strncmp(opts, "nodev", 5) == 0,
				  "%s is mounted without nodev: %s", point, opts);
	}
	/* /, /usr, /tmp, /proc, /dev and the four mounts asked for, at least */
	cr_assert_geq(seen, 9, "only %d mounts in the jail's table", seen);
	rm_tree(ro);
	rm_tree(rw);
	rm_tree(ws);
	free(ro);
	free(rw);
	free(ws);
	free(ro_arg);
	free(rw_arg);
	sbx_result_free(&r);
}

/* ---- mount targets are resolved once ---------------------------------- */

struct swapper {
	char *a, *b;
	atomic_bool stop;
	long swaps;
};

/* Resolved by string, about 1 run in 20 was redirected here. */
#define RACE_RUNS 150

static void *swap_loop(void *arg)
{
	struct swapper *s = arg;

	while (!atomic_load(&s->stop))
		if (renameat2(AT_FDCWD, s->a, AT_FDCWD, s->b, RENAME_EXCHANGE) == 0)
			s->swaps++;
	return NULL;
}

/*
 * A writer of a read-write bound directory (another run, another
 * user's program) swaps a component of a later mount's destination for a
 * symlink between sbx's check and its mount.  Here H/sub flips between a
 * directory and a symlink to the decoy /tmp/decoy, which during the build
 * is the new root's /decoy.  Resolved by string, the bind of SRC landed on
 * /decoy/t; onto the checked fd it lands on /w/sub/t or the run refuses
 * the symlink: the marker never shows under /decoy.
 */
Test(iface_mounts, a_swapped_component_never_redirects_a_mount, .timeout = 120)
{
	char *h = make_temp_dir(), *src = make_temp_dir();
	char *sub = xasprintf("%s/sub", h), *link = xasprintf("%s/sublink", h);
	char *t = xasprintf("%s/sub/t", h), *mark = xasprintf("%s/MARK", src);
	char *wbind = xasprintf("%s:/w", h), *sbind = xasprintf("%s:/w/sub/t", src);
	struct swapper s = { .a = sub, .b = link };
	int redirected = 0, ran = 0, tried = 0;
	pthread_t th;

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(mkdir(t, 0755), 0);
	cr_assert_eq(symlink("/tmp/decoy", link), 0);
	close(open(mark, O_CREAT | O_WRONLY, 0644));
	cr_assert_eq(pthread_create(&th, NULL, swap_loop, &s), 0);
	for (; tried < RACE_RUNS && redirected == 0; tried++) {
		struct sbx_result r;

		sbx_run_sh(&r, NULL, SBX_ARGV("--tmpfs", "/decoy/t:1M", "-B", wbind, "-b", sbind),
		   "test -e /decoy/t/MARK && echo REDIRECTED; echo done");
		if (r.out && strstr(r.out, "REDIRECTED"))
			redirected++;
		if (r.out && strstr(r.out, "done"))
			ran++;
		sbx_result_free(&r);
	}
	atomic_store(&s.stop, true);
	pthread_join(th, NULL);
	cr_assert_gt(s.swaps, 0, "the swapper never ran");
	cr_assert_eq(redirected, 0, "run %d mounted through the swapped symlink "
		     "(%d ran, %ld swaps)", tried, ran, s.swaps);
	rm_tree(h);
	rm_tree(src);
	free(h); free(src); free(sub); free(link); free(t); free(mark);
	free(wbind); free(sbind);
}

/* ---- --output obeys the policy's minimum ------------------------------- */

/* output_bytes: 10 is refused in a policy; --output 10 was accepted. */
Test(iface_mounts, output_below_the_policy_minimum_is_refused)
{
	expect_refused("--output", "10");
	expect_refused("--output", "63");
	expect_refused("--set", "limits.output_bytes=10");
}

Test(iface_mounts, output_at_the_policy_minimum_is_accepted)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--output", "64", "--", "/bin/true"));
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
}

/*
 * -b DIR:/etc and -B DIR:/etc replace the jail's /etc with the caller's
 * tree: the default policy's optional /etc/alternatives and /etc/fonts,
 * whose mount points DIR lacks, are skipped there.  With -b the run failed
 * (EROFS making a mount point: nothing ran); with -B sbx left alternatives/
 * and fonts/ in the caller's DIR.
 */
Test(iface_mounts, a_callers_etc_gets_no_mount_points_from_the_policy)
{
	const char *const opts[] = { "-b", "-B" };
	char *dir, *bind;
	struct sbx_result r;

	REQUIRE_USERNS();
	dir = make_temp_dir();
	free(put_test_file(dir, "motd", "the caller's\n"));
	bind = xasprintf("%s:/etc", dir);
	for (size_t i = 0; i < 2; i++) {
		sbx_run_sh(&r, NULL, SBX_ARGV(opts[i], bind), "cat /etc/motd");
		cr_assert_eq(r.exit_status, 0, "%s %s: exit %d; stderr: %s", opts[i], bind,
			     r.exit_status, r.err);
		cr_assert_str_eq(r.out, "the caller's\n", "%s: stdout: %s", opts[i], r.out);
		cr_assert_eq(count_entries(dir), 1, "%s: sbx made entries in the caller's %s",
			     opts[i], dir);
		sbx_result_free(&r);
	}
	rm_tree(dir);
	free(dir);
	free(bind);
}

/*
 * The skip looks into the caller's tree, so the caller can plant there: a
 * symlink at the mount point, to a directory outside or dangling, is
 * neither skipped as missing (a dangling one looks missing when followed)
 * nor followed: the run is refused and the outside directory stays as it
 * was.
 */
Test(iface_mounts, a_symlink_planted_at_a_skipped_mount_point_is_refused)
{
	const char *const targets[] = { NULL, "/nonexistent-sbx-target" };
	char *dir, *outside, *bind, *link;
	struct sbx_result r;

	REQUIRE_USERNS();
	dir = make_temp_dir();
	outside = make_temp_dir();
	bind = xasprintf("%s:/etc", dir);
	link = xasprintf("%s/fonts", dir);
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(symlink(targets[i] ? targets[i] : outside, link), 0);
		sbx_run(&r, NULL, SBX_ARGV("run", "-B", bind, "--", "/bin/true"));
		cr_assert_eq(r.exit_status, 125, "fonts -> %s: exit %d; stderr: %s",
			     targets[i] ? targets[i] : outside, r.exit_status, r.err);
		ASSERT_STATUS(&r, "setup-error");
		cr_assert_eq(count_entries(outside), 0, "sbx made entries in %s", outside);
		sbx_result_free(&r);
		cr_assert_eq(unlink(link), 0);
	}
	rm_tree(dir);
	rm_tree(outside);
	free(dir);
	free(outside);
	free(bind);
	free(link);
}

/*
 * A bind without a destination lands at the source's absolute path, so a
 * relative source is resolved against the caller's cwd: "-B ." always
 * worked, but "-B .." left ".." in the destination and was refused as not
 * normalized, which broke CI steps that bind the checkout from a subdir.
 * Each case runs from DIR/a/b and reads a file through the absolute path
 * the bind must have.
 */
Test(iface_mounts, a_relative_source_with_dotdot_binds_at_its_absolute_path)
{
	char *dir, *a, *sub, *x, *script;
	struct sbx_result r;
	struct {
		const char *opt, *src, *file; /* FILE: relative to DIR */
	} cases[] = {
		{ "-B", "..", "a/in-a" },
		{ "-b", "../..", "top" },
		{ "-b", "../../x", "x/in-x" },
		{ "-b", "./../..//x/", "x/in-x" },
	};

	REQUIRE_USERNS();
	dir = make_temp_dir();
	cr_assert_eq(chmod(dir, 0755), 0);
	a = xasprintf("%s/a", dir);
	sub = xasprintf("%s/a/b", dir);
	x = xasprintf("%s/x", dir);
	/* 0755: run by root, the jail's uid is not the owner */
	cr_assert_eq(mkdir(a, 0755), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(mkdir(x, 0755), 0);
	free(put_test_file(dir, "a/in-a", "A\n"));
	free(put_test_file(dir, "top", "T\n"));
	free(put_test_file(dir, "x/in-x", "X\n"));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		script = xasprintf("cat '%s/%s'", dir, cases[i].file);
		sbx_run(&r, &(struct sbx_opts){ .cwd = sub },
			SBX_ARGV("run", cases[i].opt, cases[i].src, "--", "/bin/sh", "-c", script));
		ASSERT_STATUS(&r, "ok");
		cr_assert_eq(r.exit_status, 0, "%s %s: exit %d; stdout %s stderr %s", cases[i].opt,
			     cases[i].src, r.exit_status, r.out, r.err);
		sbx_result_free(&r);
		free(script);
	}
	rm_tree(dir);
	free(dir);
	free(a);
	free(sub);
	free(x);
}

/* From DIR/a, "-b ../.." is "/": resolving ".." must not slip the root,
 * which is always a fresh tmpfs, past the destination check. */
Test(iface_mounts, a_relative_source_that_resolves_to_the_root_is_refused)
{
	char *dir = make_temp_dir(), *sub = xasprintf("%s/a", dir), *up = strdup("..");
	struct sbx_result r;

	cr_assert_eq(mkdir(sub, 0755), 0);
	/* one ".." per component of SUB, and one more: "/.." is "/" */
	for (const char *p = sub; *p; p++) {
		char *longer = *p == '/' ? xasprintf("%s/..", up) : NULL;

		if (longer) {
			free(up);
			up = longer;
		}
	}
	sbx_run(&r, &(struct sbx_opts){ .cwd = sub }, SBX_ARGV("run", "-b", up, "--", "/bin/true"));
	cr_assert_eq(r.exit_status, 125, "-b %s: exit %d; stderr: %s", up, r.exit_status, r.err);
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(rec_str(&r, "message"), "root"), "%s", rec_str(&r, "message"));
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(sub);
	free(up);
}
