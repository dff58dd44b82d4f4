/*
 * remove.c - remove the disposable workspace without ever leaving it; see
 * workspace.h.
 *
 * Removal walks the tree with openat/unlinkat only, one directory fd at a
 * time (so a 100,000-deep tree cannot exhaust fds or the stack): it climbs
 * back with "..", and checks that ".." is the directory it came from, so a
 * rename during removal can never lead it out of the workspace.
 */
#include "workspace/workspace.h"
#include "workspace/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounds the removal walk (entries + directory visits). */
#define REMOVE_BUDGET 50000000UL

struct dir_id {
	dev_t dev;
	ino_t ino;
};

struct walk {
	struct dir_id *stack; /* identities of the directories above cur */
	size_t depth, cap;
	int cur;
	unsigned long budget;
};

/* Open directory NAME in DIRFD, never through a symlink. */
static int open_child(int dirfd, const char *name)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, name, flags);

	/* a directory the program made mode 000: make it ours to empty; the
	 * NOFOLLOW chmod cannot touch a symlink's target */
	if (fd < 0 && errno == EACCES &&
	    fchmodat(dirfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(dirfd, name, flags);
	return fd;
}

static bool is_dir_entry(int dirfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

/*
 * Remove what can be removed in W->cur.  Returns 0 when it is empty, 1 with
 * *child open on a non-empty subdirectory to descend into, -1 on error.
 */
static int empty_dir(struct walk *w, int *child)
{
	int fd = fcntl(w->cur, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(d); /* the dup shares the offset of an earlier scan */
	(void)fchmod(w->cur, 0700); /* a 0555 directory would refuse unlink */
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (w->budget-- == 0) {
			errno = EMLINK;
			rc = -1;
		} else if (!is_dir_entry(w->cur, e)) {
			rc = unlinkat(w->cur, e->d_name, 0);
		} else if (unlinkat(w->cur, e->d_name, AT_REMOVEDIR) < 0) {
			if (errno != ENOTEMPTY && errno != EEXIST && errno != EACCES)
				rc = -1;
			else if ((*child = open_child(w->cur, e->d_name)) < 0)
				rc = -1;
			else
				rc = 1;
		}
	}
	closedir(d);
	return rc;
}

static int push_identity(struct walk *w, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct dir_id *s = realloc(w->stack, cap * sizeof(*s));
		if (!s) {
			errno = ENOMEM;
			return -1;
		}
		w->stack = s;
		w->cap = cap;
	}
	w->stack[w->depth++] = (struct dir_id){ st.st_dev, st.st_ino };
	return 0;
}

/* Back to the parent; it must be the directory we came from. */
static int climb(struct walk *w)
{
	int parent = openat(w->cur, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dir_id want = w->stack[w->depth - 2];
	struct stat st;

	/* a rename during removal must not lead the walk out of the tree */
	if (parent < 0 || fstat(parent, &st) < 0 || st.st_dev != want.dev ||
	    st.st_ino != want.ino) {
		if (parent >= 0)
			close(parent);
		errno = parent < 0 ? errno : ESTALE;
		return -1;
	}
	close(w->cur);
	w->cur = parent;
	w->depth--;
	return 0;
}

int ws_remove_contents(int rootfd)
{
	struct walk w = { .cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0),
			  .budget = REMOVE_BUDGET };
	int rc = w.cur < 0 ? -1 : push_identity(&w, w.cur);

	while (rc == 0) {
		int child = -1, r = empty_dir(&w, &child);

		if (r < 0 || (r == 1 && push_identity(&w, child) < 0)) {
			if (child >= 0)
				close(child);
			rc = -1;
		} else if (r == 1) {
			close(w.cur);
			w.cur = child;
		} else if (w.depth == 1) {
			break; /* the root is empty */
		} else if (climb(&w) < 0) {
			rc = -1;
		}
	}
	if (w.cur >= 0)
		close(w.cur);
	free(w.stack);
	return rc;
}

/* Whether NAME in DIRFD is still the directory open as FD. */
static bool still_named(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Remove the disposable workspace and, when empty, sbx-UID: by fd only. */
static int remove_disposable(struct workspace *ws)
{
	const char *slash = ws->host_path ? strrchr(ws->host_path, '/') : NULL;
	const char *name = slash ? slash + 1 : NULL;
	char parent_name[32];
	int rc = 0;

	/* the name is checked to be our directory before it goes: unlinkat on
	 * a name another process swapped would remove something else */
	if (ws->dirfd >= 0 && (ws_remove_contents(ws->dirfd) < 0 ||
			       (name && still_named(ws->parent_fd, name, ws->dirfd) &&
				unlinkat(ws->parent_fd, name, AT_REMOVEDIR) < 0)))
		rc = -1;
	else if (ws->dirfd < 0 && name)
		(void)unlinkat(ws->parent_fd, name, AT_REMOVEDIR); /* made, never opened */
	/* the per-user parent goes when empty: $TMPDIR is left as found */
	snprintf(parent_name, sizeof(parent_name), "sbx-%u", (unsigned)geteuid());
	if (still_named(ws->tmp_fd, parent_name, ws->parent_fd))
		(void)unlinkat(ws->tmp_fd, parent_name, AT_REMOVEDIR);
	return rc;
}

int workspace_close(struct workspace *ws, struct sbx_err *err)
{
	int rc = 0;

	if (ws->disposable) {
		if (remove_disposable(ws) < 0)
			rc = err_set(err, ERR_SETUP, errno,
				     "could not remove the workspace %s: %s (remove it by hand)",
				     ws->host_path ? ws->host_path : "?", strerror(errno));
		close(ws->parent_fd);
		close(ws->tmp_fd);
	}
	if (ws->dirfd >= 0)
		close(ws->dirfd);
	free(ws->host_path);
	ws->dirfd = ws->parent_fd = ws->tmp_fd = -1;
	ws->disposable = false;
	ws->host_path = NULL;
	return rc;
}
