/*
 * workspace.c - make and fill the run's workspace; see workspace.h.
 *
 * A disposable workspace is made by fd beneath TMPDIR, which is opened
 * from "/" one checked component at a time; a persistent one (-w) is
 * adopted and locked.  Copy-in goes by descriptor.  Removal, and the
 * reclaiming of what a crashed run left, walk the tree in remove.c.
 */
#include "base/ids.h"
#include "workspace/workspace.h"
#include "workspace/internal.h"
#include "base/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tmp_root(void)
{
	const char *t = getenv("TMPDIR");

	return (t && t[0] == '/') ? t : "/tmp";
}

/*
 * Run by root, may another user rename or replace entries of the directory
 * ST (of PATH)?  Then a name sbx checked could lead elsewhere later.
 */
static int check_ancestor(const struct stat *st, const char *path, struct sbx_err *err)
{
	bool others_write = (st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX);

	if (geteuid() != 0 || (st->st_uid == 0 && !others_write))
		return 0;
	return err_set(err, ERR_SETUP, EPERM,
		       "TMPDIR %s: %s %s (mode %04o, owner uid %u): run by root, sbx makes "
		       "workspaces only where no other user can rename or replace a directory "
		       "on the way (set TMPDIR to a directory such as /tmp, or chmod +t / go-w it)",
		       tmp_root(), st->st_uid != 0 ? "the directory is owned by another user:"
						 : "the directory is writable by others without the sticky bit:",
		       path, (unsigned)(st->st_mode & 07777), (unsigned)st->st_uid);
}

/* path_walk's check: the directory FD (named PATH) may stand on TMPDIR's path. */
static int check_step(int fd, const char *path, void *arg)
{
	struct sbx_err *err = arg;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return err_set(err, ERR_SETUP, errno, "TMPDIR %s: %s: %s", tmp_root(), path,
			       strerror(errno));
	return check_ancestor(&st, path, err);
}

/*
 * Open TMPDIR one component at a time from "/" (O_NOFOLLOW), checking each
 * directory on the way by its fd: what is checked is what is used.  PATH
 * gets the resolved name: the jail mounts the workspace by name, and a
 * symlink on the way (TMPDIR=/home/u/link) could be turned elsewhere later.
 */
static int open_tmp_root(char path[PATH_MAX], struct sbx_err *err)
{
	struct path_walk w = { .flags = O_RDONLY, .check = check_step, .arg = err,
			       .walked = path, .walked_cap = PATH_MAX };
	char *real = realpath(tmp_root(), NULL);
	int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (!real || root < 0) {
		int e = errno;
		free(real);
		if (root >= 0)
			close(root);
		return err_set(err, ERR_SETUP, e, "TMPDIR %s: %s (set TMPDIR to a writable directory)",
			       tmp_root(), strerror(e));
	}
	strcpy(path, "/");
	fd = path_walk(root, real, &w, NULL);
	close(root);
	if (fd < 0 && w.failed == PATH_FAIL_OPEN && errno == ENOTDIR) /* a file, not a race: say so */
		err_set(err, ERR_SETUP, errno, "TMPDIR %s: %s is not a directory "
			"(set TMPDIR to a writable directory)", tmp_root(), path);
	else if (fd < 0 && w.failed != PATH_FAIL_CHECK)
		err_set(err, ERR_SETUP, errno, "TMPDIR %s: %s changed while being opened: %s",
			tmp_root(), path, strerror(errno));
	free(real);
	return fd;
}

/*
 * Disposable workspaces live in $TMPDIR/sbx-UID/ws-XXXXXX.  Each run holds
 * an flock on its own directory for its whole life, so the next run can
 * tell what a crashed (SIGKILLed) sbx left and remove it (requirements item
 * 110) by looking in one small directory, not the whole of $TMPDIR.  The
 * lock dies with the process, so a reused pid can never look alive.  Runs
 * create under a shared lock on the parent and reclaim under an exclusive
 * one, so a directory between mkdirat and its flock is never taken for
 * stale.  Everything below TMPDIR is made, opened and removed by fd
 * (mkdirat, openat O_NOFOLLOW, unlinkat): a name another user renames or
 * replaces by a symlink meanwhile never leads sbx anywhere else.
 */
