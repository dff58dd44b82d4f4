/*
 * workspace.c - the run's workspace; see workspace.h.
 *
 * A persistent one (-w) is adopted and locked; a disposable one is the
 * jail's tmpfs, filled at CTL_READY through the supervisor's descriptor.
 * Copy-in goes by descriptor.
 */
#include "base/callerpath.h"
#include "base/cleanup.h"
#include "base/ids.h"
#include "base/path.h"
#include "workspace/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned long long workspace_tmpfs_mb(uint64_t file_size_mb)
{
	if (file_size_mb >= WS_TMPFS_MAX_MB / WS_TMPFS_FILES)
		return WS_TMPFS_MAX_MB;
	if (file_size_mb * WS_TMPFS_FILES < WS_TMPFS_MIN_MB)
		return WS_TMPFS_MIN_MB;
	return file_size_mb * WS_TMPFS_FILES;
}

/* How messages name the workspace. */
static const char *ws_name(const struct workspace *ws)
{
	return ws->host_path ? ws->host_path : "the workspace tmpfs";
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
	/* no link in any component: run by root, the workspace is idmapped to
	 * its owner, so a symlink a user or an earlier jail planted as DIR or a
	 * parent of it (say to /etc) gave the jail root's files to write */
	ws->dirfd = caller_open_dir("--workdir", dir, false, err);
	if (ws->dirfd < 0 && err->sys_errno == ENOENT)
		return err_set(err, ERR_USAGE, ENOENT, "--workdir %s: no such directory "
			       "(create it first)", dir);
	if (ws->dirfd < 0)
		return -1;
	ws->host_path = realpath(dir, NULL);
	if (!ws->host_path)
		return err_set(err, ERR_USAGE, errno, "--workdir %s: %s", dir, strerror(errno));
	/* one run per persistent workspace; the lock dies with the fd, so a
	 * crashed sbx never leaves it stuck */
	if (flock(ws->dirfd, LOCK_EX | LOCK_NB) < 0)
		return lock_failed(ws, errno, err);
	/* run by root, the jail gets it idmapped to its own host uid
	 * (jail/hostbind.c): sbx never chowns a persistent directory */
	return 0;
}

int workspace_open(struct workspace *ws, const char *workdir, struct sbx_err *err)
{
	ws->host_path = NULL;
	ws->dirfd = ws->mnt_fd = -1;
	ws->in = NULL;
	ws->nin = 0;
	ws->made = NULL;
	ws->nmade = 0;
	ws->disposable = !workdir;
	if (workdir)
		return adopt_workdir(ws, workdir, err);
	return 0;
}

/* ---- copy in ---------------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

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
		if (write_all(out, buf, (size_t)n) < 0)
			return -1;
	}
	return 0;
}

static int open_source(const char *src, const char *option, struct sbx_err *err)
{
	struct stat st;
	/* O_NOFOLLOW: copy the file named, not whatever a symlink points at;
	 * O_NONBLOCK: a FIFO cannot hang sbx before the run starts */
	int fd cleanup_fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 && errno == ELOOP)
		return err_set(err, ERR_USAGE, ELOOP,
			       "%s %s: is a symbolic link (name the file it points to)",
			       option, src);
	if (fd < 0)
		return err_set(err, ERR_USAGE, errno, "%s %s: %s", option, src,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return err_set(err, ERR_USAGE, 0, "%s %s: not a regular file",
			       option, src);
	return steal_fd(&fd);
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
		return err_set(err, ERR_SETUP, errno, "%s: create %s/%s: %s%s",
			       option, ws_name(ws), name, strerror(errno),
			       errno == ENOSPC ? " (the workspace tmpfs is full: raise the "
			       "file-size limit, which sizes it)" : "");
	return fd;
}

/* SRC (open as SRC_FD, closed here) into the workspace as NAME. */
static int copy_one(const struct workspace *ws, int src_fd, const char *src, const char *name,
		    const char *option, struct sbx_err *err)
{
	int in cleanup_fd = src_fd;
	int out cleanup_fd = open_target(ws, name, option, err);
	struct stat st;
	int rc = 0;

	if (out < 0)
		return -1;
	if (copy_bytes(in, out) < 0)
		rc = err_set(err, ERR_SETUP, errno, "%s: copying %s: %s%s", option,
			     src, strerror(errno), errno == ENOSPC ?
			     " (the workspace tmpfs is full: raise the file-size limit, "
			     "which sizes it)" : "");
	/* an executable stays one (-f prog -- ./prog); never set-id bits */
	if (rc == 0 && fstat(in, &st) == 0 && (st.st_mode & S_IXUSR) && fchmod(out, 0755) < 0)
		rc = err_set(err, ERR_SETUP, errno, "%s: chmod %s/%s: %s", option,
			     ws_name(ws), name, strerror(errno));
	/* a tmpfs reports a failed write at the latest here */
	if (close(steal_fd(&out)) < 0 && rc == 0)
		rc = err_set(err, ERR_SETUP, errno, "%s: writing %s/%s: %s",
			     option, ws_name(ws), name, strerror(errno));
	if (rc < 0)
		unlinkat(ws->dirfd, name, 0);
	return rc;
}

