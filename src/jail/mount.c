/*
 * mount.c - the jail's root filesystem, built from the policy's mounts.
 *
 * In the jail's own mount namespace: make every mount private, open every
 * bind source while the host is still visible, mount a small tmpfs on /tmp
 * (only in this namespace) as the new root, create each destination inside
 * it by a walk that never follows a symlink, mount, synthesize /etc, make
 * the root read-only and pivot_root into it.  Host paths not mounted are
 * then unreachable: the old root is detached.
 *
 * Every mount is placed onto the fd the walk checked, never a path
 * (mountpoint.c), and binds are recursive clones with every submount made
 * read-only, nosuid and nodev with them.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/ids.h"
#include "policy/policy.h"

#define MAX_DEFERRED 16
#define NEEDS_KERNEL "the new mount API: sbx needs Linux 5.12 or later"

/* A bind source opened before the new root hides the host. */
struct bind_src {
	int fd;       /* O_PATH fd, or -1 */
	char *link;   /* the source is a symlink: its target */
	bool skip;    /* optional and missing */
	int procfs;   /* is or carries a procfs: carries_procfs() */
};

struct root_build {
	const struct jail_plan *plan;
	int root_fd;                  /* mount fd of the new root */
	int proc_fd;                  /* the first PROC mount, opened O_RDONLY */
	struct bind_src *srcs;        /* one per policy mount */
	struct bind_src ws;           /* the workspace */
	int deferred[MAX_DEFERRED];   /* mount fds made read-only at the end */
	size_t ndeferred;
	struct jail_fs *fs;           /* the meter's fds, kept as they are made */
};

/* Keep a tmpfs for the meter by the mount fd itself: a path opened later
 * could lead to another tmpfs (a mount over it, a renamed rw-bind dir). */
static int keep_tmpfs(struct root_build *b, int mnt)
{
	size_t max = sizeof(b->fs->tmpfs) / sizeof(b->fs->tmpfs[0]);
	int fd;

	/* fail closed: a tmpfs the meter does not hold is memory nobody charges */
	if (b->fs->ntmpfs == max) {
		errno = E2BIG;
		return -1;
	}
	if ((fd = fcntl(mnt, F_DUPFD_CLOEXEC, 3)) < 0)
		return -1;
	b->fs->tmpfs[b->fs->ntmpfs++] = fd;
	return 0;
}

_Static_assert(POLICY_MAX_TMPFS + 1 <= sizeof(((struct jail_fs *)0)->tmpfs) / sizeof(int),
	       "the root and every tmpfs/dev mount fit the meter's fds");

static const char *type_name(enum mount_type t)
{
	static const char *const names[] = { "bind", "tmpfs", "proc", "dev", "symlink" };

	return t <= MNT_SYMLINK ? names[t] : "?";
}

static int mount_fail(struct sbx_err *err, int e, const struct mount_entry *m,
		      const char *step)
{
	if (e == ENOSYS)
		step = NEEDS_KERNEL;
	if (e == ELOOP)
		step = "the destination passes through a symlink (refused: it "
		       "could point outside the jail)";
	/* sources are opened with the jail's credentials, not sbx's */
	if (m->src && e == EACCES)
		return err_set(err, ERR_SETUP, e,
			       "mount %s (%s from %s): %s: %s (the jail reaches it as its own "
			       "host uid, %u when sbx runs as root: make it readable by "
			       "others, or run sbx as the files' owner)",
			       m->dst, type_name(m->type), m->src, step, strerror(e),
			       SBX_NOBODY_ID);
	if (m->src && e == ENOENT && m->type == MNT_BIND)
		return err_set(err, ERR_SETUP, e,
			       "mount %s (%s from %s): %s: %s (fix the path, or mark the "
			       "mount optional: true to skip it when absent)",
			       m->dst, type_name(m->type), m->src, step, strerror(e));
	if (m->src)
		return err_set(err, ERR_SETUP, e, "mount %s (%s from %s): %s: %s",
			       m->dst, type_name(m->type), m->src, step, strerror(e));
	return err_set(err, ERR_SETUP, e, "mount %s (%s): %s: %s", m->dst,
		       type_name(m->type), step, strerror(e));
}