static int open_parent(int tmpfd, const char *tmp_path, char **path, struct sbx_err *err)
{
	char name[32];
	struct stat st;
	int fd = -1;

	/* run by root, the program is host uid 65534 and must reach its
	 * workspace through TMPDIR: say so here, not as a mount failure */
	if (geteuid() == 0 && fstat(tmpfd, &st) == 0 && !(st.st_mode & S_IXOTH) &&
	    st.st_uid != SBX_NOBODY_ID)
		return err_set(err, ERR_SETUP, EACCES,
			       "TMPDIR %s is not searchable by others (mode %03o): run by root, "
			       "the program is host uid %d and must reach its workspace there "
			       "(use a TMPDIR such as /tmp, or chmod o+x it)",
			       tmp_root(), (unsigned)(st.st_mode & 0777), SBX_NOBODY_ID);

	snprintf(name, sizeof(name), "sbx-%u", (unsigned)geteuid());
	if (asprintf(path, "%s%s%s", tmp_path, tmp_path[1] ? "/" : "", name) < 0) {
		*path = NULL;
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	/* a run that just ended may rmdir it between our mkdir and open */
	for (int attempt = 0; attempt < 16; attempt++) {
		/* 0711: run by root, the jail's host uid 65534 must traverse it */
		if (mkdirat(tmpfd, name, 0711) < 0 && errno != EEXIST)
			return err_set(err, ERR_SETUP, errno,
				       "mkdir %s: %s (set TMPDIR to a writable directory)",
				       *path, strerror(errno));
		fd = openat(tmpfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
	}
	/* /tmp is shared: a directory another user planted there (or a
	 * symlink) must not receive our workspaces */
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		int e = fd < 0 ? errno : EPERM;
		if (fd >= 0)
			close(fd);
		return err_set(err, ERR_SETUP, e,
			       "%s is not a private directory of uid %u (%s): remove it or set TMPDIR",
			       *path, (unsigned)geteuid(), strerror(e));
	}
	return fd;
}

/* Remove ws-* directories nobody holds a lock on: left by a crashed sbx. */
static void reclaim_stale(int parent_fd)
{
	int fd, rc;
	DIR *d;
	struct dirent *e;

	if (flock(parent_fd, LOCK_EX | LOCK_NB) < 0)
		return; /* another run is creating or reclaiming: next time */
	fd = fcntl(parent_fd, F_DUPFD_CLOEXEC, 0);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "ws-", 3) != 0)
			continue;
		int ws = openat(parent_fd, e->d_name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (ws < 0)
			continue;
		if (flock(ws, LOCK_EX | LOCK_NB) == 0 && ws_remove_contents(ws) == 0)
			(void)unlinkat(parent_fd, e->d_name, AT_REMOVEDIR);
		close(ws);
	}
	closedir(d);
	rc = flock(parent_fd, LOCK_UN);
	(void)rc;
}

/* A fresh "ws-XXXXXXXXXX" name from the kernel's random pool. */
static int random_name(char *name, size_t cap)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[10];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	snprintf(name, cap, "ws-");
	for (size_t i = 0; i < sizeof(r) && i + 4 < cap; i++) {
		name[3 + i] = set[r[i] % (sizeof(set) - 1)];
		name[4 + i] = '\0';
	}
	return 0;
}

/* mkdirat + openat (never by path) of a fresh 0700 directory in PFD. */
static int make_ws_dir(struct workspace *ws, int pfd, char *name, size_t cap)
{
	for (int attempt = 0; attempt < 32; attempt++) {
		if (random_name(name, cap) < 0)
			return -1;
		if (mkdirat(pfd, name, 0700) == 0)
			break;
		if (errno != EEXIST)
			return -1;
	}
	ws->disposable = true; /* from here on, workspace_close removes it */
	ws->dirfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return ws->dirfd < 0 ? -1 : 0;
}

/* A fresh directory + flock under a shared lock on the parent (see above). */
static int create_locked(struct workspace *ws, int pfd, const char *parent,
			 struct sbx_err *err)
{
	char name[32] = "ws-";
	int e = 0;

