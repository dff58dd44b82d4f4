/*
 * path.c - the one no-follow path walker; see path.h.
 *
 * Every component is opened from the fd of the directory before it, so
 * no name is resolved twice: a component renamed or replaced by a symlink
 * between two steps fails the walk instead of leading it elsewhere.
 */
#include "base/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Next component of *P into BUF (CAP bytes): 1; 0 at the end; -1 + errno.
 * ".." only with DOTDOT. */
static int next_component(const char **p, char *buf, size_t cap, bool dotdot)
{
	const char *s = *p, *e;
	size_t n;

	while (*s == '/' || (s[0] == '.' && (s[1] == '/' || s[1] == '\0')))
		s++;
	if (*s == '\0')
		return 0;
	e = strchrnul(s, '/');
	n = (size_t)(e - s);
	/* ".." would climb out of the directory the walk started in */
	if (!dotdot && n == 2 && s[0] == '.' && s[1] == '.') {
		errno = EXDEV;
		return -1;
	}
	if (n >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	*p = e;
	return 1;
}

static void close_keep_errno(int fd)
{
	int e = errno;

	close(fd);
	errno = e;
}

static void note_walked(struct path_walk *w, const char *comp)
{
	size_t len;

	if (!w->walked || w->walked_cap == 0)
		return;
	len = strnlen(w->walked, w->walked_cap - 1);
	snprintf(w->walked + len, w->walked_cap - len, "%s%s",
		 len && w->walked[len - 1] != '/' ? "/" : "", comp);
}

static int checked(int fd, struct path_walk *w)
{
	if (!w->check || w->check(fd, w->walked ? w->walked : "", w->arg) == 0)
		return fd;
	w->failed = PATH_FAIL_CHECK;
	close_keep_errno(fd);
	return -1;
}

/* From DIR (consumed) down to COMP, made first when asked; its fd or -1. */
static int step(int dir, const char *comp, struct path_walk *w)
{
	int next = -1;

	note_walked(w, comp);
	if (w->mkdir && mkdirat(dir, comp, w->mkdir_mode ? w->mkdir_mode(dir, w->arg) : 0755) < 0 &&
	    errno != EEXIST)
		w->failed = PATH_FAIL_MKDIR;
	else if ((next = openat(dir, comp, w->flags | O_DIRECTORY | O_NOFOLLOW |
				O_CLOEXEC)) < 0)
		w->failed = PATH_FAIL_OPEN;
	close_keep_errno(dir);
	return next < 0 ? -1 : checked(next, w);
}

int path_walk(int dirfd, const char *path, struct path_walk *w, char *leaf)
{
	char comp[NAME_MAX + 1];
	const char *p = path;
	int dir = fcntl(dirfd, F_DUPFD_CLOEXEC, 0), rc;

	w->failed = PATH_FAIL_OPEN;
	if (dir < 0 || (dir = checked(dir, w)) < 0)
		return -1;
	w->failed = PATH_FAIL_NONE;
	while ((rc = next_component(&p, comp, sizeof(comp), w->dotdot)) > 0) {
		/* the last component is the caller's to open (or create) */
		if (leaf && next_component(&(const char *){ p }, leaf, NAME_MAX + 1, w->dotdot) == 0) {
			memcpy(leaf, comp, strlen(comp) + 1);
			return dir;
		}
		if ((dir = step(dir, comp, w)) < 0)
			return -1;
	}
	if (rc == 0 && !leaf)
		return dir;
	if (rc == 0)
		errno = EINVAL; /* nothing to be the leaf: "/" itself */
	w->failed = PATH_FAIL_NAME;
	close_keep_errno(dir);
	return -1;
}

int path_open_nofollow(int dirfd, const char *name, int flags, mode_t mode)
{
	struct path_walk w = { .flags = O_RDONLY };
	char leaf[NAME_MAX + 1];
	int dir = path_walk(dirfd, name, &w, leaf), fd;

	if (dir < 0)
		return -1;
	fd = openat(dir, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	close_keep_errno(dir);
	return fd;
}

int path_open_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
	/* BENEATH + NO_SYMLINKS: a link or ".." the program planted can never
	 * lead a host-side open out of the workspace */
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return (int)fd;
	return path_open_nofollow(dirfd, name, flags, mode);
}
