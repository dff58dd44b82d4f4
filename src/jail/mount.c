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
 * (mountpoint.c).  In this file, in order: how a failed mount is named;
 * the binds (sources opened early, recursive clones with every submount
 * made nosuid and nodev, and read-only unless rw; a host procfs refused);
 * the file systems the jail gets new (tmpfs, its own proc, a minimal
 * /dev); then the build itself, step by step.  Runs in the jail's init.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/path.h"
#include "policy/policy.h"
/* Why a mount call failed with E: a filter above sbx when one answered it
 * (jail_mount_refusal), the kernel's age for an ENOSYS otherwise. */
static const char *mount_cause(int e)
{
	const char *filter = jail_mount_refusal(e);

	if (filter)
		return filter;
	return e == ENOSYS ? "the new mount API: sbx needs Linux 5.12 or later" : strerror(e);
}

/* Keep a tmpfs for the meter by the mount fd itself: a path opened later
 * could lead to another tmpfs (a mount over it, a renamed rw-bind dir). */
static int mount_keep_tmpfs(struct root_build *b, int mnt)
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

static int mount_refuse(struct sbx_err *err, const struct mount_entry *m, const char *why)
{
	return err_set(err, ERR_SETUP, EPERM, "mount %s (%s from %s): %s", m->dst,
		       type_name(m->type), m->src ? m->src : "-", why);
}

static int mount_fail(struct sbx_err *err, int e, const struct mount_entry *m, const char *step)
{
	const char *filter = jail_mount_refusal(e);

	if (filter)
		return err_set(err, ERR_SETUP, e, "mount %s (%s%s%s): %s: %s: %s", m->dst,
			       type_name(m->type), m->src ? " from " : "", m->src ? m->src : "",
			       step, strerror(e), filter);
	if (m->type == MNT_PROC && (filter = jail_proc_refusal(e)))
		return err_set(err, ERR_SETUP, e, "mount %s (proc): %s: %s: %s", m->dst, step,
			       strerror(e), filter);
	if (e == ENOSYS)
		step = mount_cause(e);
	if (e == ELOOP)
		step = "the destination passes through a symlink (refused: it "
		       "could point outside the jail)";
	/* policy binds are opened with the jail's credentials, not sbx's */
	if (m->src && e == EACCES)
		return err_set(err, ERR_SETUP, e,
			       "mount %s (%s from %s): %s: %s (the jail reaches it as its own "
			       "host uid, one of sbx's uid range when sbx runs as root: make "
			       "it readable by others, bind it with --bind, or run sbx as "
			       "the files' owner)",
			       m->dst, type_name(m->type), m->src, step, strerror(e));
	/* a flag has no optional: the hint names what the user can change */
	if (m->src && e == ENOENT && m->type == MNT_BIND && m->at.option)
		return err_set(err, ERR_SETUP, e,
			       "mount %s (%s from %s, given by %s): %s: %s (fix the path "
			       "given to %s)",
			       m->dst, type_name(m->type), m->src, m->at.option, step,
			       strerror(e), m->at.option);
	/* not for an optional one: its mount point went away meanwhile (a
	 * writer of the bound tree above it removed it) */
	if (m->src && e == ENOENT && m->type == MNT_BIND && !m->optional)
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

/*
 * Binds: the sources opened while the host is still visible, then cloned
 * onto the checked mount point.  A source that is a host symlink becomes
 * the same symlink (merged-usr /bin -> usr/bin).  A source that is, or
 * carries as a submount, a procfs is refused: the host's shows every host
 * process.
 */

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

/* The mount point of a mountinfo line if its file system is a procfs
 * (unescaped, in place), else NULL. */
static char *procfs_mount_point(char *line)
{
	char *save = NULL, *mp = NULL, *f = strtok_r(line, " ", &save);

	for (int i = 0; f && i < 4; i++)
		mp = f = strtok_r(NULL, " ", &save);
	while (f && strcmp(f, "-") != 0)
		f = strtok_r(NULL, " ", &save);
	f = f ? strtok_r(NULL, " ", &save) : NULL;
	if (!mp || !f || strcmp(f, "proc") != 0)
		return NULL;
	unescape(mp);
	return mp;
}

/*
 * Every procfs mount point of this mount namespace, read once per process:
 * each read of mountinfo costs the kernel a walk of all host mounts, and a
 * run asks for every bind source.  The table cannot change under
 * us: the init reads it before it mounts anything, the supervisor before the
 * clone.  NULL-terminated; NULL if mountinfo cannot be read.
 */
static char **procfs_mounts(void)
{
	static char **list;
	static bool done;
	char *line = NULL, *mp, **grown;
	size_t cap = 0, n = 0;
	FILE *f;

	if (done)
		return list;
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return NULL; /* not cached: a later call may succeed */
	list = calloc(1, sizeof(*list));
	while (list && getline(&line, &cap, f) > 0) {
		if (!(mp = procfs_mount_point(line)))
			continue;
		grown = realloc(list, (n + 2) * sizeof(*list));
		if (!grown || !(grown[n] = strdup(mp))) {
			list = grown ? grown : list;
			list[n] = NULL;
			for (size_t i = 0; i < n; i++)
				free(list[i]);
			free(list);
			list = NULL;
			break;
		}
		list = grown;
		list[++n] = NULL;
	}
	free(line);
	fclose(f);
	done = list != NULL;
	return list;
}

/* MP is DIR or lies below it. */
static bool under(const char *mp, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)
		return true; /* DIR is "/" */
	return strncmp(mp, dir, n) == 0 && (mp[n] == '/' || mp[n] == '\0');
}

