/*
 * fs_dev_list - /dev must hold exactly the devices the policy lists:
 * null zero full random urandom (plus the fd/stdin/stdout/stderr symlinks,
 * which are harmless: they point into /proc/self/fd).  Any other node (a
 * disk, kmsg, mem, a tty, /dev/shm left from the host) is an escape.
 */
#include "probe.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char *const devices[] = { "null", "zero", "full", "random", "urandom", NULL };
static const char *const links[] = { "fd", "stdin", "stdout", "stderr", NULL };

static int listed(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(name, *set) == 0)
			return 1;
	return 0;
}

int main(void)
{
	DIR *d = opendir("/dev");
	struct dirent *e;
	struct stat st;
	char path[300], seen[2048] = "";
	int ndev = 0;

	if (!d)
		probe_error("opendir /dev: %s", errname(errno));
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		strncat(seen, e->d_name, sizeof(seen) - strlen(seen) - 2);
		strcat(seen, " ");
		if (lstat(path, &st) != 0)
			escaped("cannot lstat %s: %s", path, errname(errno));
		if (S_ISLNK(st.st_mode) && listed(e->d_name, links))
			continue;
		if (!S_ISCHR(st.st_mode) || !listed(e->d_name, devices))
			escaped("unexpected /dev entry %s (mode %o); /dev holds: %s",
				e->d_name, st.st_mode, seen);
		ndev++;
	}
	closedir(d);
	if (ndev != 5)
		probe_error("only %d of the 5 devices present: %s", ndev, seen);
	blocked("/dev holds exactly: %s", seen);
}