/* The tmpfs is made later: keep the open source (SRC_FD, kept or closed
 * here), refuse a second NAME now. */
static int defer_input(struct workspace *ws, int src_fd, const char *src, const char *name,
		       const char *option, struct sbx_err *err)
{
	int in cleanup_fd = src_fd;
	struct ws_input *v;

	for (size_t i = 0; i < ws->nin; i++)
		if (!strcmp(ws->in[i].name, name))
			return err_set(err, ERR_USAGE, EEXIST, "%s: a file named '%s' is "
				       "already in the workspace (rename one of them)",
				       option, name);
	v = realloc(ws->in, (ws->nin + 1) * sizeof(*v));
	if (!v)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	ws->in = v;
	ws->in[ws->nin++] = (struct ws_input){ .fd = steal_fd(&in), .name = name, .src = src,
					       .option = option };
	return 0;
}

int workspace_copy_in(struct workspace *ws, const char *src,
		      const char *option, struct sbx_err *err)
{
	const char *name = checked_basename(src, option, err);
	int in;

	if (!name)
		return -1;
	in = open_source(src, option, err);
	if (in < 0)
		return -1;
	if (ws->disposable)
		return defer_input(ws, in, src, name, option, err);
	return copy_one(ws, in, src, name, option, err);
}

/* One read of sbx's stdin, waiting when a caller left it non-blocking. */
static ssize_t read_stdin(char *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, len);
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

		if (n >= 0 || (errno != EINTR && errno != EAGAIN))
			return n;
		if (errno == EAGAIN && poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}

int workspace_copy_in_stdin(struct workspace *ws, const char *name, uint64_t max,
			    const char *option, struct sbx_err *err)
{
	/* an anonymous file: nothing on the host's disk, gone with sbx */
	int fd cleanup_fd = memfd_create("sbx-program-from-stdin", MFD_CLOEXEC);
	char buf[65536];
	uint64_t total = 0;
	ssize_t n;

	/* 0600: the copy is 0644, never executable because a memfd is 0777 */
	if (fd < 0 || fchmod(fd, 0600) < 0)
		return err_set(err, ERR_SETUP, errno, "%s -: memfd_create: %s", option,
			       strerror(errno));
	while ((n = read_stdin(buf, sizeof(buf))) > 0) {
		total += (uint64_t)n;
		/* a program cut at a limit would run as if whole: refuse it */
		if (total > max)
			return err_set(err, ERR_USAGE, EFBIG, "%s -: the program on stdin is "
				       "larger than the file-size limit (%llu MiB); raise "
				       "--fsize or give the program as a file", option,
				       (unsigned long long)(max >> 20));
		if (write_all(fd, buf, (size_t)n) < 0)
			return err_set(err, ERR_SETUP, errno, "%s -: keeping the program "
				       "read from stdin: %s", option, strerror(errno));
	}
	if (n < 0)
		return err_set(err, ERR_USAGE, errno, "%s -: reading the program from "
			       "stdin: %s", option, strerror(errno));
	if (lseek(fd, 0, SEEK_SET) < 0)
		return err_set(err, ERR_SETUP, errno, "%s -: lseek: %s", option,
			       strerror(errno));
	if (ws->disposable)
		return defer_input(ws, steal_fd(&fd), "stdin", name, option, err);
	return copy_one(ws, steal_fd(&fd), "stdin", name, option, err);
}

int workspace_attach(struct workspace *ws, int mnt_fd, uint32_t host_uid,
		     struct sbx_err *err)
{
	/* run by root: the tmpfs belongs to the jail's user namespace, where
	 * root is not mapped (EOVERFLOW): create as the jail's host uid */
	bool as_jail = ids_host_root();
	int rc = 0;

	ws->mnt_fd = mnt_fd;
	ws->dirfd = openat(mnt_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ws->dirfd < 0)
		return err_set(err, ERR_SETUP, errno, "opening the workspace tmpfs: %s",
			       strerror(errno));
	if (as_jail) {
		setfsgid(host_uid);
		setfsuid(host_uid);
	}
	/* what a failure leaves uncopied, workspace_close() closes */
	for (size_t i = 0; i < ws->nin && rc == 0; i++) {
		struct ws_input *in = &ws->in[i];
		rc = copy_one(ws, steal_fd(&in->fd), in->src, in->name, in->option, err);
	}
	if (as_jail) {
		setfsuid(0);
		setfsgid(0);
	}
	return rc;
}