	while (flock(pfd, LOCK_SH) < 0 && errno == EINTR)
		;
	/* a unique 0700 directory, so parallel runs never share one */
	if (make_ws_dir(ws, pfd, name, sizeof(name)) < 0 ||
	    flock(ws->dirfd, LOCK_EX | LOCK_NB) < 0)
		e = errno;
	(void)flock(pfd, LOCK_UN);
	/* made: workspace_close needs its name to remove it */
	if (ws->disposable && asprintf(&ws->host_path, "%s/%s", parent, name) < 0) {
		ws->host_path = NULL;
		e = e ? e : ENOMEM;
	}
	if (e)
		err_set(err, ERR_SETUP, e, "mkdir %s/%s: %s (set TMPDIR to a writable directory)",
			parent, name, strerror(e));
	errno = e;
	return e ? -1 : 0;
}

static int make_disposable(struct workspace *ws, struct sbx_err *err)
{
	char *parent = NULL;
	char tmp_path[PATH_MAX];
	int pfd = -1, tmpfd = open_tmp_root(tmp_path, err);

	if (tmpfd < 0)
		return -1;
	/* a concurrent run may rmdir the empty parent in between: retry */
	for (int attempt = 0; attempt < 16; attempt++) {
		free(parent);
		parent = NULL;
		pfd = open_parent(tmpfd, tmp_path, &parent, err);
		if (pfd < 0)
			break;
		reclaim_stale(pfd);
		if (create_locked(ws, pfd, parent, err) == 0 || errno != ENOENT ||
		    ws->disposable)
			break;
		close(pfd);
		pfd = -1;
	}
	free(parent);
	if (!ws->disposable) { /* nothing was made: nothing to remove */
		if (pfd >= 0)
			close(pfd);
		close(tmpfd);
		return -1;
	}
	ws->parent_fd = pfd;
	ws->tmp_fd = tmpfd;
	if (ws->dirfd < 0 || !ws->host_path)
		return -1;
	/* as root the program is uid 65534 on the host: let it write here */
	if (geteuid() == 0 &&
	    fchown(ws->dirfd, SBX_NOBODY_ID, SBX_NOBODY_ID) < 0)
		return err_set(err, ERR_SETUP, errno, "chown %s: %s",
			       ws->host_path, strerror(errno));
	return 0;
}

/*
 * Run by root, the program is host uid 65534 (spec §1), and sbx never
 * chowns a persistent directory (chown as root in a tree an unprivileged
 * uid controls invites link races): the files the program creates belong
 * to 65534, the owner the directory must already grant write access to.
 */
static int check_writable_as_root(const struct workspace *ws,
				  const struct stat *st, struct sbx_err *err)
{
	bool ok = (st->st_mode & S_IWOTH) ||
		  (st->st_uid == SBX_NOBODY_ID && (st->st_mode & S_IWUSR)) ||
		  (st->st_gid == SBX_NOBODY_ID && (st->st_mode & S_IWGRP));

	if (geteuid() != 0 || ok)
		return 0;
	return err_set(err, ERR_CONFIG, EACCES,
		       "--workdir %s: run by root, the program is host uid %d, which cannot write there (chown %d:%d the directory, or run sbx as an ordinary user)",
		       ws->host_path, SBX_NOBODY_ID, SBX_NOBODY_ID, SBX_NOBODY_ID);
}

static int lock_failed(const struct workspace *ws, int e, struct sbx_err *err)
{
	if (e != EWOULDBLOCK)
		return err_set(err, ERR_SETUP, e, "--workdir %s: flock: %s",
			       ws->host_path, strerror(e));
	err_set(err, ERR_SETUP, e,
		"workspace busy: --workdir %s is in use by another sbx run (wait for it to end, or use another directory)",
		ws->host_path);
	err->retryable = true; /* it frees when the other run ends */
	return -1;
}

static int adopt_workdir(struct workspace *ws, const char *dir,
			 struct sbx_err *err)
{
	struct stat st;

