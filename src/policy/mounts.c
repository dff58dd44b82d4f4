/*
 * mounts.c - the rules for a mount table, whoever wrote it.
 *
 * A policy file and the command line (-b, -B, --tmpfs) build the same
 * table, so both go through the same two steps: policy_path_clean() turns
 * a command-line spelling ("/proc/", "//proc", "/./proc", "/proc/.") into
 * the one form a policy file must already use, and policy_check_mounts()
 * checks the final table (after includes and every override): each dst
 * is a normalized absolute path (path_problem), and no entry covers a
 * mount sbx owns (the root, the jail's /proc and /dev, the workspace),
 * sits above one, reaches below the jail's /proc or passes through a
 * SYMLINK entry.  The jail's walk refuses any other symlink at run time.
 * policy_sort_mounts() puts parents before children, so neither the order
 * of a file nor that of the options can hide a mount under a later one.
 */
#include "policy/internal.h"

#include <stdio.h>
#include <string.h>

#define DEFAULT_WORKSPACE "/mnt/data"

void policy_path_clean(char *s)
{
	char *out = s;
	const char *in = s;

	if (*s != '/')
		return; /* relative: path_problem says so */
	while (*in) {
		/* "//" and "/./" are the same directory; "/." at the end too */
		if (in[0] == '/' && (in[1] == '/' || (in[1] == '.' && (in[2] == '/' || !in[2])))) {
			in += in[1] == '/' ? 1 : 2;
			continue;
		}
		*out++ = *in++;
	}
	/* a trailing '/' names the same directory ("/proc/" is /proc) */
	while (out > s + 1 && out[-1] == '/')
		out--;
	if (out == s)
		*out++ = '/';
	*out = '\0';
}

