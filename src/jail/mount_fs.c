/*
 * mount_fs.c - the file systems the jail gets new, not from the host:
 * tmpfs (sized, with an inode bound), its own proc and a minimal /dev.
 *
 * Each is made detached (fsopen/fsmount) and moved onto the mount point
 * the walk checked.  Every tmpfs and /dev is kept by its mount fd for the
 * supervisor's memory meter; read-only ones are made so at the end
 * (mount.c), after /dev's nodes and links were put in.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "policy/policy.h"

static int defer_readonly(struct root_build *b, int mnt)
{
	if (b->ndeferred == MOUNT_MAX_DEFERRED) {
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
	int dst = mp_make(b, m->dst, LEAF_DIR, NULL), mnt;

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

int mount_tmpfs(struct root_build *b, const struct mount_entry *m, struct sbx_err *err)
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
	if (mount_keep_tmpfs(b, mnt) < 0)
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
 * The disposable workspace: a tmpfs, never a host directory, so a run
 * leaves nothing on the host even when sbx is SIGKILLed and its total
 * size is bounded.  The jail gets a clone of it; the mount the supervisor
 * holds (CTL_READY) stays detached, so a later stage's jail can clone it
 * again (spec->workspace_fd) and see the same files.
 *
 * Linux 6.1 (Debian 12) clones no detached mount (EINVAL; 6.18 does), but
 * attaches one, once: the jail then mounts the detached one itself, and a
 * first stage hands the supervisor a clone of the now attached mount,
 * detached again, which the next stage can attach in its turn.
 */
static int workspace_mount(struct root_build *b, int src, int dst, int *held,
			   const char **step)
{
	const struct jail_spec *s = b->plan->spec;
	int tree = mp_clone(src, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, step);

	if (tree >= 0) {
		if (mp_attach(tree, dst) < 0)
			return mp_close2(tree, -1, -1);
		/* a fresh one stays detached with the supervisor; of an earlier
		 * stage's the supervisor keeps its own, the meter gets the clone */
		*held = s->workspace_fd >= 0 ? tree : src;
		if (s->workspace_fd < 0)
			close(tree);
		return 0;
	}
	if (errno != EINVAL)
		return -1;
	/* 6.1: the detached mount itself goes in */
	*step = "move_mount of the workspace tmpfs (this kernel clones no detached mount)";
	if (mp_attach(src, dst) < 0)
		return -1;
	if (s->workspace_fd >= 0) { /* the last stage: nobody clones it again */
		*held = fcntl(src, F_DUPFD_CLOEXEC, 0);
		return *held < 0 ? -1 : 0;
	}
	/* SRC names the mount now attached (DST still names the directory
	 * under it): an attached mount 6.1 clones */
	*step = "open_tree (a detached clone of the workspace for the next stage)";
	*held = mp_clone(src, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, step);
	if (*held < 0)
		return -1;
	close(src);
	return 0;
}

int mount_workspace_tmpfs(struct root_build *b, const struct mount_entry *m,
			  struct sbx_err *err)
{
	const struct jail_spec *s = b->plan->spec;
	char size[32], inodes[32];
	const char *opts[] = { "size", size, "nr_inodes", inodes, "mode", "0700", NULL };
	const char *step = "creating the filesystem (fsopen/fsmount)";
	int src = s->workspace_fd, dst, held = -1;

	snprintf(size, sizeof(size), "%llum", s->workspace_mb);
	snprintf(inodes, sizeof(inodes), "%llu", s->workspace_mb * TMPFS_INODES_PER_MB);
	/* nosuid+nodev as for every mount the program can write */
	if (src < 0 && (src = mp_new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0)
		return mount_fail(err, errno, m, step);
	dst = mp_make(b, m->dst, LEAF_DIR, NULL);
	if (dst < 0 || workspace_mount(b, src, dst, &held, &step) < 0) {
		int e = errno;

		mount_fail(err, e, m, dst < 0 ? "creating the mount point" : step);
		if (src != s->workspace_fd && held != src)
			close(src);
		return mp_close2(dst, -1, -1);
	}
	close(dst);
	/* the supervisor's copy of an earlier stage's is its own to close */
	if (src == s->workspace_fd && held != src)
		close(src);
	b->fs->ws = held;
	vlog_line(&b->plan->vlog, "mount %s (workspace tmpfs size=%s%s)", m->dst, size,
		  s->workspace_fd >= 0 ? ", an earlier stage's" : "");
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
int mount_proc(struct root_build *b, const struct mount_entry *m, struct sbx_err *err)
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

/*
 * -i: a devpts instance of the jail's own at DEV/pts, and ptmx beside it.
 * A new instance holds only the jail's ptys: the caller's terminal and
 * every other host pty stay out of reach, and the program's TIOCSTI or
 * TIOCLINUX could at most type into its own.  Not nodev: its nodes are
 * the ptys.
 */
static int dev_pts(int dev)
{
	static const char *const opts[] = { "newinstance", NULL, "ptmxmode", "0666",
					    "mode", "0620", NULL };
	int dir, mnt;

	if (mkdirat(dev, "pts", 0755) < 0 || symlinkat("pts/ptmx", dev, "ptmx") < 0)
		return -1;
	dir = mp_open_leaf(dev, "pts", LEAF_DIR);
	if (dir < 0)
		return -1;
	mnt = mp_new_fs("devpts", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	if (mnt < 0 || mp_attach(mnt, dir) < 0)
		return mp_close2(mnt, dir, -1);
	return mp_close2(mnt, dir, 0);
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

/* /dev with only null, zero, full, random, urandom (no shm; pts only with -i). */
int mount_dev(struct root_build *b, const struct mount_entry *m, struct sbx_err *err)
{
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
	static const char *const opts[] = { "size", "64k", "mode", "0755", NULL };
	int dev = mount_new_fs(b, m, "tmpfs", opts,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, err);

	if (dev < 0)
		return -1;
	if (mount_keep_tmpfs(b, dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m,
				  "keeping /dev for the memory meter");
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (dev_node(dev, nodes[i]) < 0)
			return mount_fail(err, mp_close2(dev, -1, errno), m, nodes[i]);
	if (dev_links(dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "symlinks");
	if (b->plan->spec->interactive && dev_pts(dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "devpts at pts (-i)");
	/* /dev/shm exists only when the policy mounts a tmpfs there. */
	if (wants_shm(b->plan->policy, m->dst) && mkdirat(dev, "shm", 01777) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "mkdir shm");
	if (defer_readonly(b, dev) < 0)
		return mount_fail(err, mp_close2(dev, -1, errno), m, "too many read-only mounts");
	vlog_line(&b->plan->vlog, "mount %s (dev)", m->dst);
	return 0;
}
