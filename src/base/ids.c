/*
 * ids.c - whether euid 0 is the host's root, and the host's account names
 * from /etc/passwd and /etc/group (ids.h).
 */
#include "base/ids.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether PATH (/proc/self/{uid,gid}_map) is the initial namespace's one
 * identity extent "0 0 4294967295"; -1 unreadable. */
static int initial_map(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned long in, out, count;
	int n, whole = 0;

	if (!f)
		return -1;
	for (n = 0; fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3; n++)
		whole = in == 0 && out == 0 && count == 4294967295UL;
	fclose(f);
	return n == 1 && whole;
}

bool ids_host_root(void)
{
	static int cached = -1;

	if (cached < 0) {
		int u = initial_map("/proc/self/uid_map");
		int g = initial_map("/proc/self/gid_map");

		/* unreadable counts as root: never treat a real root as a user */
		cached = geteuid() == 0 && u != 0 && g != 0;
	}
	return cached;
}

/*
 * The files lookups of glibc (getpwuid, getpwnam, getgrnam), which a static
 * sbx cannot call (ids.h), as nss_files does them: the first entry that
 * matches, past NIS compat markers ("+", "+name", "-name": they parse with
 * uid 0, a bare "+" with no home), and past a line longer than the buffer
 * (ERANGE: the buffer grows, up to IDS_LINE_MAX, and the line is read
 * again from its start; past that the scan ends, not found).
 */
#define IDS_LINE_MAX (1 << 20)
#define IDS_LINE_START 4096

static bool compat_marker(const char *name)
{
	return name[0] == '+' || name[0] == '-';
}

/* After ERANGE for the line at AT: a buffer twice as big and the stream
 * back at the line's start (glibc seeks back itself; an older one did
 * not, and its rest would have read as an entry of its own). */
static bool grow(FILE *f, off_t at, char **buf, size_t *cap)
{
	char *bigger;

	if (*cap >= IDS_LINE_MAX || at < 0 || fseeko(f, at, SEEK_SET) != 0 ||
	    !(bigger = realloc(*buf, *cap * 2)))
		return false;
	*buf = bigger;
	*cap *= 2;
	return true;
}

/* One of the two account files, read entry by entry into its buffer. */
struct db {
	FILE *f;
	char *buf;
	size_t cap;
};

/* fgetpwent_r or fgetgrent_r: 0 with an entry, else ERANGE or the end. */
typedef int (*db_next_fn)(FILE *f, void *entry, char *buf, size_t cap);

static int next_passwd(FILE *f, void *entry, char *buf, size_t cap)
{
	struct passwd *hit = NULL;
	int rc = fgetpwent_r(f, entry, buf, cap, &hit);

	return rc ? rc : hit ? 0 : ENOENT;
}

static int next_group(FILE *f, void *entry, char *buf, size_t cap)
{
	struct group *hit = NULL;
	int rc = fgetgrent_r(f, entry, buf, cap, &hit);

	return rc ? rc : hit ? 0 : ENOENT;
}

static bool db_open(struct db *d, const char *path)
{
	d->cap = IDS_LINE_START;
	d->buf = malloc(d->cap);
	d->f = d->buf ? fopen(path, "re") : NULL;
	return d->f != NULL;
}

static void db_close(struct db *d)
{
	if (d->f)
		fclose(d->f);
	free(d->buf);
}

/* The next entry into ENTRY (its strings in D's buffer); false at the end. */
static bool db_read(struct db *d, db_next_fn next, void *entry)
{
	for (;;) {
		off_t at = ftello(d->f);
		int rc = next(d->f, entry, d->buf, d->cap);

		/* a group line lists its members: any line may be long */
		if (rc == ERANGE && grow(d->f, at, &d->buf, &d->cap))
			continue;
		return rc == 0;
	}
}

/* The entry of PATH that NAME (or, without a name, UID) names. */
static bool passwd_entry(const char *path, const char *name, uid_t uid, uid_t *uid_out,
			 char **home)
{
	struct db d;
	struct passwd pw;
	bool found = false, ok;

	if (db_open(&d, path))
		while (!found && db_read(&d, next_passwd, &pw))
			found = !compat_marker(pw.pw_name) &&
				(name ? !strcmp(pw.pw_name, name) : pw.pw_uid == uid);
	/* (uid_t)-1 is "no id" to every syscall: glibc reads -1 and numbers
	 * past 2^32 as it, and no account can be it */
	ok = found && pw.pw_uid != (uid_t)-1 &&
	     (!home || (pw.pw_dir && (*home = strdup(pw.pw_dir))));
	if (ok && uid_out)
		*uid_out = pw.pw_uid;
	db_close(&d);
	return ok;
}

bool ids_user_uid_in(const char *passwd, const char *name, uid_t *uid)
{
	return passwd_entry(passwd, name, 0, uid, NULL);
}

char *ids_user_home_in(const char *passwd, uid_t uid)
{
	char *home = NULL;

	return passwd_entry(passwd, NULL, uid, NULL, &home) ? home : NULL;
}

bool ids_group_gid_in(const char *group, const char *name, gid_t *gid)
{
	struct db d;
	struct group gr;
	bool found = false;

	if (db_open(&d, group))
		while (!found && db_read(&d, next_group, &gr))
			found = !compat_marker(gr.gr_name) && !strcmp(gr.gr_name, name);
	found = found && gr.gr_gid != (gid_t)-1; /* "no id", as for uids */
	if (found)
		*gid = gr.gr_gid;
	db_close(&d);
	return found;
}

bool ids_user_uid(const char *name, uid_t *uid)
{
	return ids_user_uid_in("/etc/passwd", name, uid);
}

char *ids_user_home(uid_t uid)
{
	return ids_user_home_in("/etc/passwd", uid);
}

bool ids_group_gid(const char *name, gid_t *gid)
{
	return ids_group_gid_in("/etc/group", name, gid);
}
