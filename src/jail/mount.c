/*
 * mount.c - the jail's root filesystem, built from the policy's mounts.
 *
 * In the jail's own mount namespace: make every mount private, open every
 * bind source while the host is still visible, mount a small tmpfs on /tmp
 * (only in this namespace) as the new root, create each destination inside
 * it by a walk that never follows a symlink, mount, synthesize /etc, make
 * the root read-only and pivot_root into it.  Host paths not mounted are
 * then unreachable: the old root is detached.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/policy.h"

#define MAX_DEFERRED 16

/* A bind source opened before the new root hides the host. */
struct bind_src {
	int fd;       /* O_PATH fd, or -1 */
	char *link;   /* the source is a symlink: its target */
	bool skip;    /* optional and missing */
};

struct root_build {
	const struct jail_plan *plan;
	int root_fd;                  /* O_PATH fd of the new root */
	struct bind_src *srcs;        /* one per policy mount */
	struct bind_src ws;           /* the workspace */
	const char *deferred[MAX_DEFERRED]; /* made read-only at the end */
	size_t ndeferred;
};

enum leaf_kind { LEAF_DIR, LEAF_FILE, LEAF_LINK };

static const char *type_name(enum mount_type t)
{
	static const char *const names[] = { "bind", "tmpfs", "proc", "dev", "symlink" };

	return t <= MNT_SYMLINK ? names[t] : "?";
}

static int mount_fail(struct sbx_err *err, int e, const struct mount_entry *m,
		      const char *step)
{
	if (e == ELOOP)
		step = "the destination passes through a symlink (refused: it "
		       "could point outside the jail)";
	/* sources are opened with the jail's credentials, not sbx's */
	if (m->src && e == EACCES)
		return err_set(err, ERR_SETUP, e,
			       "mount %s (%s from %s): %s: %s (the jail reaches it as its own "
			       "host uid, 65534 when sbx runs as root: make it readable by "
			       "others, or run sbx as the files' owner)",
			       m->dst, type_name(m->type), m->src, step, strerror(e));
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
	return s->fd < 0 ? mount_fail(err, errno, m, "open of the source") : 0;
}

static int open_sources(struct root_build *b, struct sbx_err *err)
{
	const struct policy *p = b->plan->policy;
	const char *ws = b->plan->spec->workspace_host;

	b->srcs = calloc(p->nmounts + 1, sizeof(*b->srcs));
	if (!b->srcs)
		return err_set(err, ERR_SETUP, ENOMEM, "mount: out of memory");
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
	}
	return 0;
}

/* Next path component of *P into BUF; 0 at the end, -1 for "..". */
static int next_component(const char **p, char *buf, size_t len)
{
	const char *s = *p, *e;

	while (*s == '/' || (s[0] == '.' && (s[1] == '/' || s[1] == '\0')))
		s++;
	if (*s == '\0')
		return 0;
	e = strchr(s, '/');
	if (!e)
		e = s + strlen(s);
	if ((size_t)(e - s) >= len || (e - s == 2 && s[0] == '.' && s[1] == '.'))
		return -1;
	memcpy(buf, s, e - s);
	buf[e - s] = '\0';
	*p = e;
	return 1;
}

/*
 * Open the parent directory of DST inside the new root, creating missing
 * directories.  Never follows a symlink: a destination that passes
 * through one (made by an earlier SYMLINK entry, or found in a bound
 * host directory) is refused, so no mount can land outside the root.
 */
static int open_parent(int root_fd, const char *dst, char *leaf, size_t len)
{
	char comp[NAME_MAX + 1];
	const char *p = dst;
	int dir = dup(root_fd), rc;

	leaf[0] = '\0';
	while (dir >= 0 && (rc = next_component(&p, comp, sizeof(comp))) > 0) {
		int next;

		if (next_component(&(const char *){ p }, leaf, len) == 0) {
			snprintf(leaf, len, "%s", comp);
			return dir;
		}
		if (mkdirat(dir, comp, 0755) < 0 && errno != EEXIST)
			break;
		next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && (errno == ENOTDIR || errno == ELOOP))
			errno = ELOOP;
		close(dir);
		dir = next;
	}
	if (dir >= 0) {
		close(dir);
		errno = EINVAL; /* "/" itself, "..", or an over-long name */
	}
	return -1;
}