/* Mountinfo's octal escapes (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o = *s;
		}
	}
	*o = '\0';
}

/* A line of mountinfo names a procfs mounted at DIR or below it. */
static bool proc_line_under(char *line, const char *dir)
{
	char *save = NULL, *mp = NULL, *f = strtok_r(line, " ", &save);
	size_t n = strlen(dir);

	for (int i = 0; f && i < 4; i++)
		mp = f = strtok_r(NULL, " ", &save);
	while (f && strcmp(f, "-") != 0)
		f = strtok_r(NULL, " ", &save);
	f = f ? strtok_r(NULL, " ", &save) : NULL;
	if (!mp || !f || strcmp(f, "proc") != 0)
		return false;
	unescape(mp);
	if (n == 1)
		return true; /* DIR is "/" */
	return strncmp(mp, dir, n) == 0 && (mp[n] == '/' || mp[n] == '\0');
}

/*
 * A bind source that is, or carries as a submount, a procfs: the host's
 * shows every host process (spec: the program cannot see them).  Read
 * while the host's /proc is still this namespace's.  1 yes, 0 no, -1 error.
 */
static int carries_procfs(int fd)
{
	char self[32], dir[PATH_MAX], *line = NULL;
	struct statfs sfs;
	size_t cap = 0;
	ssize_t n;
	int found = 0;
	FILE *f;

	if (fstatfs(fd, &sfs) < 0)
		return -1;
	if (sfs.f_type == PROC_SUPER_MAGIC)
		return 1;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if ((n = readlink(self, dir, sizeof(dir) - 1)) <= 0 || dir[0] != '/' ||
	    !(f = fopen("/proc/self/mountinfo", "re")))
		return -1;
	dir[n] = '\0';
	while (!found && getline(&line, &cap, f) > 0)
		found = proc_line_under(line, dir);
	free(line);
	fclose(f);
	return found;
}

static int open_source(const struct mount_entry *m, struct bind_src *s,
		       struct sbx_err *err)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	s->fd = -1;
	if (lstat(m->src, &st) < 0) {
		if (errno == ENOENT && m->optional) {
			s->skip = true;
			return 0;
		}
		return mount_fail(err, errno, m, "lstat of the source");
	}
	/* A host symlink (merged-usr /bin -> usr/bin) becomes the same link. */
	if (S_ISLNK(st.st_mode)) {
		n = readlink(m->src, target, sizeof(target) - 1);
		if (n < 0)
			return mount_fail(err, errno, m, "readlink of the source");
		target[n] = '\0';
		s->link = strdup(target);
		return s->link ? 0 : mount_fail(err, ENOMEM, m, "strdup");
	}
	s->fd = open(m->src, O_PATH | O_CLOEXEC);
	if (s->fd < 0)
		return mount_fail(err, errno, m, "open of the source");
	s->procfs = carries_procfs(s->fd);
	return 0;
}

static int open_sources(struct root_build *b, struct sbx_err *err)
{
	const struct policy *p = b->plan->policy;
	const char *ws = b->plan->spec->workspace_host;

	b->srcs = calloc(p->nmounts + 1, sizeof(*b->srcs));
	if (!b->srcs)
		return err_set(err, ERR_SETUP, ENOMEM, "mount: out of memory");
	for (size_t i = 0; i < p->nmounts; i++)
		b->srcs[i].fd = -1;
	for (size_t i = 0; i < p->nmounts; i++)
		if (p->mounts[i].type == MNT_BIND &&
		    open_source(&p->mounts[i], &b->srcs[i], err) < 0)
			return -1;
	b->ws.fd = -1;
	if (ws) {
		b->ws.fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (b->ws.fd < 0)
			return err_set(err, ERR_SETUP, errno,
				       "workspace %s: open: %s", ws, strerror(errno));
		b->ws.procfs = carries_procfs(b->ws.fd); /* -w /proc: the same */
	}
	return 0;
}