/*
 * A bind source that is, or carries as a submount, a procfs: the host's
 * shows every host process, which the program must not see.  Read
 * while the host's /proc is still this namespace's (by the init, or by
 * the supervisor in hostbind.c).  1 yes, 0 no, -1 error.
 */
int carries_procfs(int fd)
{
	char self[32], dir[PATH_MAX], **mps;
	struct statfs sfs;
	ssize_t n;

	if (fstatfs(fd, &sfs) < 0)
		return -1;
	if (sfs.f_type == PROC_SUPER_MAGIC)
		return 1;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if ((n = readlink(self, dir, sizeof(dir) - 1)) <= 0 || dir[0] != '/' ||
	    !(mps = procfs_mounts()))
		return -1;
	dir[n] = '\0';
	for (; *mps; mps++)
		if (under(*mps, dir))
			return 1;
	return 0;
}

/*
 * Clone the tree of S now, while the host is still visible: the root
 * tmpfs goes on JAIL_BUILD_DIR next, and a clone made after it of a
 * source that is that directory (-b /tmp, -w /tmp) carried the jail's own
 * root, writable.  nosuid+nodev on every mount of the tree: setuid files
 * and device nodes from the host must not work inside.
 */
static int clone_source(const struct mount_entry *m, struct bind_src *s,
			struct sbx_err *err)
{
	const char *step = "mount";
	int tree;

	if (s->procfs != 0)
		return 0; /* mount_bind refuses it */
	tree = mp_clone(s->fd, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			(m->rw ? 0 : MOUNT_ATTR_RDONLY) |
			(m->noexec ? MOUNT_ATTR_NOEXEC : 0), &step);
	if (tree < 0)
		return mount_fail(err, errno, m, step);
	close(s->fd);
	s->fd = tree;
	return 0;
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
	return clone_source(m, s, err);
}

static int mount_open_sources(struct root_build *b, struct sbx_err *err)
{
	const struct policy *p = b->plan->policy;
	const char *ws = b->plan->spec->workspace_host;

	b->srcs = calloc(p->nmounts + 1, sizeof(*b->srcs));
	if (!b->srcs)
		return err_set(err, ERR_SETUP, ENOMEM, "mount: out of memory");
	for (size_t i = 0; i < p->nmounts; i++)
		b->srcs[i].fd = -1;
	for (size_t i = 0; i < p->nmounts; i++) {
		/* run by root, sbx made it already (hostbind.c): checked there */
		if (b->plan->host_trees && b->plan->host_trees[i] >= 0) {
			b->srcs[i].fd = b->plan->host_trees[i];
			b->srcs[i].premade = true;
		} else if (p->mounts[i].type == MNT_BIND &&
			   open_source(&p->mounts[i], &b->srcs[i], err) < 0) {
			return -1;
		}
	}
	b->ws.fd = -1;
	if (b->plan->ws_tree >= 0) {
		b->ws.fd = b->plan->ws_tree;
		b->ws.premade = true;
	} else if (ws) {
		struct mount_entry m = { .dst = "the workspace", .src = (char *)ws,
					 .type = MNT_BIND, .rw = true };

		b->ws.fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (b->ws.fd < 0)
			return err_set(err, ERR_SETUP, errno,
				       "workspace %s: open: %s", ws, strerror(errno));
		b->ws.procfs = carries_procfs(b->ws.fd); /* -w /proc: the same */
		return clone_source(&m, &b->ws, err);
	}
	return 0;
}