static size_t depth(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

void policy_sort_mounts(struct policy *p)
{
	/* stable insertion sort by depth: a parent always has fewer '/' than
	 * its children, and entries of one depth keep the order written */
	for (size_t i = 1; i < p->nmounts; i++) {
		struct mount_entry m = p->mounts[i];
		size_t j = i, d = depth(m.dst);

		for (; j > 0 && depth(p->mounts[j - 1].dst) > d; j--)
			p->mounts[j] = p->mounts[j - 1];
		p->mounts[j] = m;
	}
}

const char *policy_path_problem(const char *s)
{
	return path_problem(s);
}

/* PATH is DIR or below it. */
static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static bool below(const char *path, const char *dir)
{
	return within(path, dir) && strcmp(path, dir) != 0;
}

/* "py.policy:12:3" or "--bind", to start a message about an entry. */
static void origin_text(const struct origin *at, char *buf, size_t size)
{
	if (at->option)
		snprintf(buf, size, "%s", at->option);
	else if (at->file && at->line > 0)
		snprintf(buf, size, "%s:%d:%d", at->file, at->line, at->col);
	else
		snprintf(buf, size, "%s", at->file ? at->file : "built-in default");
}

/* A mount sbx builds itself; WHAT names it in messages. */
struct reserved {
	const char *dst;
	int only;             /* the enum mount_type allowed on it, or -1 */
	bool no_submounts;    /* nothing may be mounted below it */
	const char *what;
};

static size_t reserved_list(const struct policy *p, struct reserved *r, size_t max)
{
	size_t n = 0;

	r[n++] = (struct reserved){ p->workspace ? p->workspace : DEFAULT_WORKSPACE,
				    -1, false, "the workspace" };
	r[n++] = (struct reserved){ "/proc", MNT_PROC, true, "the jail's /proc" };
	r[n++] = (struct reserved){ "/dev", MNT_DEV, false, "the jail's /dev" };
	for (size_t i = 0; i < p->nmounts && n < max; i++)
		if (p->mounts[i].type == MNT_PROC || p->mounts[i].type == MNT_DEV)
			r[n++] = (struct reserved){ p->mounts[i].dst, p->mounts[i].type,
						    p->mounts[i].type == MNT_PROC,
						    "a PROC or DEV mount" };
	return n;
}

#define STR_(x) #x
#define STR(x) STR_(x)

static int refuse(const struct mount_entry *m, struct sbx_err *err, const char *why)
{
	char where[512];
	/* the message reaches the JSON record: never quote bytes that are not UTF-8 */
	bool quotable = utf8_valid(m->dst, strlen(m->dst));

	origin_text(&m->at, where, sizeof(where));
	return err_set(err, ERR_CONFIG, 0, "%s: mount at %.300s refused: %s", where,
		       quotable ? m->dst : "(a path that is not UTF-8)", why);
}

static int check_reserved(const struct mount_entry *m, const struct reserved *r,
			  struct sbx_err *err)
{
	char why[600];

	if (strcmp(m->dst, r->dst) == 0) {
		if (r->only < 0)
			/* the program's files and sbx's copy-out live there */
			return refuse(m, err, "it would hide the workspace (choose the "
				      "workspace directory with --workdir)");
		if ((int)m->type == r->only)
			return 0;
		/* a host /proc lists host processes (and would feed the
		 * supervisor's meters); a host /dev exposes host devices */
		snprintf(why, sizeof(why), "only a %s mount may go there (a host %s %s)",
			 r->only == MNT_PROC ? "PROC" : "DEV", r->dst,
			 r->only == MNT_PROC ? "shows host processes" : "exposes host devices");
		return refuse(m, err, why);
	}
	/* a mount above a reserved one would cover it, whatever the order */
	if (below(r->dst, m->dst)) {
		snprintf(why, sizeof(why), "it contains %s at %.300s and could hide it",
			 r->what, r->dst);
		return refuse(m, err, why);
	}
	/* what the supervisor reads in the jail's /proc must be the kernel's */
	if (r->no_submounts && below(m->dst, r->dst)) {
		snprintf(why, sizeof(why), "nothing may be mounted below %.300s (%s)",
			 r->dst, r->what);
		return refuse(m, err, why);
	}
	return 0;
}

/* A SYMLINK entry the dst goes through would redirect the mount. */
static int check_through_symlink(const struct policy *p, const struct mount_entry *m,
				 struct sbx_err *err)
{
	char why[600];

	for (size_t i = 0; i < p->nmounts; i++) {
		const struct mount_entry *l = &p->mounts[i];

		if (l->type == MNT_SYMLINK && below(m->dst, l->dst)) {
			snprintf(why, sizeof(why), "it passes through the SYMLINK mount at "
				 "%.300s (a mount is never placed through a symlink)", l->dst);
			return refuse(m, err, why);
		}
	}
	return 0;
}

static int check_entry(const struct policy *p, const struct mount_entry *m,
		       const struct reserved *r, size_t nr, struct sbx_err *err)
{
	const char *why = path_problem(m->dst);
	char msg[300];

	if (why) {
		/* "/x/../proc" is /proc to a reader and must not slip by */
		snprintf(msg, sizeof(msg), "the destination %s", why);
		return refuse(m, err, msg);
	}
	/* the root is always a fresh tmpfs; a mount on it would expose or hide everything */
	if (strcmp(m->dst, "/") == 0)
		return refuse(m, err, "the root is always a fresh tmpfs");
	for (size_t k = 0; k < nr; k++)
		if (check_reserved(m, &r[k], err) < 0)
			return -1;
	return check_through_symlink(p, m, err);
}

#define MAX_RESERVED 32

/* The workspace is a bind like the others: not on the root either. */
static int check_workspace(const struct policy *p, struct sbx_err *err)
{
	char where[512];

	if (!p->workspace || (strcmp(p->workspace, "/") != 0 && strcmp(p->workspace, "/etc") != 0))
		return 0;
	origin_text(&p->at[F_WORKSPACE], where, sizeof(where));
	/* sbx writes its /etc (passwd, ld.so.cache) into that directory: into
	 * the caller's -w directory, and the program could rewrite them */
	if (strcmp(p->workspace, "/etc") == 0)
		return err_set(err, ERR_CONFIG, 0, "%s: workspace \"/etc\" refused: sbx "
			       "writes the jail's /etc there (choose a directory such as "
			       "/mnt/data)", where);
	return err_set(err, ERR_CONFIG, 0, "%s: workspace \"/\" refused: the root is "
		       "always a fresh tmpfs (choose a directory such as /mnt/data)", where);
}

int policy_check_mounts(const struct policy *p, struct sbx_err *err)
{
	struct reserved r[MAX_RESERVED];
	size_t nr = reserved_list(p, r, MAX_RESERVED);

	if (check_workspace(p, err) < 0)
		return -1;

	for (size_t i = 0, ntmpfs = 0; i < p->nmounts; i++) {
		const struct mount_entry *m = &p->mounts[i];

		if (check_entry(p, m, r, nr, err) < 0)
			return -1;
		/* one more tmpfs than the meter holds would be memory nobody charges */
		if ((m->type == MNT_TMPFS || m->type == MNT_DEV) && ++ntmpfs > POLICY_MAX_TMPFS)
			return refuse(m, err, "more than " STR(POLICY_MAX_TMPFS) " tmpfs and "
				      "dev mounts (the memory meter charges at most that many)");
	}
	return 0;
}