static int bind_entry(struct root_build *b, const struct mount_entry *m,
		      const struct bind_src *s, struct sbx_err *err)
{
	const char *step = "mount";
	struct stat st;
	int tree, dst;

	if (s->link) {
		if (mp_make(b->root_fd, m->dst, LEAF_LINK, s->link) < 0)
			return mount_fail(err, errno, m, "symlink");
		return 0;
	}
	if (fstat(s->fd, &st) < 0)
		return mount_fail(err, errno, m, "fstat of the source");
	/* a host procfs shows the host's processes: the jail has its own /proc */
	if (s->procfs > 0)
		return mount_fail(err, EPERM, m, "the source is or holds a host procfs "
				  "(refused: it shows every host process; the jail "
				  "has its own /proc)");
	if (s->procfs < 0) /* fail closed: what cannot be checked is not bound */
		return mount_fail(err, EPERM, m, "cannot tell whether the source holds "
				  "a host procfs (no /proc/self/mountinfo)");
	dst = mp_make(b->root_fd, m->dst, S_ISDIR(st.st_mode) ? LEAF_DIR : LEAF_FILE, NULL);
	if (dst < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	/* nosuid+nodev on every mount of the tree: setuid files and device
	 * nodes from the host must not work inside */
	tree = mp_clone(s->fd, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			(m->rw ? 0 : MOUNT_ATTR_RDONLY) |
			(m->noexec ? MOUNT_ATTR_NOEXEC : 0), &step);
	if (tree < 0 || mp_attach(tree, dst) < 0)
		return mount_fail(err, mp_close2(tree, dst, errno), m,
				  tree < 0 ? step : "move_mount onto the mount point");
	mp_close2(tree, dst, 0);
	vlog_line(&b->plan->vlog, "mount %s (bind%s from %s)", m->dst, m->rw ? " rw" : "", m->src);
	return 0;
}

static int defer_readonly(struct root_build *b, int mnt)
{
	if (b->ndeferred == MAX_DEFERRED) {
		errno = E2BIG;
		return -1;
	}
	b->deferred[b->ndeferred++] = mnt;
	return 0;
}

/* NEW_FS onto DST (a directory made in the new root); the mount fd. */
static int mount_new_fs(struct root_build *b, const struct mount_entry *m,
			const char *type, const char *const *opts, unsigned attrs,
			struct sbx_err *err)
{
	int dst = mp_make(b->root_fd, m->dst, LEAF_DIR, NULL), mnt;

	if (dst < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	mnt = mp_new_fs(type, opts, attrs);
	if (mnt < 0 || mp_attach(mnt, dst) < 0) {
		mount_fail(err, mp_close2(mnt, dst, errno), m,
			   mnt < 0 ? "creating the filesystem (fsopen/fsmount)"
				   : "move_mount onto the mount point");
		return -1;
	}
	close(dst);
	return mnt;
}

/*
 * An unsized tmpfs may take half of RAM and is not charged to RLIMIT_AS;
 * its inodes are not charged to size= either, so millions of empty files
 * would pin kernel memory: nr_inodes bounds them too.
 */
#define TMPFS_INODES_PER_MB 1024

static int tmpfs_entry(struct root_build *b, const struct mount_entry *m,
		       struct sbx_err *err)
{
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			 (m->noexec ? MOUNT_ATTR_NOEXEC : 0);
	unsigned long long mb = m->size_mb ? m->size_mb : 20;
	char size[32], inodes[32];
	const char *opts[] = { "size", size, "nr_inodes", inodes,
			       "mode", m->rw ? "1777" : "0755", NULL };
	int mnt;

	snprintf(size, sizeof(size), "%llum", mb);
	snprintf(inodes, sizeof(inodes), "%llu", mb * TMPFS_INODES_PER_MB);
	mnt = mount_new_fs(b, m, "tmpfs", opts, attrs, err);
	if (mnt < 0)
		return -1;
	if (keep_tmpfs(b, mnt) < 0)
		return mount_fail(err, mp_close2(mnt, -1, errno), m,
				  "keeping the tmpfs for the memory meter");
	if (m->rw)
		close(mnt);
	else if (defer_readonly(b, mnt) < 0)
		return mount_fail(err, mp_close2(mnt, -1, errno), m,
				  "too many read-only tmpfs mounts");
	vlog_line(&b->plan->vlog, "mount %s (tmpfs size=%s nr_inodes=%s)", m->dst, size, inodes);
	return 0;
}

/*
 * The proc the supervisor meters through must be the jail's, not one a
 * bind put on the same path: opened from the new mount itself, then
 * checked to be a procfs whose "self" is the init, pid 1 of the jail.
 */
static int open_own_proc(int mnt)
{
	char self[16];
	struct statfs sfs;
	int fd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = readlinkat(fd, "self", self, sizeof(self) - 1);
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC || n != 1 ||
	    self[0] != '1') {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	return fd;
}

/* A fresh proc for the jail's pid namespace: only the jail's processes. */
static int proc_entry(struct root_build *b, const struct mount_entry *m,
		      struct sbx_err *err)
{
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
			 (m->rw ? 0 : MOUNT_ATTR_RDONLY);
	int mnt = mount_new_fs(b, m, "proc", NULL, attrs, err);

	if (mnt < 0)
		return -1;
	if (b->proc_fd < 0) {
		b->proc_fd = open_own_proc(mnt);
		if (b->proc_fd < 0)
			return mount_fail(err, mp_close2(mnt, -1, errno), m,
					  "opening the new proc (it must be the jail's "
					  "own, with /proc/self = 1)");
	}
	close(mnt);
	vlog_line(&b->plan->vlog, "mount %s (proc)", m->dst);
	return 0;
}

/* /dev/NAME of the host, bound on an empty file NAME in DEV (a mount fd). */
static int dev_node(int dev, const char *name)
{
	char host[64];
	int fd, tree;

	snprintf(host, sizeof(host), "/dev/%s", name);
	fd = openat(dev, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0)
		return -1;
	close(fd);
	fd = mp_open_leaf(dev, name, LEAF_FILE);
	if (fd < 0)
		return -1;
	/* mknod is not allowed in a user namespace: bind the host's node. */
	tree = open_tree(AT_FDCWD, host, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0 || mp_attach(tree, fd) < 0)
		return mp_close2(tree, fd, -1);
	return mp_close2(tree, fd, 0);
}

static int dev_links(int dev)
{
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
	};

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlinkat(links[i][1], dev, links[i][0]) < 0)
			return -1;
	return 0;
}

