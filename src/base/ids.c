/*
 * ids.c - whether euid 0 is the host's root, and the host's account names
 * from its name service (ids.h).
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
 * The host's accounts through the C library, so that every source
 * nsswitch.conf names (files, systemd, LDAP, sssd) answers as it does for
 * id(1).  The buffer grows on ERANGE (a group listing many members) up to
 * IDS_BUF_MAX; past that the name counts as unknown.
 */
#define IDS_BUF_MAX (1 << 20)
#define IDS_BUF_START 4096

/* getpwnam_r, getpwuid_r or getgrnam_r for KEY into ENTRY; FOUND says
 * whether it named one.  The strings stay in *BUF (the caller frees it). */
typedef int (*lookup_fn)(const void *key, void *entry, char *buf, size_t cap, bool *found);

static int by_name(const void *key, void *entry, char *buf, size_t cap, bool *found)
{
	struct passwd *hit = NULL;
	int rc = getpwnam_r(key, entry, buf, cap, &hit);

	*found = hit != NULL;
	return rc;
}

static int by_uid(const void *key, void *entry, char *buf, size_t cap, bool *found)
{
	struct passwd *hit = NULL;
	int rc = getpwuid_r(*(const uid_t *)key, entry, buf, cap, &hit);

	*found = hit != NULL;
	return rc;
}

static int group_by_name(const void *key, void *entry, char *buf, size_t cap, bool *found)
{
	struct group *hit = NULL;
	int rc = getgrnam_r(key, entry, buf, cap, &hit);

	*found = hit != NULL;
	return rc;
}

static bool lookup(lookup_fn fn, const void *key, void *entry, char **buf)
{
	bool found = false;
	char *bigger;
	int rc;

	*buf = NULL;
	for (size_t cap = IDS_BUF_START; cap <= IDS_BUF_MAX; cap *= 2) {
		if (!(bigger = realloc(*buf, cap)))
			return false;
		*buf = bigger;
		rc = fn(key, entry, *buf, cap, &found);
		if (rc != ERANGE)
			return rc == 0 && found;
	}
	return false;
}

/* (uid_t)-1 is "no id" to every syscall: glibc reads -1 and numbers past
 * 2^32 in a files entry as it, and no account can be it. */
bool ids_user_uid(const char *name, uid_t *uid)
{
	struct passwd pw;
	char *buf = NULL;
	bool ok = *name && lookup(by_name, name, &pw, &buf) && pw.pw_uid != (uid_t)-1;

	if (ok)
		*uid = pw.pw_uid;
	free(buf);
	return ok;
}

char *ids_user_home(uid_t uid)
{
	struct passwd pw;
	char *buf = NULL, *home = NULL;

	if (uid != (uid_t)-1 && lookup(by_uid, &uid, &pw, &buf) && pw.pw_dir)
		home = strdup(pw.pw_dir);
	free(buf);
	return home;
}

bool ids_group_gid(const char *name, gid_t *gid)
{
	struct group gr;
	char *buf = NULL;
	bool ok = *name && lookup(group_by_name, name, &gr, &buf) && gr.gr_gid != (gid_t)-1;

	if (ok)
		*gid = gr.gr_gid;
	free(buf);
	return ok;
}