static int mount_bind(struct root_build *b, const struct mount_entry *m, const struct bind_src *s,
	       struct sbx_err *err)
{
	struct stat st;
	int dst;

	if (s->link) {
		if (mp_make(b, m->dst, LEAF_LINK, s->link) < 0)
			return mount_fail(err, errno, m, "symlink");
		return 0;
	}
	if (fstat(s->fd, &st) < 0)
		return mount_fail(err, errno, m, "fstat of the source");
	/* a host procfs shows the host's processes: the jail has its own /proc */
	if (s->procfs > 0)
		return mount_refuse(err, m, "the source is or holds a host procfs "
				  "(refused: it shows every host process; the jail "
				  "has its own /proc)");
	if (s->procfs < 0) /* fail closed: what cannot be checked is not bound */
		return mount_refuse(err, m, "cannot tell whether the source holds "
				  "a host procfs (no /proc/self/mountinfo)");
	dst = mp_make(b, m->dst, S_ISDIR(st.st_mode) ? LEAF_DIR : LEAF_FILE, NULL);
	if (dst < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	/* the tree is made already (clone_source, or hostbind.c when
	 * premade); release() closes it */
	if (mp_attach(s->fd, dst) < 0)
		return mount_fail(err, mp_close2(-1, dst, errno), m,
				  "move_mount onto the mount point");
	close(dst);
	vlog_line(&b->plan->vlog, "mount %s (bind%s from %s%s)", m->dst, m->rw ? " rw" : "",
		  m->src, s->premade ? ", by sbx" : "");
	return 0;
}

/*
 * The file systems the jail gets new, not from the host: tmpfs (sized,
 * with an inode bound), its own proc and a minimal /dev.  Each is made
 * detached (fsopen/fsmount) and moved onto the mount point the walk
 * checked.  Every tmpfs and /dev is kept by its mount fd for the
 * supervisor's memory meter; read-only ones are made so at the end
 * (make_readonly), after /dev's nodes and links were put in.
 */

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

static int mount_tmpfs(struct root_build *b, const struct mount_entry *m, struct sbx_err *err)
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

static int mount_workspace_tmpfs(struct root_build *b, const struct mount_entry *m,
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
static int mount_proc(struct root_build *b, const struct mount_entry *m, struct sbx_err *err)
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
static int mount_dev(struct root_build *b, const struct mount_entry *m, struct sbx_err *err)
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

/* The build, step by step. */

static int symlink_entry(struct root_build *b, const struct mount_entry *m,
			 struct sbx_err *err)
{
	if (mp_make(b, m->dst, LEAF_LINK, m->src) < 0)
		return mount_fail(err, errno, m, "symlink");
	return 0;
}

static int mount_entry(struct root_build *b, size_t i, struct sbx_err *err)
{
	const struct mount_entry *m = &b->plan->policy->mounts[i];

	switch (m->type) {
	case MNT_BIND:
		return b->srcs[i].skip ? 0 : mount_bind(b, m, &b->srcs[i], err);
	case MNT_TMPFS:
		return mount_tmpfs(b, m, err);
	case MNT_PROC:
		return mount_proc(b, m, err);
	case MNT_DEV:
		return mount_dev(b, m, err);
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
		return mount_bind(b, &m, &b->ws, err);
	if (b->plan->spec->workspace_tmpfs) {
		m.type = MNT_TMPFS;
		return mount_workspace_tmpfs(b, &m, err);
	}
	fd = mp_make(b, m.dst, LEAF_DIR, NULL);
	if (fd < 0)
		return mount_fail(err, errno, &m, "mkdir");
	close(fd);
	return 0;
}

/*
 * An optional mount whose mount point is missing inside a host directory
 * bound before it (the default policy's /etc/fonts under -b DIR:/etc) is
 * skipped: the caller's tree replaces that part of the policy.  Making the
 * mount point wrote alternatives/ and fonts/ into the caller's DIR with
 * -B, and with -b failed on the read-only tree (EROFS): no run at all.
 */
static bool missing_in_host_tree(struct root_build *b, size_t i)
{
	const struct policy *p = b->plan->policy;
	const struct mount_entry *m = &p->mounts[i];
	struct path_walk w = { .flags = O_PATH };
	char leaf[NAME_MAX + 1];
	size_t in = i;
	struct stat st;
	bool missing;
	int dir;

	if (!m->optional)
		return false;
	/* the deepest earlier destination that M lands in (parents sort first) */
	for (size_t j = 0; j < i; j++)
		if (strcmp(p->mounts[j].dst, m->dst) != 0 && is_under(m->dst, p->mounts[j].dst) &&
		    (in == i || strlen(p->mounts[j].dst) >= strlen(p->mounts[in].dst)))
			in = j;
	if (in == i || p->mounts[in].type != MNT_BIND || b->srcs[in].skip || b->srcs[in].link)
		return false;
	dir = path_walk(b->root_fd, m->dst, &w, leaf);
	if (dir < 0) /* a missing parent; anything else mount_entry reports */
		return errno == ENOENT;
	missing = fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
	close(dir);
	if (missing)
		vlog_line(&b->plan->vlog, "mount %s skipped (optional; no mount point in "
			  "the host directory bound at %s)", m->dst, p->mounts[in].dst);
	return missing;
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
		if (!missing_in_host_tree(b, i) && mount_entry(b, i, err) < 0)
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
	fd = mp_make(b, "/etc", LEAF_DIR, NULL);
	if (fd < 0)
		return mount_fail(err, errno, &m, "mkdir /etc");
	rc = etc_synthesize(b->plan, fd, err);
	close(fd);
	vlog_line(&b->plan->vlog, "synthesized /etc");
	return rc;
}

/* Read-only last: /etc and the mount points cannot be changed by the
 * program: the files sbx provides must not be the program's to rewrite. */
static int make_readonly(struct root_build *b, struct sbx_err *err)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID };
	struct mount_attr root = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
						MOUNT_ATTR_NODEV };

