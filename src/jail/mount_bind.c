/*
 * mount_bind.c - the policy's bind mounts: their sources opened while the
 * host is still visible, then cloned onto the checked mount point.
 *
 * A source that is a host symlink becomes the same symlink (merged-usr
 * /bin -> usr/bin).  A source that is, or carries as a submount, a procfs
 * is refused: the host's shows every host process.  Binds are recursive
 * clones with every submount made nosuid and nodev (and read-only unless
 * rw) with them.
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
#include <unistd.h>

#include "policy/policy.h"

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

int mount_open_sources(struct root_build *b, struct sbx_err *err)
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

int mount_bind(struct root_build *b, const struct mount_entry *m, const struct bind_src *s,
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
