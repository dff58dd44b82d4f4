/*
 * ids.c - whether euid 0 is a root that can give the jail uid 65534 (ids.h).
 */
#include "base/ids.h"

#include <stdio.h>
#include <unistd.h>

/* Whether ID is inside an extent of /proc/self/{uid,gid}_map; -1 unreadable. */
static int id_mapped(const char *path, unsigned long id)
{
	FILE *f = fopen(path, "re");
	unsigned long in, out, count;
	int found = 0;

	if (!f)
		return -1;
	while (!found && fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
		found = id >= in && id - in < count;
	fclose(f);
	return found;
}

bool ids_host_root(void)
{
	static int cached = -1;

	if (cached < 0) {
		int u = id_mapped("/proc/self/uid_map", SBX_NOBODY_ID);
		int g = id_mapped("/proc/self/gid_map", SBX_NOBODY_ID);

		/* unreadable counts as mapped: never treat a real root as a user */
		cached = geteuid() == 0 && u != 0 && g != 0;
	}
	return cached;
}