static int make_leaf(int dir, const char *leaf, enum leaf_kind kind,
		     const char *link_target)
{
	struct stat st;

	if (kind == LEAF_LINK)
		return symlinkat(link_target, dir, leaf);
	if (kind == LEAF_DIR && mkdirat(dir, leaf, 0755) < 0 && errno != EEXIST)
		return -1;
	if (kind == LEAF_FILE && mknodat(dir, leaf, S_IFREG | 0444, 0) < 0 &&
	    errno != EEXIST)
		return -1;
	if (fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISLNK(st.st_mode) || (kind == LEAF_DIR) != !!S_ISDIR(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : kind == LEAF_DIR ? ENOTDIR : EISDIR;
		return -1;
	}
	return 0;
}

/* Create DST in the new root and write its host-side path into PATH. */
static int make_dst(const struct root_build *b, const char *dst,
		    enum leaf_kind kind, const char *link_target,
		    char *path, size_t len)
{
	char leaf[NAME_MAX + 1];
	int dir = open_parent(b->root_fd, dst, leaf, sizeof(leaf));
	int rc, e;

	if (dir < 0)
		return -1;
	rc = make_leaf(dir, leaf, kind, link_target);
	e = errno;
	close(dir);
	errno = e;
	if ((size_t)snprintf(path, len, "%s%s", JAIL_BUILD_DIR, dst) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return rc;
}

/* Flags the kernel locked on a mount from the parent namespace must be
 * repeated on remount, or it fails with EPERM. */
static unsigned long locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	f |= sv.f_flag & (ST_RDONLY | ST_NOSUID | ST_NODEV | ST_NOEXEC |
			  ST_NOATIME | ST_NODIRATIME);
	if (sv.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	else if (!(sv.f_flag & ST_NOATIME))
		f |= MS_STRICTATIME;
	return f;
}

static int bind_entry(struct root_build *b, const struct mount_entry *m,
		      const struct bind_src *s, struct sbx_err *err)
{
	char path[PATH_MAX], from[64];
	unsigned long flags;
	struct stat st;

	if (s->link) {
		if (make_dst(b, m->dst, LEAF_LINK, s->link, path, sizeof(path)) < 0)
			return mount_fail(err, errno, m, "symlink");
		return 0;
	}
	if (fstat(s->fd, &st) < 0)
		return mount_fail(err, errno, m, "fstat of the source");
	if (make_dst(b, m->dst, S_ISDIR(st.st_mode) ? LEAF_DIR : LEAF_FILE, NULL,
		     path, sizeof(path)) < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	snprintf(from, sizeof(from), "/proc/self/fd/%d", s->fd);
	if (mount(from, path, NULL, MS_BIND, NULL) < 0)
		return mount_fail(err, errno, m, "mount");
	/* nosuid+nodev on every bind: setuid files and device nodes from the
	 * host must not work inside (belt to no_new_privs' braces). */
	flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | locked_flags(path);
	flags |= (m->rw ? 0 : MS_RDONLY) | (m->noexec ? MS_NOEXEC : 0);
	if (mount(NULL, path, NULL, flags, NULL) < 0)
		return mount_fail(err, errno, m, "remount read-only/nosuid/nodev");
	close(s->fd);
	jail_log(b->plan, "mount %s (bind%s from %s)", m->dst, m->rw ? " rw" : "", m->src);
	return 0;
}

static int defer_readonly(struct root_build *b, const char *dst)
{
	if (b->ndeferred == MAX_DEFERRED) {
		errno = E2BIG;
		return -1;
	}
	b->deferred[b->ndeferred++] = dst;
	return 0;
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
	unsigned long flags = MS_NOSUID | MS_NODEV | (m->noexec ? MS_NOEXEC : 0);
	unsigned long long mb = m->size_mb ? m->size_mb : 20;
	char path[PATH_MAX], opts[96];

	if (make_dst(b, m->dst, LEAF_DIR, NULL, path, sizeof(path)) < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	snprintf(opts, sizeof(opts), "size=%llum,nr_inodes=%llu,mode=%s", mb,
		 mb * TMPFS_INODES_PER_MB, m->rw ? "1777" : "0755");
	if (mount("tmpfs", path, "tmpfs", flags, opts) < 0)
		return mount_fail(err, errno, m, "mount tmpfs");
	if (!m->rw && defer_readonly(b, m->dst) < 0)
		return mount_fail(err, errno, m, "too many read-only tmpfs mounts");
	jail_log(b->plan, "mount %s (tmpfs %s)", m->dst, opts);
	return 0;
}

/* A fresh proc for the jail's pid namespace: only the jail's processes. */
static int proc_entry(struct root_build *b, const struct mount_entry *m,
		      struct sbx_err *err)
{
	unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | (m->rw ? 0 : MS_RDONLY);
	char path[PATH_MAX];

	if (make_dst(b, m->dst, LEAF_DIR, NULL, path, sizeof(path)) < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	if (mount("proc", path, "proc", flags, NULL) < 0)
		return mount_fail(err, errno, m, "mount proc");
	jail_log(b->plan, "mount %s (proc)", m->dst);
	return 0;
}

static int dev_node(const char *dir, const char *name)
{
	char host[64], path[PATH_MAX];
	int fd;

	snprintf(host, sizeof(host), "/dev/%s", name);
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0)
		return -1;
	close(fd);
	/* mknod is not allowed in a user namespace: bind the host's node. */
	return mount(host, path, NULL, MS_BIND, NULL);
}

static int dev_links(const char *dir)
{
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, links[i][0]) >=
			    (int)sizeof(path) ||
		    symlink(links[i][1], path) < 0)
			return -1;
	}
	return 0;
}

/* /dev with only null, zero, full, random, urandom (no pts, no shm). */
static int dev_entry(struct root_build *b, const struct mount_entry *m,
		     struct sbx_err *err)
{
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
	char path[PATH_MAX], shm[PATH_MAX];

	if (make_dst(b, m->dst, LEAF_DIR, NULL, path, sizeof(path)) < 0)
		return mount_fail(err, errno, m, "creating the mount point");
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") < 0)
		return mount_fail(err, errno, m, "mount tmpfs");
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (dev_node(path, nodes[i]) < 0)
			return mount_fail(err, errno, m, nodes[i]);
	if (dev_links(path) < 0)
		return mount_fail(err, errno, m, "symlinks");
	/* /dev/shm exists only when the policy mounts a tmpfs there. */
	if (snprintf(shm, sizeof(shm), "%s/shm", path) >= (int)sizeof(shm))
		return mount_fail(err, ENAMETOOLONG, m, "path");
	for (size_t i = 0; i < b->plan->policy->nmounts; i++) {
		const struct mount_entry *o = &b->plan->policy->mounts[i];

		if (o->type == MNT_TMPFS && strncmp(o->dst, m->dst, strlen(m->dst)) == 0 &&
		    strcmp(o->dst + strlen(m->dst), "/shm") == 0 &&
		    mkdir(shm, 01777) < 0)
			return mount_fail(err, errno, m, "mkdir shm");
	}
	if (defer_readonly(b, m->dst) < 0)
		return mount_fail(err, errno, m, "too many read-only mounts");
	jail_log(b->plan, "mount %s (dev)", m->dst);
	return 0;
}

static int symlink_entry(struct root_build *b, const struct mount_entry *m,
			 struct sbx_err *err)
{
	char path[PATH_MAX];

	if (make_dst(b, m->dst, LEAF_LINK, m->src, path, sizeof(path)) < 0)
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
	char path[PATH_MAX];

	if (b->ws.fd >= 0)
		return bind_entry(b, &m, &b->ws, err);
	if (make_dst(b, m.dst, LEAF_DIR, NULL, path, sizeof(path)) < 0)
		return mount_fail(err, errno, &m, "mkdir");
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
	char path[PATH_MAX];
	int fd, rc;

	if (etc_is_mounted(b->plan->policy))
		return 0;
	if (make_dst(b, "/etc", LEAF_DIR, NULL, path, sizeof(path)) < 0)
		return mount_fail(err, errno, &m, "mkdir /etc");
	fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return mount_fail(err, errno, &m, "open /etc");
	rc = etc_synthesize(b->plan, fd, err);
	close(fd);
	jail_log(b->plan, "synthesized /etc");
	return rc;
}

/* The cwd must exist; creating it may fail in a read-only bind: fine. */
static void make_cwd(struct root_build *b)
{
	const char *cwd = b->plan->policy->cwd;
	char path[PATH_MAX];

	if (cwd)
		make_dst(b, cwd, LEAF_DIR, NULL, path, sizeof(path));
}

/* Read-only last: /etc and the mount points cannot be changed by the
 * program (requirement: files sbx provides are read-only). */
static int make_readonly(struct root_build *b, struct sbx_err *err)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < b->ndeferred; i++) {
		snprintf(path, sizeof(path), "%s%s", JAIL_BUILD_DIR, b->deferred[i]);
		if (mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY |
			  MS_NOSUID | locked_flags(path), NULL) < 0)
			return err_set(err, ERR_SETUP, errno,
				       "remount %s read-only: %s", b->deferred[i],
				       strerror(errno));
	}
	if (mount(NULL, JAIL_BUILD_DIR, NULL,
		  MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
		return err_set(err, ERR_SETUP, errno, "remount the root read-only: %s",
			       strerror(errno));
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
	jail_log(b->plan, "pivot_root done");
	return 0;
}

static int new_root(struct root_build *b, struct sbx_err *err)
{
	/* Private: nothing we mount propagates back to the host, and host
	 * mount events do not reach the jail. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return err_set(err, ERR_SETUP, errno, "making mounts private: %s",
			       strerror(errno));
	if (open_sources(b, err) < 0)
		return -1;
	if (mount("tmpfs", JAIL_BUILD_DIR, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=16m,mode=0755") < 0)
		return err_set(err, ERR_SETUP, errno, "mount the root tmpfs on %s: %s",
			       JAIL_BUILD_DIR, strerror(errno));
	b->root_fd = open(JAIL_BUILD_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (b->root_fd < 0)
		return err_set(err, ERR_SETUP, errno, "open the new root: %s",
			       strerror(errno));
	jail_log(b->plan, "root tmpfs");
	return 0;
}

int mount_build_root(const struct jail_plan *plan, struct sbx_err *err)
{
	struct root_build b = { .plan = plan, .root_fd = -1 };
	int rc;

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
	if (b.root_fd >= 0)
		close(b.root_fd);
	/* The init only _exit()s; sources are closed as they are used. */
	for (size_t i = 0; b.srcs && i < plan->policy->nmounts; i++)
		free(b.srcs[i].link);
	free(b.srcs);
	return rc;
}
