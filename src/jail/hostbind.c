/*
 * hostbind.c - run by root: the caller's directories, bound so that they
 * stay the caller's.
 *
 * A root caller's jail is a host uid of its own (uidrange.c), which owns
 * nothing on the host.  So the supervisor, still root and still in the
 * host's namespaces, opens each command-line bind (-b, -B) and the
 * workspace itself and makes a detached clone of it, before the clone()
 * of the jail, which inherits the trees; the init only attaches them.
 * Nothing the jail user would have to traverse (a 0700 TMPDIR, a root
 * checkout) stands between it and its files.
 *
 * The caller's trees (-b, -B, -w) are idmapped (MOUNT_ATTR_IDMAP): ids
 * on disk are read through a user namespace that maps the directory's
 * owner to the jail's host uid, so inside, the files are the jail user's,
 * and what it creates is written to disk as that owner's: root's checkout
 * stays root's.  A filesystem or kernel that cannot (tmpfs before 6.3,
 * ramfs, proc, NFS) gets today's plain bind and one warning naming the
 * directory.  The disposable workspace is a tmpfs of the jail's own
 * (workspace/), nothing of the host's.  Policy-file binds (/usr, /bin)
 * stay as they are: the jail user must not own the host's system files.
 *
 * A policy bind whose source lies below a directory others cannot search
 * (root's 0700 home, a 0700 TMPDIR: the policy `sbx learn` printed for a
 * -b of root's checkout) would be out of the jail user's reach, so sbx
 * opens that one too, walked from "/" without following a link anywhere
 * (a link on the way leaves it to the init, as before), and clones it
 * plain, not idmapped: the program has others' access to its files, as
 * it has to /usr's.
 */
#include "jail/internal.h"

#include "base/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

/* One idmap user namespace per owner (uid:gid) among the trees. */
struct owner_ns {
	uid_t uid;
	gid_t gid;
	int fd;
};

struct hostbind {
	struct jail_plan *plan;
	int procfd;
	struct owner_ns *ns; /* at most one per tree */
	size_t nns;
	int ntrees;
};

/* sbx run is one process: its compile and run jails warn once between them. */
static bool warned;

/* Write the maps of the user namespace of the blocked child PID. */
static int map_child(struct hostbind *hb, pid_t pid, int pidfd, const struct stat *owner,
		     int *nsfd, struct sbx_err *err)
{
	const struct jail_spec *s = hb->plan->spec;
	int dir = ownproc_child_dir(hb->procfd, pid, pidfd, err);
	char map[64];
	int rc = -1;

	if (dir < 0)
		return -1;
	/* the owner on disk is the jail's host uid in the idmapped tree */
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)owner->st_uid, s->host_uid);
	if (ownproc_write(dir, pid, "uid_map", map, err) == 0) {
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)owner->st_gid, s->host_gid);
		rc = ownproc_write(dir, pid, "gid_map", map, err);
	}
	if (rc == 0 && (*nsfd = openat(dir, "ns/user", O_RDONLY | O_CLOEXEC)) < 0)
		rc = err_set(err, ERR_SETUP, errno, "open /proc/%d/ns/user: %s", (int)pid,
			     strerror(errno));
	close(dir);
	return rc;
}

