/*
 * callerpath.c - open the paths the caller names (--stdin, --stdout,
 * --stderr, --result, -o, -w) without following a link; see callerpath.h.
 *
 * Each path is walked by path_walk (O_PATH, ".." allowed) to the parent
 * of its last component, which is then opened with O_NOFOLLOW from that
 * fd: what was checked is what is opened.  Only after a refusal is the
 * path looked at by name again, to say which component was a link.
 */
#include "base/callerpath.h"
#include "base/cleanup.h"
#include "base/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A path the caller named that sbx could not open: the caller's to fix,
 * unless sbx ran out of a resource of its own (descriptors, memory), which
 * is a setup error the next run may not meet. */
static enum err_kind open_kind(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM ? ERR_SETUP : ERR_USAGE;
}

int caller_path_fd(const char *path)
{
	static const char *const names[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	char *end;
	long n;

	for (int i = 0; i < 3; i++)
		if (strcmp(path, names[i]) == 0)
			return i;
	if (strncmp(path, "/dev/fd/", 8) != 0 || path[8] < '0' || path[8] > '9')
		return -1;
	errno = 0;
	n = strtol(path + 8, &end, 10);
	return errno || *end || n > INT_MAX ? -1 : (int)n;
}

static const char *kind_name(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
	     : S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device"
	     : S_ISCHR(m) ? "a character device" : "a regular file";
}

/* WALKED += "/" LEAF: the name of what failed, for the message. */
static void append(char walked[PATH_MAX], const char *leaf)
{
	size_t n = strlen(walked);

	snprintf(walked + n, PATH_MAX - n, "%s%s", n && walked[n - 1] != '/' ? "/" : "", leaf);
}

/* An output that is not a regular file or a character device. */
static int kind_err(const char *option, const char *path, const char *what, mode_t m,
		    struct sbx_err *err)
{
	return err_set(err, ERR_USAGE, 0, "%s %s: '%s' is %s; sbx writes only to a regular "
		       "file or a character device (a FIFO it opened could block it or hand "
		       "the output to any reader); give a file, or open it yourself and "
		       "pass /dev/fd/N (e.g. 3>PATH)", option, path, what, kind_name(m));
}

int caller_hard_link_err(const char *option, const char *path, unsigned long nlink,
			 struct sbx_err *err)
{
	return err_set(err, ERR_USAGE, 0, "%s %s: the file has %lu hard links; sbx does not "
		       "use a file with more than one, since a jail could have linked a file "
		       "outside its reach to that name; remove it (rm %s) or give another path",
		       option, path, nlink, path);
}

/* Opening WALKED (the components so far, the one that failed last) failed
 * with E: say which link refused it, or why else. */
static int open_failed(const char *option, const char *path, const char *walked, int e,
		       int flags, struct sbx_err *err)
{
	struct stat st;
	/* looked at by name only after the refusal: no race can undo it */
	bool known = lstat(walked, &st) == 0;

	if (known && S_ISLNK(st.st_mode))
		return err_set(err, ERR_USAGE, ELOOP, "%s %s: '%s' is a symbolic link; sbx "
			       "does not follow links in the paths it opens for you, since a "
			       "jail could have planted them; give the real path (realpath %s)",
			       option, path, walked, path);
	/* ENXIO: a FIFO with no reader, or a socket, by name */
	/* a character device is an output sbx takes: /dev/tty without a
	 * terminal fails ENXIO too, and its own error says why */
	if (known && (flags & O_ACCMODE) != O_RDONLY && !S_ISCHR(st.st_mode) &&
	    (e == ENXIO || e == EISDIR || S_ISBLK(st.st_mode)))
		return kind_err(option, path, walked, st.st_mode, err);
	if (known && e == ENXIO && !S_ISCHR(st.st_mode))
		return err_set(err, ERR_USAGE, e, "%s %s: '%s' is %s, which cannot be opened by "
			       "name; give a file, or open it yourself and pass /dev/fd/N",
			       option, path, walked, kind_name(st.st_mode));
	return err_set(err, open_kind(e), e, "%s %s: cannot open '%s': %s", option, path,
		       *walked ? walked : ".", strerror(e));
}

/* The parent of PATH's last component, copied to LEAF, walked from the cwd
 * or "/" without following a link; WALKED ends where the walk stopped. */
static int open_parent(const char *path, char leaf[NAME_MAX + 1], char walked[PATH_MAX],
		       struct path_walk *w)
{
	int start cleanup_fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	*w = (struct path_walk){ .flags = O_PATH, .dotdot = true, .walked = walked,
				 .walked_cap = PATH_MAX };
	snprintf(walked, PATH_MAX, "%s", path[0] == '/' ? "/" : "");
	if (start < 0)
		return -1;
	return path_walk(start, path, w, leaf);
}

static int walk_failed(const char *option, const char *path, const char *walked,
		       const struct path_walk *w, int flags, struct sbx_err *err)
{
	if (w->failed == PATH_FAIL_NAME && errno == EINVAL)
		return err_set(err, ERR_USAGE, EISDIR, "%s %s: is a directory (\"/\" or \".\"), "
			       "not a file; give a file name", option, path);
	if (w->failed == PATH_FAIL_NAME)
		return err_set(err, open_kind(errno), errno, "%s %s: %s", option, path,
			       strerror(errno));
	return open_failed(option, path, walked, errno, flags, err);
}

/* One openat2 that refuses a link in any component: one descriptor, where
 * the walk needs two at once (a caller at its open-file limit).  -1 with
 * errno; ENOSYS or EPERM where the kernel or a filter has no openat2. */
static int open_no_links(const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

int caller_open(const char *option, const char *path, int flags, mode_t mode,
		struct sbx_err *err)
{
	char leaf[NAME_MAX + 1], walked[PATH_MAX];
	struct path_walk w;
	int fd = open_no_links(path, flags, mode);

	/* any refusal is walked again, component by component, to say which
	 * one failed and why */
	if (fd >= 0)
		return fd;
	int dir cleanup_fd = open_parent(path, leaf, walked, &w);

	if (dir < 0)
		return walk_failed(option, path, walked, &w, flags, err);
	/* O_NOFOLLOW: the last component must not be a link either */
	fd = openat(dir, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;

		append(walked, leaf);
		return open_failed(option, path, walked, e, flags, err);
	}
	return fd;
}

int caller_open_dir(const char *option, const char *path, bool make, struct sbx_err *err)
{
	char leaf[NAME_MAX + 1], walked[PATH_MAX];
	struct path_walk w;
	int dir cleanup_fd = open_parent(path, leaf, walked, &w);
	int fd;

	/* ".", "/", "./": no component; the start itself is the directory */
	if (dir < 0 && w.failed == PATH_FAIL_NAME && errno == EINVAL && path[0]) {
		fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return err_set(err, open_kind(errno), errno, "%s %s: %s", option, path,
				       strerror(errno));
		return fd;
	}
	if (dir < 0)
		return walk_failed(option, path, walked, &w, O_RDONLY, err);
	append(walked, leaf);
	/* a link planted there exists: EEXIST, then refused by the open */
	if (make && mkdirat(dir, leaf, 0755) < 0 && errno != EEXIST)
		return err_set(err, open_kind(errno), errno, "%s %s: mkdir '%s': %s", option, path,
			       walked, strerror(errno));
	fd = openat(dir, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_failed(option, path, walked, errno, O_RDONLY, err);
	return fd;
}

int caller_open_output(const char *option, const char *path, struct sbx_err *err)
{
	/* O_NONBLOCK: a planted FIFO with no reader fails (ENXIO) instead of
	 * blocking sbx, SIGTERM held, in open() for ever; no O_TRUNC before
	 * the file is known to be one sbx may empty */
	int fd cleanup_fd = caller_open(option, path, O_WRONLY | O_CREAT | O_NOCTTY | O_NONBLOCK,
					0644, err);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return err_set(err, ERR_SETUP, errno, "%s %s: fstat: %s", option, path,
			       strerror(errno));
	/* no plant: the jail's seccomp filter refuses mknod of a device; a
	 * terminal must block again, or a full one would refuse the output */
	if (S_ISCHR(st.st_mode)) {
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
			return err_set(err, ERR_SETUP, errno, "%s %s: fcntl: %s", option, path,
				       strerror(errno));
		return steal_fd(&fd);
	}
	/* a FIFO with a reader opens: what was opened is refused */
	if (!S_ISREG(st.st_mode))
		return kind_err(option, path, path, st.st_mode, err);
	/* emptied in place, a hard link planted to a file outside rewrote it */
	if (st.st_nlink > 1)
		return caller_hard_link_err(option, path, (unsigned long)st.st_nlink, err);
	if (ftruncate(fd, 0) < 0)
		return err_set(err, ERR_USAGE, errno, "%s %s: cannot empty the file: %s", option,
			       path, strerror(errno));
	return steal_fd(&fd);
}

bool caller_path_is(const char *path, int fd)
{
	char leaf[NAME_MAX + 1], walked[PATH_MAX];
	struct path_walk w;
	int same cleanup_fd = open_no_links(path, O_PATH, 0);
	struct stat a, b;

	if (same >= 0)
		return fstat(fd, &a) == 0 && fstat(same, &b) == 0 && a.st_dev == b.st_dev &&
		       a.st_ino == b.st_ino;
	if (errno != ENOSYS && errno != EPERM)
		return false;
	int dir cleanup_fd = open_parent(path, leaf, walked, &w);

	return dir >= 0 && fstat(fd, &a) == 0 &&
	       fstatat(dir, leaf, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}
