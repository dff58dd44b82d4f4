/*
 * fs_setuid_plant - setting the setuid or setgid bit on a file the jail
 * wrote must fail.  The workspace (the working directory) can be a host
 * directory (-w), and the jail's uid is the caller's on the host (65534
 * when sbx runs as root): `cp /bin/sh x; chmod 6755 x` there leaves a
 * setuid-as-the-caller shell for anyone who can reach the directory.
 * Tries chmod, fchmod and fchmodat; any bit that sticks is an escape.
 * The file is named "sbx-setuid-plant" so the test can look at it.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/stat.h>

static const char name[] = "sbx-setuid-plant";

static void check(int rc, int fd, const char *how)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		probe_error("fstat: %s", errname(errno));
	if (rc == 0 || (st.st_mode & (S_ISUID | S_ISGID)))
		escaped("%s set mode %o on %s", how, (unsigned)st.st_mode & 07777, name);
}

int main(void)
{
	int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0755);

	if (fd < 0)
		probe_error("cannot create %s in the working directory: %s", name, errname(errno));
	if (write(fd, "#!/bin/sh\nid\n", 13) != 13)
		probe_error("write: %s", errname(errno));
	check(chmod(name, 04755), fd, "chmod(4755)");
	check(fchmod(fd, 02755), fd, "fchmod(2755)");
	check(fchmodat(AT_FDCWD, name, 06755, 0), fd, "fchmodat(6755)");
	int e = errno;
	if (chmod(name, 0700) != 0)
		probe_error("plain chmod(0700) failed: %s", errname(errno));
	blocked("setuid/setgid bits refused: %s", errname(e));
}
