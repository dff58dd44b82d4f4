/*
 * ids.c - whether euid 0 is the host's root, and the host's account names
 * from /etc/passwd and /etc/group (ids.h).
 */
#include "base/ids.h"

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

/* The entry of /etc/passwd that NAME (or, without a name, UID) names. */
static bool passwd_entry(const char *name, uid_t uid, uid_t *uid_out, char **home)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd pw, *hit = NULL;
	char buf[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgetpwent_r(f, &pw, buf, sizeof(buf), &hit) == 0 && hit)
		found = name ? !strcmp(pw.pw_name, name) : pw.pw_uid == uid;
	fclose(f);
	if (!found)
		return false;
	if (uid_out)
		*uid_out = pw.pw_uid;
	if (home && !(*home = strdup(pw.pw_dir)))
		return false;
	return true;
}

bool ids_user_uid(const char *name, uid_t *uid)
{
	return passwd_entry(name, 0, uid, NULL);
}

char *ids_user_home(uid_t uid)
{
	char *home = NULL;

	return passwd_entry(NULL, uid, NULL, &home) ? home : NULL;
}

bool ids_group_gid(const char *name, gid_t *gid)
{
	FILE *f = fopen("/etc/group", "re");
	struct group gr, *hit = NULL;
	char buf[16384]; /* a group line lists its members */
	bool found = false;

	if (!f)
		return false;
	while (!found && fgetgrent_r(f, &gr, buf, sizeof(buf), &hit) == 0 && hit)
		found = !strcmp(gr.gr_name, name);
	fclose(f);
	if (found)
		*gid = gr.gr_gid;
	return found;
}