/* A user namespace mapping OWNER's uid and gid to the jail's; its fd. */
static int make_userns(struct hostbind *hb, const struct stat *owner, struct sbx_err *err)
{
	int sync[2], pidfd = -1, nsfd = -1, rc;
	char c;
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) < 0)
		return err_set(err, ERR_SETUP, errno, "pipe2: %s", strerror(errno));
	/* the child only holds the namespace open until its fd is ours */
	pid = syscall(SYS_clone, CLONE_NEWUSER | CLONE_PIDFD | SIGCHLD, NULL, &pidfd, NULL, 0);
	if (pid == 0) {
		close(sync[1]);
		_exit(read(sync[0], &c, 1) < 0);
	}
	close(sync[0]);
	if (pid < 0) {
		close(sync[1]);
		return err_set(err, ERR_SETUP, errno, "clone(CLONE_NEWUSER) for an idmapped "
			       "mount: %s", strerror(errno));
	}
	rc = map_child(hb, pid, pidfd, owner, &nsfd, err);
	close(sync[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(pidfd);
	return rc < 0 ? -1 : nsfd;
}

static int owner_userns(struct hostbind *hb, const struct stat *st, struct sbx_err *err)
{
	for (size_t i = 0; i < hb->nns; i++)
		if (hb->ns[i].uid == st->st_uid && hb->ns[i].gid == st->st_gid)
			return hb->ns[i].fd;
	hb->ns[hb->nns].fd = make_userns(hb, st, err);
	if (hb->ns[hb->nns].fd < 0)
		return -1;
	hb->ns[hb->nns].uid = st->st_uid;
	hb->ns[hb->nns].gid = st->st_gid;
	return hb->ns[hb->nns++].fd;
}

static void warn_plain(const char *what, const char *dir, uint32_t uid, int e)
{
	if (warned)
		return;
	fprintf(stderr, "sbx: warning: %s %s: this filesystem or kernel refused an "
		"idmapped mount (%s): it is bound as it is, the program (host uid %u) has "
		"only others' access to its files, and what it creates there belongs to "
		"uid %u (put it on ext4, xfs, btrfs or tmpfs with Linux >= 6.3, or run "
		"sbx as an ordinary user)\n", what, dir, strerror(e), uid, uid);
}

/*
 * The tree of the source FD (named DIR for WHAT in messages), with ATTRS,
 * idmapped when IDMAP; -1 with ERR (STEP names what failed).
 */
static int make_tree(struct hostbind *hb, int fd, const char *what, const char *dir,
		     unsigned attrs, bool idmap, struct sbx_err *err)
{
	const char *step = "fstat";
	struct stat st;
	bool refused = false;
	int ns, tree = -1, e;

	if (fstat(fd, &st) < 0)
		return err_set(err, ERR_SETUP, errno, "%s %s: fstat: %s", what, dir,
			       strerror(errno));
	/* the host's procfs shows every host process: the jail has its own */
	if (carries_procfs(fd) != 0)
		return err_set(err, ERR_SETUP, EPERM, "%s %s: the source is or holds a host "
			       "procfs, or cannot be checked (refused: it shows every host "
			       "process; the jail has its own /proc)", what, dir);
	if (idmap) {
		if ((ns = owner_userns(hb, &st, err)) < 0)
			return -1;
		tree = mp_clone_idmap(fd, attrs, ns, &step, &refused);
	}
	if (tree < 0 && (!idmap || refused)) {
		e = errno;
		if (refused)
			warn_plain(what, dir, hb->plan->spec->host_uid, e);
		tree = mp_clone(fd, attrs, &step);
	}
	if (tree < 0)
		return err_set(err, ERR_SETUP, errno, "%s %s: %s: %s", what, dir, step,
			       strerror(errno));
	return tree;
}

/* path_walk's check: note a directory on the way that others cannot search */
static int note_closed(int fd, const char *walked, void *arg)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!(st.st_mode & S_IXOTH))
		*(bool *)arg = true;
	return 0;
}

/*
 * The source of policy bind M, opened (O_PATH) when a directory on its way
 * keeps others out, walked from "/" without following any link; -1 when
 * the jail user reaches it itself, when the source itself keeps others
 * out, or when a link, a missing component or anything else stops the
 * walk: the init then binds it by its path, and says what failed there.
 */