/* The policy mounts a tmpfs on DST/shm. */
static bool wants_shm(const struct policy *p, const char *dst)
{
	size_t n = strlen(dst);

	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount_entry *o = &p->mounts[i];

		if (o->type == MNT_TMPFS && strncmp(o->dst, dst, n) == 0 &&
		    strcmp(o->dst + n, "/shm") == 0)
			return true;
	}
	return false;
}

/* /dev with only null, zero, full, random, urandom (no pts, no shm). */
static int dev_entry(struct root_build *b, const struct mount_entry *m,
		     struct sbx_err *err)
{
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
	static const char *const opts[] = { "size", "64k", "mode", "0755", NULL };
	int dev = mount_new_fs(b, m, "tmpfs", opts,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, err);

	if (dev < 0)
		return -1;
	if (keep_tmpfs(b, dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m,
				  "keeping /dev for the memory meter");
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (dev_node(dev, nodes[i]) < 0)
			return mount_fail(err, mp_close2(dev, -1, errno), m, nodes[i]);
	if (dev_links(dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "symlinks");
	/* /dev/shm exists only when the policy mounts a tmpfs there. */
	if (wants_shm(b->plan->policy, m->dst) && mkdirat(dev, "shm", 01777) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "mkdir shm");
	if (defer_readonly(b, dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "too many read-only mounts");
	vlog_line(&b->plan->vlog, "mount %s (dev)", m->dst);
	return 0;
}

static int symlink_entry(struct root_build *b, const struct mount_entry *m,
			 struct sbx_err *err)
{
	if (mp_make(b->root_fd, m->dst, LEAF_LINK, m->src) < 0)
		return mount_fail(err, errno, m, "symlink");
	return 0;
}

static int mount_entry(struct root_build *b, size_t i, struct sbx_err *err)
{
	const struct mount_entry *m = &b->plan->policy->mounts[i];

	switch (m->type) {
	case MNT_BIND:
		return b->srcs[i].skip ? 0 : bind_entry(b, m, &b->srcs[i], err);
	case MNT_TMPFS:
		return tmpfs_entry(b, m, err);
	case MNT_PROC:
		return proc_entry(b, m, err);
	case MNT_DEV:
		return dev_entry(b, m, err);
	case MNT_SYMLINK:
		return symlink_entry(b, m, err);
	}
	return err_set(err, ERR_SETUP, EINVAL, "mount %s: unknown type", m->dst);
}

static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The workspace, read-write, nosuid, nodev; or an empty directory. */
static int mount_workspace(struct root_build *b, struct sbx_err *err)
{
	const struct policy *p = b->plan->policy;
	struct mount_entry m = {
		.dst = p->workspace ? p->workspace : "/mnt/data",
		.src = (char *)b->plan->spec->workspace_host,
		.type = MNT_BIND, .rw = true,
	};
	int fd;

	if (b->ws.fd >= 0)
		return bind_entry(b, &m, &b->ws, err);
	fd = mp_make(b->root_fd, m.dst, LEAF_DIR, NULL);
	if (fd < 0)
		return mount_fail(err, errno, &m, "mkdir");
	close(fd);
	return 0;
}

/* Policy mounts in order; the workspace goes before the ones inside it. */
static int mount_all(struct root_build *b, struct sbx_err *err)
{
	const struct policy *p = b->plan->policy;
	const char *ws = p->workspace ? p->workspace : "/mnt/data";
	bool ws_done = false;

	for (size_t i = 0; i < p->nmounts; i++) {
		if (!ws_done && is_under(p->mounts[i].dst, ws)) {
			if (mount_workspace(b, err) < 0)
				return -1;
			ws_done = true;
		}
		if (mount_entry(b, i, err) < 0)
			return -1;
	}
	return ws_done ? 0 : mount_workspace(b, err);
}

static int synthesize_etc(struct root_build *b, struct sbx_err *err)
{
	struct mount_entry m = { .dst = "/etc", .type = MNT_TMPFS };
	int fd, rc;

	if (etc_is_mounted(b->plan->policy))
		return 0;
	fd = mp_make(b->root_fd, "/etc", LEAF_DIR, NULL);
	if (fd < 0)
		return mount_fail(err, errno, &m, "mkdir /etc");
	rc = etc_synthesize(b->plan, fd, err);
	close(fd);
	vlog_line(&b->plan->vlog, "synthesized /etc");
	return rc;
}

/* The cwd must exist; creating it may fail in a read-only bind: fine. */
static void make_cwd(struct root_build *b)
{
	const char *cwd = b->plan->policy->cwd;
	int fd = cwd ? mp_make(b->root_fd, cwd, LEAF_DIR, NULL) : -1;

	if (fd >= 0)
		close(fd);
}

/* Read-only last: /etc and the mount points cannot be changed by the
 * program (requirement: files sbx provides are read-only). */
static int make_readonly(struct root_build *b, struct sbx_err *err)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID };
	struct mount_attr root = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
						MOUNT_ATTR_NODEV };

