/*
 * test_path.c - base/path.h, the one walker that opens a name sbx does not
 * trust: a workspace entry the program made (scan, -o), a mount point in
 * the new root, TMPDIR.  Each test plants what an attacker would (a
 * symlink on the way or at the end, "..") and checks the walk refuses it;
 * path_open_nofollow is the fallback path_open_beneath takes where openat2
 * is missing, so both are tested on the same trees.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"

static char dir[64];
static int dfd = -1;

static void setup_tree(void)
{
	char p[128];

	strcpy(dir, "/tmp/sbx-path-test-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(mkdirat(dfd, "a", 0755), 0);
	cr_assert_eq(mkdirat(dfd, "a/b", 0755), 0);
	close(openat(dfd, "a/b/file", O_WRONLY | O_CREAT, 0644));
	/* the plants: a link to a directory outside, and one to a file */
	cr_assert_eq(symlinkat("/etc", dfd, "a/out"), 0);
	cr_assert_eq(symlinkat("/etc/passwd", dfd, "a/b/passwd"), 0);
	snprintf(p, sizeof(p), "%s/a", dir);
	cr_assert_eq(symlinkat(p, dfd, "link-to-a"), 0);
}

static void teardown_tree(void)
{
	char cmd[128];

	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(path, .init = setup_tree, .fini = teardown_tree);

typedef int (*open_fn)(int, const char *, int, mode_t);
static const open_fn opens[] = { path_open_beneath, path_open_nofollow };

static void assert_refused(const char *name, int flags)
{
	for (size_t i = 0; i < 2; i++) {
		int fd = opens[i](dfd, name, flags, 0);
		cr_assert_lt(fd, 0, "%s opened %s", i ? "nofollow" : "beneath", name);
	}
}

Test(path, a_nested_name_opens_beneath_the_directory)
{
	for (size_t i = 0; i < 2; i++) {
		int fd = opens[i](dfd, "a/b/file", O_RDONLY, 0);
		struct stat st;

		cr_assert_geq(fd, 0, "%s: %s", i ? "nofollow" : "beneath", strerror(errno));
		cr_assert_eq(fstat(fd, &st), 0);
		cr_assert(S_ISREG(st.st_mode));
		close(fd);
	}
}

/* A link the program planted on the way must not lead sbx to /etc. */
Test(path, a_symlink_on_the_way_is_refused)
{
	assert_refused("a/out/passwd", O_RDONLY);
	assert_refused("link-to-a/b/file", O_RDONLY);
}

/* -o opens the program's file by name: a symlink there is no file. */
Test(path, a_symlink_as_the_last_component_is_refused)
{
	assert_refused("a/b/passwd", O_RDONLY);
	assert_refused("a/out", O_RDONLY | O_DIRECTORY);
}

Test(path, dotdot_never_climbs_out)
{
	assert_refused("a/../../etc/passwd", O_RDONLY);
	assert_refused("..", O_RDONLY | O_DIRECTORY);
	cr_assert_lt(path_open_nofollow(dfd, "a/b/../file", O_RDONLY, 0), 0);
	cr_assert_eq(errno, EXDEV);
}

Test(path, o_creat_makes_the_file_with_its_mode_and_refuses_a_planted_link)
{
	struct stat st;

	for (size_t i = 0; i < 2; i++) {
		const char *name = i ? "a/b/new1" : "a/b/new0";
		int fd = opens[i](dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);

		cr_assert_geq(fd, 0, "%s", strerror(errno));
		cr_assert_eq(fstat(fd, &st), 0);
		cr_assert_eq(st.st_mode & 0777, 0600);
		close(fd);
	}
	assert_refused("a/b/passwd", O_WRONLY | O_CREAT);
}

/* mp_make: missing directories made, the leaf left to the caller. */
Test(path, a_walk_with_mkdir_makes_the_parents_and_hands_back_the_leaf)
{
	struct path_walk w = { .flags = O_PATH, .mkdir = true };
	char leaf[NAME_MAX + 1];
	struct stat st;
	int fd = path_walk(dfd, "/x/./y//z", &w, leaf);

	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_str_eq(leaf, "z");
	cr_assert_eq(fstatat(dfd, "x/y", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_neq(fstatat(dfd, "x/y/z", &st, AT_SYMLINK_NOFOLLOW), 0, "the leaf was made");
	close(fd);
}

/* A mount point through a symlink would land outside the new root. */
Test(path, an_o_path_walk_refuses_a_symlink_component)
{
	struct path_walk w = { .flags = O_PATH, .mkdir = true };
	char leaf[NAME_MAX + 1];

	cr_assert_lt(path_walk(dfd, "a/out/x", &w, leaf), 0);
	cr_assert_eq(w.failed, PATH_FAIL_OPEN);
	cr_assert(errno == ENOTDIR || errno == ELOOP, "%s", strerror(errno));
	cr_assert_lt(path_walk(dfd, "link-to-a/b/x", &w, leaf), 0);
	cr_assert_eq(w.failed, PATH_FAIL_OPEN);
}

Test(path, a_walk_with_a_leaf_needs_one)
{
	struct path_walk w = { .flags = O_PATH };
	char leaf[NAME_MAX + 1], longname[NAME_MAX + 8];

	cr_assert_lt(path_walk(dfd, "/", &w, leaf), 0);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(w.failed, PATH_FAIL_NAME);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_lt(path_walk(dfd, longname, &w, leaf), 0);
	cr_assert_eq(errno, ENAMETOOLONG);
	cr_assert_lt(path_walk(dfd, "a/..", &w, leaf), 0);
	cr_assert_eq(errno, EXDEV);
}

struct seen {
	char names[8][128];
	int n, refuse_at;
};

static int record_step(int fd, const char *walked, void *arg)
{
	struct seen *s = arg;
	struct stat st;

	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", walked);
	if (s->n++ == s->refuse_at) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* TMPDIR: every directory on the way is checked by its fd, "/" first. */
Test(path, the_check_sees_every_directory_the_start_included)
{
	struct seen s = { .refuse_at = -1 };
	char walked[PATH_MAX] = "/";
	struct path_walk w = { .flags = O_RDONLY, .check = record_step, .arg = &s,
			       .walked = walked, .walked_cap = sizeof(walked) };
	int fd = path_walk(dfd, "a/b", &w, NULL);

	cr_assert_geq(fd, 0, "%s", strerror(errno));
	close(fd);
	cr_assert_eq(s.n, 3);
	cr_assert_str_eq(s.names[0], "/");
	cr_assert_str_eq(s.names[1], "/a");
	cr_assert_str_eq(s.names[2], "/a/b");
}

Test(path, a_refused_directory_ends_the_walk_there)
{
	struct seen s = { .refuse_at = 1 };
	char walked[PATH_MAX] = "/";
	struct path_walk w = { .flags = O_RDONLY, .check = record_step, .arg = &s,
			       .walked = walked, .walked_cap = sizeof(walked) };

	cr_assert_lt(path_walk(dfd, "a/b", &w, NULL), 0);
	cr_assert_eq(w.failed, PATH_FAIL_CHECK);
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(s.n, 2, "the walk went on past a refused directory");
}

/* The message names the component that failed, not the whole TMPDIR. */
Test(path, a_failed_open_names_the_component_walked_last)
{
	char walked[PATH_MAX] = "/";
	struct path_walk w = { .flags = O_RDONLY, .walked = walked,
			       .walked_cap = sizeof(walked) };

	cr_assert_lt(path_walk(dfd, "a/b/file/c", &w, NULL), 0);
	cr_assert_eq(errno, ENOTDIR);
	cr_assert_eq(w.failed, PATH_FAIL_OPEN);
	cr_assert_str_eq(walked, "/a/b/file");
}
