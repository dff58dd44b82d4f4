/*
 * ids.c - whether euid 0 is the host's root (ids.h).
 */
#include "base/ids.h"

#include <stdio.h>
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