int workspace_remove_file(const struct workspace *ws, const char *name,
			  struct sbx_err *err)
{
	if (ws->disposable) /* a fresh tmpfs: nothing is in the way */
		return 0;
	/* unlinkat never follows: a link planted under NAME goes, not its target */
	if (unlinkat(ws->dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	return err_set(err, ERR_CONFIG, errno,
		       "%s/%s is in the way of the build output: %s (remove it)",
		       ws->host_path, name, strerror(errno));
}

/* ---- mount points in a persistent workspace ------------------------- */

/* REL is there beneath DIRFD (walked without following a link). */
static bool exists_beneath(int dirfd, const char *rel)
{
	struct path_walk w = { .flags = O_PATH };
	char leaf[NAME_MAX + 1];
	struct stat st;
	int dir cleanup_fd = path_walk(dirfd, rel, &w, leaf);

	/* a link on the way is not sbx's to make: the mount refuses it */
	if (dir < 0)
		return errno != ENOENT;
	return fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

static int note_made(struct workspace *ws, const char *rel)
{
	char **v;

	for (size_t i = 0; i < ws->nmade; i++)
		if (strcmp(ws->made[i], rel) == 0)
			return 0;
	v = realloc(ws->made, (ws->nmade + 1) * sizeof(*v));
	if (!v)
		return -1;
	ws->made = v;
	v[ws->nmade] = strdup(rel);
	if (!v[ws->nmade])
		return -1;
	ws->nmade++;
	return 0;
}

/* The components of DST (inside the workspace at REL) that DIR lacks. */
static int note_dst(struct workspace *ws, const char *rel)
{
	char prefix[PATH_MAX] = "";
	size_t len = 0;
	bool missing = false;

	for (const char *p = rel, *e; *p; p = e) {
		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		if (e == p || (e - p == 1 && *p == '.'))
			continue;
		if (len + (size_t)(e - p) + 2 > sizeof(prefix))
			return 0; /* the mount refuses a name that long */
		len += (size_t)snprintf(prefix + len, sizeof(prefix) - len, "%s%.*s",
					len ? "/" : "", (int)(e - p), p);
		/* once one is missing, the jail makes every one below it */
		missing = missing || !exists_beneath(ws->dirfd, prefix);
		if (missing && note_made(ws, prefix) < 0)
			return -1;
	}
	return 0;
}

int workspace_note_mount_points(struct workspace *ws, const struct policy *policy,
				struct sbx_err *err)
{
	const char *root = policy->workspace ? policy->workspace : "/mnt/data";
	size_t n = strlen(root);

	if (ws->disposable || ws->dirfd < 0)
		return 0;
	for (size_t i = 0; i < policy->nmounts; i++) {
		const char *dst = policy->mounts[i].dst;

		if (strncmp(dst, root, n) == 0 && dst[n] == '/' && note_dst(ws, dst + n) < 0)
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	return 0;
}

void workspace_remove_mount_points(struct workspace *ws)
{
	/* deepest first: each was noted after its parent */
	for (size_t i = ws->nmade; i-- > 0;) {
		struct path_walk w = { .flags = O_PATH };
		char leaf[NAME_MAX + 1];
		struct stat st;
		int dir cleanup_fd = path_walk(ws->dirfd, ws->made[i], &w, leaf);

		if (dir < 0 || fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* only as sbx made it: rmdir fails on a directory the program
		 * filled; an empty file is a file bind's mount point */
		if (S_ISDIR(st.st_mode))
			(void)unlinkat(dir, leaf, AT_REMOVEDIR);
		else if (S_ISREG(st.st_mode) && st.st_size == 0)
			(void)unlinkat(dir, leaf, 0);
	}
}

void workspace_close(struct workspace *ws)
{
	for (size_t i = 0; i < ws->nmade; i++)
		free(ws->made[i]);
	free(ws->made);
	ws->made = NULL;
	ws->nmade = 0;
	for (size_t i = 0; i < ws->nin; i++)
		if (ws->in[i].fd >= 0)
			close(ws->in[i].fd);
	free(ws->in);
	if (ws->dirfd >= 0)
		close(ws->dirfd);
	if (ws->mnt_fd >= 0)
		close(ws->mnt_fd);
	free(ws->host_path);
	ws->in = NULL;
	ws->nin = 0;
	ws->dirfd = ws->mnt_fd = -1;
	ws->host_path = NULL;
}
