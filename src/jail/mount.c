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
 * read-only, nosuid and nodev with them.  This file holds the order of the
 * build; the binds are in mount_bind.c, tmpfs, proc and /dev in mount_fs.c.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
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
int mount_keep_tmpfs(struct root_build *b, int mnt)
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

int mount_refuse(struct sbx_err *err, const struct mount_entry *m, const char *why)
{
	return err_set(err, ERR_SETUP, EPERM, "mount %s (%s from %s): %s", m->dst,
		       type_name(m->type), m->src ? m->src : "-", why);
}

int mount_fail(struct sbx_err *err, int e, const struct mount_entry *m, const char *step)
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
