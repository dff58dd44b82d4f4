/*
 * scratch.c - the jail's scratch /tmp, moved aside when a host directory
 * is bound directly in it.
 *
 * The policies give the jail a private tmpfs at /tmp (HOME and TMPDIR
 * point there).  A checkout bound directly below it (-B . in /tmp/pkg)
 * then has that tmpfs for its parent, and a build that writes beside the
 * checkout (dpkg-buildpackage's ../pkg.deb) succeeds into memory that
 * vanishes with the jail: the run ends "ok" with the artifact lost.  So
 * in that case the scratch tmpfs goes to /var/tmp instead, and /tmp is
 * left a directory of the jail's read-only root that only holds the
 * mount points: such a write fails at once (EACCES/EROFS), loudly.  The
 * variables that pointed into the scratch (HOME, TMPDIR, a preset's cache
 * directories) follow it, unless they name a path inside another mount.
 * A --tmpfs /tmp given on the command line stays where the caller put it.
 */
#include "policy/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRATCH "/tmp"
#define MOVED_TO "/var/tmp"

static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Is PATH, inside the scratch, in (or at) a mount other than the scratch? */
static bool in_other_mount(const struct policy *p, const struct mount_entry *t,
			   const char *path)
{
	for (size_t i = 0; i < p->nmounts; i++)
		if (&p->mounts[i] != t && within(path, p->mounts[i].dst))
			return true;
	return false;
}

/* The bind whose parent is the scratch itself, or NULL. */
static const struct mount_entry *bound_in_scratch(const struct policy *p)
{
	size_t n = strlen(SCRATCH);

	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount_entry *m = &p->mounts[i];

		if (m->type == MNT_BIND && within(m->dst, SCRATCH) && m->dst[n] == '/' &&
		    !strchr(m->dst + n + 1, '/'))
			return m;
	}
	return NULL;
}

static int move_env(struct policy *p, const struct mount_entry *t, struct sbx_err *err)
{
	for (size_t i = 0; i < p->env.n; i++) {
		char *eq = strchr(p->env.v[i], '='), *moved;
		size_t name = eq ? (size_t)(eq - p->env.v[i]) : 0;

		if (!eq || !within(eq + 1, SCRATCH) || in_other_mount(p, t, eq + 1))
			continue;
		if (asprintf(&moved, "%.*s=%s%s", (int)name, p->env.v[i], MOVED_TO,
			     eq + 1 + strlen(SCRATCH)) < 0)
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		free(p->env.v[i]);
		p->env.v[i] = moved;
	}
	return 0;
}

int policy_move_scratch(struct policy *p, struct sbx_err *err)
{
	const struct mount_entry *bind = bound_in_scratch(p);
	struct mount_entry *t = NULL;
	char *dst;

	for (size_t i = 0; i < p->nmounts && !t; i++)
		if (p->mounts[i].type == MNT_TMPFS && p->mounts[i].rw &&
		    strcmp(p->mounts[i].dst, SCRATCH) == 0)
			t = &p->mounts[i];
	/* a --tmpfs /tmp of the command line is where the caller asked for it */
	if (!t || !bind || t->at.option)
		return 0;
	for (size_t i = 0; i < p->nmounts; i++)
		if (within(p->mounts[i].dst, MOVED_TO))
			return err_set(err, ERR_CONFIG, 0,
				       "mount %s: it is bound directly in the jail's scratch "
				       "/tmp, which then moves to " MOVED_TO " so that what a "
				       "program writes beside it (../FILE) fails instead of "
				       "vanishing with the jail, but " MOVED_TO " is mounted "
				       "too (%s): bind the parent directory as well (-B ..), "
				       "or bind it elsewhere (SRC:/work/NAME)",
				       bind->dst, p->mounts[i].dst);
	if (p->cwd && within(p->cwd, SCRATCH) && !in_other_mount(p, t, p->cwd))
		return err_set(err, ERR_CONFIG, 0,
			       "the working directory %s is in the jail's scratch /tmp, "
			       "which moves to " MOVED_TO " because %s is bound directly "
			       "in it: set the working directory to %s or " MOVED_TO,
			       p->cwd, bind->dst, bind->dst);
	if (move_env(p, t, err) < 0)
		return -1;
	if (!(dst = strdup(MOVED_TO)))
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	free(t->dst);
	t->dst = dst;
	if (!(p->scratch_moved_for = strdup(bind->dst)))
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	policy_sort_mounts(p);
	return 0;
}