	for (size_t i = 0; i < b->ndeferred; i++)
		if (mount_setattr(b->deferred[i], "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			return err_set(err, ERR_SETUP, errno, "remount a tmpfs read-only: %s",
				       mount_cause(errno));
	if (mount_setattr(b->root_fd, "", AT_EMPTY_PATH, &root, sizeof(root)) < 0)
		return err_set(err, ERR_SETUP, errno, "remount the root read-only: %s",
			       mount_cause(errno));
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
		return err_set(err, ERR_SETUP, errno, "pivot_root: %s", mount_cause(errno));
	if (umount2(".", MNT_DETACH) < 0)
		return err_set(err, ERR_SETUP, errno, "detaching the host root: %s",
			       mount_cause(errno));
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
			       mount_cause(errno));
	if (mount_open_sources(b, err) < 0)
		return -1;
	b->root_fd = mp_new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (b->root_fd < 0 || move_mount(b->root_fd, "", AT_FDCWD, JAIL_BUILD_DIR,
					 MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return err_set(err, ERR_SETUP, errno, "mount the root tmpfs on %s: %s",
			       JAIL_BUILD_DIR, mount_cause(errno));
	if (mount_keep_tmpfs(b, b->root_fd) < 0)
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

	fs->proc = fs->ws = -1;
	fs->ntmpfs = 0;

	rc = new_root(&b, err);
	if (rc == 0)
		rc = mount_all(&b, err);
	if (rc == 0)
		rc = synthesize_etc(&b, err);
	if (rc == 0)
		rc = make_readonly(&b, err);
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
	if (fs->ws >= 0)
		close(fs->ws);
	fs->ws = -1;
	return rc;
}
