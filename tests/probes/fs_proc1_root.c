/*
 * fs_proc1_root [PATH] - /proc/1/root must lead to the jail's root, not the
 * host's: the host's /etc/shadow and the planted PATH are absent there.
 */
#include "probe.h"

#include <sys/stat.h>

static void check(const char *inner)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/1/root%s", inner);
	if (stat(path, &st) == 0)
		escaped("%s exists through /proc/1/root", inner);
}

int main(int argc, char **argv)
{
	check("/etc/shadow");
	check("/home");
	for (int i = 1; i < argc; i++)
		check(argv[i]);
	struct stat st;
	if (stat("/proc/1/root/", &st) != 0)
		blocked("/proc/1/root is not reachable: %s", errname(errno));
	blocked("/proc/1/root holds none of the host files");
}