	ws->host_path = realpath(dir, NULL);
	if (!ws->host_path)
		return err_set(err, ERR_USAGE, errno,
			       "--workdir %s: %s (create the directory first)",
			       dir, strerror(errno));
	ws->dirfd = open(ws->host_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ws->dirfd < 0 || fstat(ws->dirfd, &st) < 0)
		return err_set(err, ERR_USAGE, errno, "--workdir %s: %s", dir,
			       strerror(errno));
	/* one run per persistent workspace; the lock dies with the fd, so a
	 * crashed sbx never leaves it stuck (requirements item 112) */
	if (flock(ws->dirfd, LOCK_EX | LOCK_NB) < 0)
		return lock_failed(ws, errno, err);
	return check_writable_as_root(ws, &st, err);
}

int workspace_open(struct workspace *ws, const char *workdir, struct sbx_err *err)
{
	ws->host_path = NULL;
	ws->dirfd = ws->parent_fd = ws->tmp_fd = -1;
	ws->disposable = false;
	if (workdir)
		return adopt_workdir(ws, workdir, err);
	return make_disposable(ws, err);
}

/* ---- copy in ---------------------------------------------------------- */

int copy_bytes(int in, int out)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			off += w;
		}
	}
	return 0;
}

static int open_source(const char *src, const char *option, struct sbx_err *err)
{
	struct stat st;
	/* O_NOFOLLOW: copy the file named, not whatever a symlink points at;
	 * O_NONBLOCK: a FIFO cannot hang sbx before the run starts */
	int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 && errno == ELOOP)
		return err_set(err, ERR_USAGE, ELOOP,
			       "%s %s: is a symbolic link (name the file it points to)",
			       option, src);
	if (fd < 0)
		return err_set(err, ERR_USAGE, errno, "%s %s: %s", option, src,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, ERR_USAGE, 0, "%s %s: not a regular file",
			       option, src);
	}
	return fd;
}

static const char *checked_basename(const char *src, const char *option,
				    struct sbx_err *err)
{
	const char *base = strrchr(src, '/');

	base = base ? base + 1 : src;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		err_set(err, ERR_USAGE, 0, "%s %s: not a file name", option, src);
		return NULL;
	}
	return base;
}

static int open_target(const struct workspace *ws, const char *name,
		       const char *option, struct sbx_err *err)
{
	int fd;

	/* a persistent workspace keeps the copy of the last run: replace it */
	if (!ws->disposable && unlinkat(ws->dirfd, name, 0) < 0 && errno != ENOENT)
		return err_set(err, ERR_SETUP, errno,
			       "%s: cannot replace %s/%s: %s", option,
			       ws->host_path, name, strerror(errno));
	/* O_EXCL|O_NOFOLLOW: never write through a link planted in the workspace */
	fd = openat(ws->dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST)
		return err_set(err, ERR_USAGE, EEXIST,
			       "%s: a file named '%s' is already in the workspace (rename one of them)",
			       option, name);
	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "%s: create %s/%s: %s",
			       option, ws->host_path, name, strerror(errno));
	if (ws->disposable && geteuid() == 0 &&
	    fchown(fd, SBX_NOBODY_ID, SBX_NOBODY_ID) < 0) {
		err_set(err, ERR_SETUP, errno, "chown %s/%s: %s", ws->host_path,
			name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int workspace_copy_in(const struct workspace *ws, const char *src,
		      const char *option, struct sbx_err *err)
{
	const char *name = checked_basename(src, option, err);
	int in, out, rc = 0;

	if (!name)
		return -1;
	in = open_source(src, option, err);
	if (in < 0)
		return -1;
	out = open_target(ws, name, option, err);
	if (out < 0) {
		close(in);
		return -1;
	}
	if (copy_bytes(in, out) < 0)
		rc = err_set(err, ERR_SETUP, errno, "%s: copying %s: %s", option,
			     src, strerror(errno));
	close(in);
	if (close(out) < 0 && rc == 0)
		rc = err_set(err, ERR_SETUP, errno, "%s: writing %s/%s: %s",
			     option, ws->host_path, name, strerror(errno));
	if (rc < 0)
		unlinkat(ws->dirfd, name, 0);
	return rc;
}

int workspace_remove_file(const struct workspace *ws, const char *name,
			  struct sbx_err *err)
{
	/* unlinkat never follows: a link planted under NAME goes, not its target */
	if (unlinkat(ws->dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	return err_set(err, ERR_CONFIG, errno,
		       "%s/%s is in the way of the build output: %s (remove it)",
		       ws->host_path, name, strerror(errno));
}
