/*
 * test_iface_workspace.c - TMPDIR is not part of sbx's interface.  With a
 * TMPDIR another user could write to, a rename/symlink race on
 * $TMPDIR/sbx-UID could leave the workspace (and the -f inputs) behind.
 * The disposable workspace is a tmpfs inside
 * the jail: sbx makes nothing in TMPDIR, so a hostile or odd one is
 * neither refused nor reachable.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define INPUT_NAME "input-h7.txt"

static char *make_input(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, INPUT_NAME);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs("secret input\n", f);
	fclose(f);
	return path;
}

/* A TMPDIR below a world-writable directory without the sticky bit (where
 * another user could rename entries): root runs with a -f input, and
 * nothing appears in TMPDIR.  The old code refused it (setup-error). */
Test(iface_workspace, root_makes_nothing_in_a_tmpdir_others_can_rename_in)
{
	struct sbx_result r;
	char *top = make_temp_dir(), *sub = xasprintf("%s/sub", top);
	char *src = make_temp_dir(), *input = make_input(src);
	char *env0 = xasprintf("TMPDIR=%s", sub);
	const char *env[] = { env0, NULL };

	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (root refused such a TMPDIR)");
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(chmod(top, 0777), 0);
	sbx_run(&r, &(struct sbx_opts){ .env = env },
		SBX_ARGV("run", "-f", input, "--", "/bin/cat", INPUT_NAME));
	int made = count_entries(sub);
	rm_tree(top);
	rm_tree(src);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "secret input\n");
	cr_assert_eq(made, 0, "something was created in TMPDIR");
	sbx_result_free(&r);
	free(top);
	free(sub);
	free(src);
	free(input);
	free(env0);
}

/* `-w DIR --tmpfs /mnt/data/x/y -b SRC:/mnt/data/b`: the mount points sbx
 * made for them in the caller's DIR (x, x/y, b) were left there after the
 * run, empty, owned by the jail's uid; a directory that was already there
 * stays, and so does what the program wrote. */
Test(iface_workspace, mount_points_made_in_a_workdir_are_removed_after_the_run)
{
	char *dir = make_temp_dir(), *src = make_temp_dir();
	char *keep = xasprintf("%s/keep", dir), *bind = xasprintf("%s:/mnt/data/b", src);
	struct sbx_result r;

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(keep, 0755), 0);
	sbx_run_sh(&r, NULL, SBX_ARGV("-w", dir, "--tmpfs", "/mnt/data/x/y", "--tmpfs",
				      "/mnt/data/keep", "--tmpfs", "/mnt/data/w/z", "-b", bind),
		   "test -d /mnt/data/x/y && test -d /mnt/data/b && mkdir -p /mnt/data/w/made");
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
	char *out, *find = xasprintf("cd %s && find . | sort", dir);
	cr_assert_eq(host_sh(find, &out), 0);
	free(find);
	/* w holds what the program made beside the mount point: it stays */
	cr_assert_str_eq(out, ".\n./keep\n./w\n./w/made\n", "left in DIR:\n%s", out);
	free(out);
	rm_tree(dir);
	rm_tree(src);
	free(dir);
	free(src);
	free(keep);
	free(bind);
}
