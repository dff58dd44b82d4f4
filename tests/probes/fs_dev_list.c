/*
 * fs_dev_list - /dev must hold exactly the devices the policy lists:
 * null zero full random urandom (plus the fd/stdin/stdout/stderr symlinks,
 * which are harmless: they point into /proc/self/fd), and shm, the default
 * policy's POSIX shared memory: a fresh, empty, sized tmpfs of its own.
 * Any other node (a disk, kmsg, mem, a tty, the host's /dev/shm) is an
 * escape.
 */
#include "probe.h"

#include <dirent.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
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

/* /dev/shm: its own tmpfs (not the host's, not /dev's), sized, empty. */
static int fresh_shm(const char *path)
{
	struct statfs sfs;
	struct stat dev, shm;
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (statfs(path, &sfs) != 0 || sfs.f_type != TMPFS_MAGIC ||
	    (unsigned long long)sfs.f_blocks * sfs.f_bsize > (256ull << 20))
		return 0;
	if (stat("/dev", &dev) != 0 || stat(path, &shm) != 0 || dev.st_dev == shm.st_dev)
		return 0;
	d = opendir(path);
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return d && n == 0;
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
		if (S_ISDIR(st.st_mode) && !strcmp(e->d_name, "shm") && fresh_shm(path))
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