	for (size_t i = 0; i < b->ndeferred; i++)
		if (mount_setattr(b->deferred[i], "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			return err_set(err, ERR_SETUP, errno, "remount a tmpfs read-only: %s",
				       errno == ENOSYS ? NEEDS_KERNEL : strerror(errno));
	if (mount_setattr(b->root_fd, "", AT_EMPTY_PATH, &root, sizeof(root)) < 0)
		return err_set(err, ERR_SETUP, errno, "remount the root read-only: %s",
			       errno == ENOSYS ? NEEDS_KERNEL : strerror(errno));
	return 0;
}

/* pivot_root(".", "."): the old root lands on top of the new one and is
 * detached at once, with every host mount under it. */
static int enter_root(struct root_build *b, struct sbx_err *err)
{
	if (fchdir(b->root_fd) < 0)
		return err_set(err, ERR_SETUP, errno, "chdir to the new root: %s",
			       strerror(errno));
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return err_set(err, ERR_SETUP, errno, "pivot_root: %s", strerror(errno));
	if (umount2(".", MNT_DETACH) < 0)
		return err_set(err, ERR_SETUP, errno, "detaching the host root: %s",
			       strerror(errno));
	if (chdir("/") < 0)
		return err_set(err, ERR_SETUP, errno, "chdir /: %s", strerror(errno));
	vlog_line(&b->plan->vlog, "pivot_root done");
	return 0;
}

static int new_root(struct root_build *b, struct sbx_err *err)
{
	static const char *const opts[] = { "size", "16m", "mode", "0755", NULL };

	/* Private: nothing we mount propagates back to the host, and host
	 * mount events do not reach the jail. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return err_set(err, ERR_SETUP, errno, "making mounts private: %s",
			       strerror(errno));
	if (open_sources(b, err) < 0)
		return -1;
	b->root_fd = mp_new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (b->root_fd < 0 || move_mount(b->root_fd, "", AT_FDCWD, JAIL_BUILD_DIR,
					 MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return err_set(err, ERR_SETUP, errno, "mount the root tmpfs on %s: %s",
			       JAIL_BUILD_DIR, errno == ENOSYS ? NEEDS_KERNEL : strerror(errno));
	if (keep_tmpfs(b, b->root_fd) < 0)
		return err_set(err, ERR_SETUP, errno, "keeping the root tmpfs for the "
			       "memory meter: %s", strerror(errno));
	vlog_line(&b->plan->vlog, "root tmpfs");
	return 0;
}

static void release(struct root_build *b)
{
	const struct policy *p = b->plan->policy;

	if (b->root_fd >= 0)
		close(b->root_fd);
	for (size_t i = 0; i < b->ndeferred; i++)
		close(b->deferred[i]);
	for (size_t i = 0; b->srcs && i < p->nmounts; i++) {
		if (b->srcs[i].fd >= 0)
			close(b->srcs[i].fd);
		free(b->srcs[i].link);
	}
	if (b->ws.fd >= 0)
		close(b->ws.fd);
	free(b->srcs);
}

int mount_build_root(const struct jail_plan *plan, struct jail_fs *fs, struct sbx_err *err)
{
	struct root_build b = { .plan = plan, .root_fd = -1, .proc_fd = -1,
				.ws = { .fd = -1 }, .fs = fs };
	int rc;

	fs->proc = -1;
	fs->ntmpfs = 0;

	rc = new_root(&b, err);
	if (rc == 0)
		rc = mount_all(&b, err);
	if (rc == 0)
		rc = synthesize_etc(&b, err);
	if (rc == 0) {
		make_cwd(&b);
		rc = make_readonly(&b, err);
	}
	if (rc == 0)
		rc = enter_root(&b, err);
	release(&b);
	if (rc == 0) {
		fs->proc = b.proc_fd;
		return 0;
	}
	if (b.proc_fd >= 0)
		close(b.proc_fd);
	while (fs->ntmpfs > 0)
		close(fs->tmpfs[--fs->ntmpfs]);
	return rc;
}
