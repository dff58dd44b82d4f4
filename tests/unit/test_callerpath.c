/*
 * test_callerpath.c - base/callerpath.h: the paths a caller names for sbx
 * to open.  Each test plants what an earlier jail could (a link as the
 * file or as a parent, a FIFO, a hard link) and checks it is refused
 * with the link named; "..", "." and sbx's own /dev names still work.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/callerpath.h"

static char dir[64];

static void setup_tree(void)
{
	char p[128];

	strcpy(dir, "/tmp/sbx-callerpath-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(mkdir("real", 0755), 0);
	cr_assert_eq(symlink("real", "link"), 0);
	cr_assert_eq(symlink("real/f", "flink"), 0);
	cr_assert_eq(mkfifo("fifo", 0600), 0);
	snprintf(p, sizeof(p), "%s/real/f", dir);
	int fd = open(p, O_WRONLY | O_CREAT, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "x", 1), 1);
	close(fd);
	cr_assert_eq(link("real/f", "hard"), 0);
}

static void teardown_tree(void)
{
	cr_assert_eq(chdir("/"), 0);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(callerpath, .init = setup_tree, .fini = teardown_tree);

Test(callerpath, dev_names_are_sbxs_own_descriptors)
{
	cr_assert_eq(caller_path_fd("/dev/stdin"), 0);
	cr_assert_eq(caller_path_fd("/dev/stdout"), 1);
	cr_assert_eq(caller_path_fd("/dev/stderr"), 2);
	cr_assert_eq(caller_path_fd("/dev/fd/7"), 7);
	cr_assert_eq(caller_path_fd("/dev/fd/"), -1);
	cr_assert_eq(caller_path_fd("/dev/fd/7x"), -1);
	cr_assert_eq(caller_path_fd("/dev/fd/-1"), -1);
	cr_assert_eq(caller_path_fd("/dev/fd/99999999999"), -1);
	cr_assert_eq(caller_path_fd("/dev/./stdout"), -1);
	cr_assert_eq(caller_path_fd("out.txt"), -1);
}

Test(callerpath, a_link_as_the_file_or_a_parent_is_refused_and_named)
{
	struct sbx_err err = { 0 };

	cr_assert_eq(caller_open("--stdin", "flink", O_RDONLY, 0, &err), -1);
	cr_assert(strstr(err.msg, "'flink' is a symbolic link"), "%s", err.msg);
	cr_assert_eq(caller_open("--stdin", "./link//f", O_RDONLY, 0, &err), -1);
	cr_assert(strstr(err.msg, "'link' is a symbolic link"), "%s", err.msg);
	cr_assert_eq(caller_open_dir("--out", "link/", true, &err), -1);
	cr_assert(strstr(err.msg, "'link' is a symbolic link"), "%s", err.msg);
	cr_assert_eq(caller_open_output("--result", "link/new", &err), -1);
	cr_assert_eq(access("real/new", F_OK), -1, "created through the link");
}

Test(callerpath, dotdot_and_dot_are_no_links)
{
	struct sbx_err err = { 0 };
	int fd = caller_open("--stdin", "real/../real/./f", O_RDONLY, 0, &err);

	cr_assert(fd >= 0, "%s", err.msg);
	close(fd);
	fd = caller_open_dir("--out", ".", false, &err);
	cr_assert(fd >= 0, "%s", err.msg);
	close(fd);
	fd = caller_open_dir("--out", "real/made", true, &err);
	cr_assert(fd >= 0, "%s", err.msg);
	close(fd);
}

Test(callerpath, an_output_is_a_regular_file_with_one_link_or_a_device)
{
	struct sbx_err err = { 0 };
	struct stat st;
	int fd;

	cr_assert_eq(caller_open_output("--stdout", "fifo", &err), -1);
	cr_assert(strstr(err.msg, "is a FIFO"), "%s", err.msg);
	cr_assert_eq(caller_open_output("--stdout", "hard", &err), -1);
	cr_assert(strstr(err.msg, "hard links"), "%s", err.msg);
	cr_assert_eq(stat("real/f", &st), 0);
	cr_assert_eq(st.st_size, 1, "the hard-linked file was emptied");
	cr_assert_eq(caller_open_output("--stdout", "real", &err), -1);
	cr_assert(strstr(err.msg, "directory"), "%s", err.msg);
	fd = caller_open_output("--stdout", "/dev/null", &err);
	cr_assert(fd >= 0, "%s", err.msg);
	close(fd);
	cr_assert_eq(unlink("hard"), 0);
	fd = caller_open_output("--stdout", "real/f", &err);
	cr_assert(fd >= 0, "%s", err.msg);
	cr_assert(caller_path_is("real/f", fd));
	cr_assert(!caller_path_is("flink", fd), "a link to it is not it");
	close(fd);
	cr_assert_eq(stat("real/f", &st), 0);
	cr_assert_eq(st.st_size, 0, "an output is emptied");
}
