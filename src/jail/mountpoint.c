/*
 * mountpoint.c - the careful helpers mount.c builds the root with.
 *
 * A destination in the new root is created and opened by a walk that
 * never follows a symlink (mp_make, with base/path.h), and every mount is moved onto that
 * O_PATH fd (mp_attach: move_mount with MOVE_MOUNT_T_EMPTY_PATH), so no
 * path is resolved twice: a writer of a read-write bound directory cannot
 * swap a component between the check and the mount.  Sources are cloned
 * recursively (mp_clone) and new filesystems made detached (mp_new_fs)
 * with the new mount API (Linux 5.2, mount_setattr 5.12).
 */
#include "jail/internal.h"
#include "base/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Open the parent directory of DST inside the new root, creating missing
 * directories.  Never follows a symlink: a destination that passes
 * through one (made by an earlier SYMLINK entry, or found in a bound
 * host directory) is refused, so no mount can land outside the root.
 */
/*
 * A directory made only to hold a mount point is no place to write when it
 * is in one of the jail's own tmpfs but the workspace (the jail's /tmp, a
 * --tmpfs): the program's files there vanish with the jail, so a build
 * writing ../x.deb beside a checkout bound below /tmp got "ok" and lost it.
 * There it is r-x, and such a write fails at once (EACCES); the init, with
 * its capabilities, still makes further mount points inside.  In a host
 * directory (a -B bind, a -w workspace) or the workspace tmpfs (-o copies
 * from it), what the program writes is kept: 0755.
 */
static mode_t holder_mode(int dir, void *arg)
{
	const struct jail_fs *fs = arg;
	struct stat in, t;

	if (!fs || fstat(dir, &in) < 0)
		return 0555;
	if (fs->ws >= 0 && fstat(fs->ws, &t) == 0 && t.st_dev == in.st_dev)
		return 0755;
	for (size_t i = 0; i < fs->ntmpfs; i++)
		if (fstat(fs->tmpfs[i], &t) == 0 && t.st_dev == in.st_dev)
			return 0555;
	return 0755;
}

/*
 * Open the parent directory of DST inside the new root, creating missing
 * directories.  Never follows a symlink: a destination that passes
 * through one (made by an earlier SYMLINK entry, or found in a bound
 * host directory) is refused, so no mount can land outside the root.
 */
static int open_parent(const struct root_build *b, const char *dst, char leaf[NAME_MAX + 1])
{
	struct path_walk w = { .flags = O_PATH, .mkdir = true, .mkdir_mode = holder_mode,
			       .arg = b->fs };
	int dir = path_walk(b->root_fd, dst, &w, leaf);

	/* O_PATH|O_NOFOLLOW opens a symlink itself: O_DIRECTORY says ENOTDIR */
	if (dir < 0 && w.failed == PATH_FAIL_OPEN && (errno == ENOTDIR || errno == ELOOP))
		errno = ELOOP;
	else if (dir < 0 && w.failed != PATH_FAIL_OPEN)
		errno = EINVAL; /* "/" itself, "..", an over-long name, or mkdir */
	return dir;
}

/* Create LEAF in DIR if missing; 0 or -1 (EEXIST is fine). */
static int create_leaf(int dir, const char *leaf, enum leaf_kind kind)
{
	if (kind == LEAF_DIR && mkdirat(dir, leaf, 0755) < 0 && errno != EEXIST)
		return -1;
	if (kind == LEAF_FILE && mknodat(dir, leaf, S_IFREG | 0444, 0) < 0 &&
	    errno != EEXIST)
		return -1;
	return 0;
}

/* The fd is what gets mounted on, so what was checked is what is used. */
int mp_open_leaf(int dir, const char *leaf, enum leaf_kind kind)
{
	int fd = openat(dir, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (S_ISLNK(st.st_mode) || (kind == LEAF_DIR) != !!S_ISDIR(st.st_mode)) {
		close(fd);
		errno = S_ISLNK(st.st_mode) ? ELOOP : kind == LEAF_DIR ? ENOTDIR : EISDIR;
		return -1;
	}
	return fd;
}

int mp_make(const struct root_build *b, const char *dst, enum leaf_kind kind,
	    const char *link_target)
{
	char leaf[NAME_MAX + 1];
	int dir = open_parent(b, dst, leaf);
	int fd, e;

	if (dir < 0)
		return -1;
	if (kind == LEAF_LINK)
		fd = symlinkat(link_target, dir, leaf);
	else
		fd = create_leaf(dir, leaf, kind) < 0 ? -1 : mp_open_leaf(dir, leaf, kind);
	e = errno;
	close(dir);
	errno = e;
	return fd;
}

int mp_attach(int tree, int dst_fd)
{
	return move_mount(tree, "", dst_fd, "",
			  MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

int mp_close2(int a, int b, int rc)
{
	int e = errno;

	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	errno = e;
	return rc;
}

/*
 * Recursive because a user namespace may not bind a directory without the
 * mounts locked below it (the kernel refuses with EINVAL: they could hide
 * what is underneath); ATTRS then reach every submount, so none stays
 * writable under a read-only bind.
 */
int mp_clone(int src_fd, unsigned attrs, const char **step)
{
	bool refused;

	return mp_clone_idmap(src_fd, attrs, -1, step, &refused);
}

/*
 * The idmap needs CAP_SYS_ADMIN over the filesystem's own user namespace
 * (the host's: only a root supervisor has it) and a mount never attached
 * yet: the fresh clone.  Every mount of the tree must allow it, or none
 * is changed.
 */
int mp_clone_idmap(int src_fd, unsigned attrs, int userns_fd, const char **step,
		   bool *idmap_refused)
{
	struct mount_attr attr = { .attr_set = attrs };
	int tree, e;

	*idmap_refused = false;
	*step = "open_tree (recursive clone of the source)";
	tree = open_tree(src_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			 AT_RECURSIVE | AT_EMPTY_PATH);
	if (tree < 0)
		return -1;
	*step = "mount_setattr (read-only/nosuid/nodev on every submount)";
	if (userns_fd >= 0) {
		attr.attr_set |= MOUNT_ATTR_IDMAP;
		attr.userns_fd = (uint64_t)userns_fd;
		*step = "mount_setattr (idmapped, nosuid/nodev on every submount)";
	}
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0) {
		e = errno;
		*idmap_refused = userns_fd >= 0 && (e == EINVAL || e == EPERM ||
						    e == ENOSYS || e == EOPNOTSUPP);
		return mp_close2(tree, -1, -1);
	}
	return tree;
}

int mp_new_fs(const char *type, const char *const *opts, unsigned attrs)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC), mnt;

	if (fs < 0)
		return -1;
	/* the name mountinfo shows as the source: no host detail */
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", type, 0) < 0)
		return mp_close2(fs, -1, -1);
	for (; opts && opts[0]; opts += 2)
		if ((opts[1] ? fsconfig(fs, FSCONFIG_SET_STRING, opts[0], opts[1], 0)
			     : fsconfig(fs, FSCONFIG_SET_FLAG, opts[0], NULL, 0)) < 0)
			return mp_close2(fs, -1, -1);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return mp_close2(fs, -1, -1);
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	return mp_close2(fs, -1, mnt);
}

