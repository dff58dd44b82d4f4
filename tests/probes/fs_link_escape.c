/*
 * fs_link_escape HOSTPATH [PLANTED] - links in the workspace must not
 * reach host files: a symlink the probe makes to HOSTPATH resolves inside
 * the jail (ENOENT); a hard link to HOSTPATH cannot be made (the name does
 * not exist inside); a symlink PLANTED by the host in the workspace
 * (pointing at HOSTPATH) gives nothing either.
 */
#include "probe.h"

#include <fcntl.h>

static void try_read(const char *path, const char *how)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	(void)!read(fd, buf, sizeof(buf) - 1);
	escaped("read the host file through %s: \"%.40s\"", how, buf);
}

int main(int argc, char **argv)
{
	char sym[64], hard[64];

	if (argc < 2)
		probe_error("usage: fs_link_escape HOSTPATH [PLANTED]");
	snprintf(sym, sizeof(sym), "sbx-probe-sym-%d", (int)getpid());
	snprintf(hard, sizeof(hard), "sbx-probe-hard-%d", (int)getpid());
	if (symlink(argv[1], sym) == 0) {
		try_read(sym, "a symlink made inside");
		unlink(sym);
	}
	if (link(argv[1], hard) == 0) {
		try_read(hard, "a hard link made inside");
		unlink(hard);
		escaped("hard-linked %s into the workspace", argv[1]);
	}
	int link_errno = errno;
	if (argc > 2)
		try_read(argv[2], "a symlink planted in the workspace");
	blocked("no link reaches %s (link: %s)", argv[1], errname(link_errno));
}
