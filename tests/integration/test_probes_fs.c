/*
 * test_probes_fs.c - filesystem isolation probes: host files outside the
 * policy are absent, nothing host-side is
 * writable, the mount table cannot be changed, links lead nowhere.  The
 * host side is checked too: files unchanged, nothing created.
 */
#include "test_probes_common.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>

TestSuite(probes_fs, .init = probes_require_jail);

static char *plant_secret(const char *dir)
{
	char *path = xasprintf("%s/sbx-probe-secret-%d", dir, (int)getpid());
	FILE *f = fopen(path, "w");

	cr_assert(f, "plant %s: %s", path, strerror(errno));
	fprintf(f, "sbx-host-secret-%d\n", (int)getpid());
	fclose(f);
	return path;
}

static void expect_simple_probe(const char *name)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, name, NULL);
	expect_blocked(&r);
	sbx_result_free(&r);
}

/* Attack: reading host files the policy does not mount (a temp dir, the caller's $HOME). */
Test(probes_fs, host_secret_files_are_absent)
{
	struct sbx_result r;
	char *dir = make_temp_dir(), *secret = plant_secret(dir);
	const char *home = getenv("HOME");
	char *home_secret = NULL;

	if (home && access(home, W_OK) == 0)
		home_secret = plant_secret(home);
	run_probe(&r, NULL, NULL, "fs_secret",
		  SBX_ARGV(secret, home_secret ? home_secret : secret));
	if (home_secret)
		unlink(home_secret);
	rm_tree(dir);
	expect_blocked(&r);
	expect_errno(&r, "ENOENT", NULL);
	cr_assert(!strstr(r.out, "sbx-host-secret"), "secret content leaked");
	free(secret);
	free(home_secret);
	free(dir);
	sbx_result_free(&r);
}

/* Attack: host root's keys and history in /root. */
Test(probes_fs, root_home_is_absent_or_unreadable)
{
	expect_simple_probe("fs_root_home");
}

/* Attack: planting a binary in the host's /usr; the host is checked afterwards. */
Test(probes_fs, writing_usr_fails)
{
	struct sbx_result r;
	glob_t g;

	run_probe(&r, NULL, NULL, "fs_write_usr", NULL);
	expect_blocked(&r);
	expect_errno(&r, "EROFS", "EACCES");
	cr_assert_neq(glob("/usr/sbx-probe-*", 0, NULL, &g), 0, "a probe file appeared in the host /usr");
	globfree(&g);
	sbx_result_free(&r);
}

/* Attack: changing kernel settings through /proc/sys (the hostname is the harmless witness). */
Test(probes_fs, writing_proc_sys_hostname_fails)
{
	struct sbx_result r;
	char before[256] = "", after[256] = "";

	gethostname(before, sizeof(before));
	run_probe(&r, NULL, NULL, "fs_write_hostname", NULL);
	gethostname(after, sizeof(after));
	expect_blocked(&r);
	expect_errno(&r, "EROFS", "EACCES");
	cr_assert_str_eq(before, after, "the host's hostname changed");
	sbx_result_free(&r);
}

/* Attack: seeing (and then signalling or reading) host processes or the supervisor through /proc. */
Test(probes_fs, proc_shows_only_jail_processes)
{
	expect_simple_probe("fs_proc_view");
}

/* Attack: /proc/1/root as a way back to the host's root directory. */
Test(probes_fs, proc_1_root_leads_to_the_jail_root)
{
	struct sbx_result r;
	char *dir = make_temp_dir(), *secret = plant_secret(dir);

	run_probe(&r, NULL, NULL, "fs_proc1_root", SBX_ARGV(secret));
	rm_tree(dir);
	expect_blocked(&r);
	free(secret);
	free(dir);
	sbx_result_free(&r);
}

/* Attack: kernel knobs and host device information under /sys. */
Test(probes_fs, sys_is_absent_or_read_only)
{
	expect_simple_probe("fs_sys");
}

/* Attack: host devices (disks, kmsg, mem, ttys) in /dev; the set is exact. */
Test(probes_fs, dev_holds_exactly_the_policy_devices)
{
	expect_simple_probe("fs_dev_list");
}

/* Attack: mount(2), the first step of most container breakouts. */
Test(probes_fs, mounting_a_tmpfs_fails)
{
	expect_denied("fs_mount_tmpfs", "EPERM", NULL);
}

/* Attack: a bind mount re-exposing or re-mounting rw a path the policy hides. */
Test(probes_fs, bind_mount_fails)
{
	expect_denied("fs_bind_mount", "EPERM", NULL);
}

/* Attack: chroot, the building block of the classic chroot escape. */
Test(probes_fs, chroot_fails)
{
	expect_denied("fs_chroot", "EPERM", NULL);
}

/* Attack: pivot_root to swap the jail's root for another. */
Test(probes_fs, pivot_root_fails)
{
	expect_denied("fs_pivot_root", "EPERM", NULL);
}

/* Attack: open_by_handle_at, the "shocker" breakout that ignores the mount view. */
Test(probes_fs, open_by_handle_at_fails)
{
	expect_denied("fs_open_by_handle", "EPERM", NULL);
}

/*
 * Attack: symlinks and hard links in the workspace pointing at host files
 * (one planted host-side in a -w workspace, others made inside).
 */
Test(probes_fs, links_in_the_workspace_reach_no_host_file)
{
	struct sbx_result r;
	char *dir = make_temp_dir(), *ws = xasprintf("%s/ws", dir);
	char *secret = plant_secret(dir), *planted = xasprintf("%s/planted-link", ws);
	struct stat st;

	cr_assert(mkdir(ws, 0777) == 0 && chmod(ws, 0777) == 0 && symlink(secret, planted) == 0);
	run_probe(&r, NULL, SBX_ARGV("-w", ws), "fs_link_escape", SBX_ARGV(secret, "planted-link"));
	expect_blocked(&r);
	cr_assert(!strstr(r.out, "sbx-host-secret"), "secret content leaked");
	cr_assert(stat(secret, &st) == 0 && st.st_nlink == 1, "the host secret gained a hard link");
	rm_tree(dir);
	free(planted);
	free(secret);
	free(ws);
	free(dir);
	sbx_result_free(&r);
}

/* Attack: a setuid-root binary (su) giving root back inside the jail; NoNewPrivs/nosuid must stop it. */
Test(probes_fs, setuid_binary_gains_nothing)
{
	struct sbx_result r;

	if (access("/usr/bin/su", X_OK) != 0 && access("/usr/bin/passwd", X_OK) != 0)
		cr_skip_test("SKIP: no setuid binary (su, passwd) on this host");
	run_probe(&r, NULL, NULL, "fs_setuid", NULL);
	expect_blocked(&r);
	cr_assert(strstr(r.out, "effective uid 65534"), "expected the run to stay uid 65534: " PROBE_REPORT(&r));
	sbx_result_free(&r);
}