static int closed_policy_source(const struct mount_entry *m)
{
	struct path_walk w = { .flags = O_PATH, .dotdot = true, .check = note_closed };
	char leaf[NAME_MAX + 1];
	bool closed = false;
	struct stat st;
	int root, parent, fd;

	w.arg = &closed;
	if (!m->src || m->src[0] != '/')
		return -1;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	parent = path_walk(root, m->src, &w, leaf);
	close(root);
	if (parent < 0)
		return -1;
	fd = closed ? openat(parent, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1;
	close(parent);
	/* a source others cannot use itself (a 0700 directory) stays the
	 * init's: bound, it would only fail inside; refused, it is named */
	if (fd >= 0 && (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode) ||
			!(st.st_mode & (S_ISDIR(st.st_mode) ? S_IXOTH : S_IROTH)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A command-line bind to make here: its source exists and is no symlink
 * (the init turns a symlink into the same link, and skips what is
 * optional and missing, as for any bind); or a policy bind the jail user
 * could not reach (closed_policy_source). */
static int bind_tree(struct hostbind *hb, const struct mount_entry *m, int *tree,
		     struct sbx_err *err)
{
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			 (m->rw ? 0 : MOUNT_ATTR_RDONLY) | (m->noexec ? MOUNT_ATTR_NOEXEC : 0);
	struct stat st;
	int fd;

	*tree = -1;
	if (m->type != MNT_BIND)
		return 0;
	if (!m->at.option) {
		fd = closed_policy_source(m);
		if (fd < 0)
			return 0;
		if (++hb->ntrees > JAIL_MAX_HOST_TREES) {
			close(fd);
			return err_set(err, ERR_USAGE, E2BIG, "mount %s (bind from %s): more than "
				       "%d binds from below directories others cannot search "
				       "and from --bind/--bind-rw options (bind a common parent "
				       "directory instead)", m->dst, m->src, JAIL_MAX_HOST_TREES);
		}
		*tree = make_tree(hb, fd, "mount", m->src, attrs, false, err);
		close(fd);
		return *tree < 0 ? -1 : 0;
	}
	if (++hb->ntrees > JAIL_MAX_HOST_TREES)
		return err_set(err, ERR_USAGE, E2BIG, "%s %s: more than %d --bind/--bind-rw "
			       "options (bind a common parent directory instead)",
			       m->at.option, m->src, JAIL_MAX_HOST_TREES);
	/* one no-follow open, then fstat: with lstat before a following open, a
	 * user swapping SRC and a symlink (RENAME_EXCHANGE) had root's jail
	 * write a directory root owns, idmapped to its owner */
	fd = open(m->src, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "%s %s: open: %s", m->at.option, m->src,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
		close(fd);
		return 0;
	}
	*tree = make_tree(hb, fd, m->at.option, m->src, attrs, true, err);
	close(fd);
	return *tree < 0 ? -1 : 0;
}

int hostbind_prepare(struct jail_plan *plan, int procfd, struct sbx_err *err)
{
	const struct jail_spec *s = plan->spec;
	const struct policy *p = plan->policy;
	struct hostbind hb = { .plan = plan, .procfd = procfd };
	int rc = 0;

	plan->ws_tree = -1;
	plan->host_trees = calloc(p->nmounts + 1, sizeof(int));
	hb.ns = calloc(p->nmounts + 1, sizeof(*hb.ns));
	if (!plan->host_trees || !hb.ns) {
		free(hb.ns);
		return err_set(err, ERR_SETUP, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->nmounts; i++)
		plan->host_trees[i] = -1;
	for (size_t i = 0; rc == 0 && i < p->nmounts; i++)
		rc = bind_tree(&hb, &p->mounts[i], &plan->host_trees[i], err);
	if (rc == 0 && s->workspace_host && s->workdir_fd >= 0) {
		plan->ws_tree = make_tree(&hb, s->workdir_fd, "--workdir", s->workspace_host,
					  MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true, err);
		rc = plan->ws_tree < 0 ? -1 : 0;
	}
	for (size_t i = 0; i < hb.nns; i++)
		close(hb.ns[i].fd);
	free(hb.ns);
	warned = warned || rc == 0;
	if (rc < 0)
		hostbind_close(plan);
	return rc;
}

void hostbind_close(struct jail_plan *plan)
{
	for (size_t i = 0; plan->host_trees && i < plan->policy->nmounts; i++)
		if (plan->host_trees[i] >= 0)
			close(plan->host_trees[i]);
	free(plan->host_trees);
	plan->host_trees = NULL;
	if (plan->ws_tree >= 0)
		close(plan->ws_tree);
	plan->ws_tree = -1;
}
