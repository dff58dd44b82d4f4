/*
 * ucount.c - the jail's own per-user-namespace limits (/proc/sys/user).
 *
 * inotify instances and watches, fanotify groups and marks and namespaces
 * are counted per user, per user namespace, and hierarchically: what the
 * jail holds is also charged to the user that created its namespace (the
 * caller; for a root caller, root).  Unbounded, 128 inotify_init1 in a
 * jail made the caller's own inotify_init1 fail with EMFILE on the host.
 * A new user namespace starts with INT_MAX everywhere; the init, which
 * holds CAP_SYS_RESOURCE in it while it builds the jail, lowers them
 * before anything else runs.  The sysctl a process sees is the one of its
 * own user namespace, so the write goes through the host's /proc, opened
 * before the root is built and written once it is: building it clones
 * mounts (open_tree, fsmount), and each clone is an anonymous mount
 * namespace that max_mnt_namespaces=0 would refuse with ENOSPC.
 *
 * The trade-off: the caller's quota (128 inotify instances by default) is
 * shared by all its processes and jails, so N jails at a time can still
 * use N x these; the values keep one jail well below the whole quota while
 * leaving ordinary programs (a file watcher or two) what they use.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	const char *value;
} jail_ucounts[] = {
	{ "max_inotify_instances", "16" },
	{ "max_inotify_watches", "1024" },
	/* fanotify_init and every namespace flag are refused by seccomp
	 * already: zero as a second wall */
	{ "max_fanotify_groups", "0" },
	{ "max_fanotify_marks", "0" },
	{ "max_user_namespaces", "0" },
	{ "max_mnt_namespaces", "0" },
	{ "max_pid_namespaces", "0" },
	{ "max_net_namespaces", "0" },
	{ "max_ipc_namespaces", "0" },
	{ "max_uts_namespaces", "0" },
	{ "max_cgroup_namespaces", "0" },
	{ "max_time_namespaces", "0" },
};

static int write_limit(int dirfd, const char *name, const char *value,
		       struct sbx_err *err)
{
	char path[64];
	size_t len = strlen(value);
	int fd, e = 0;

	snprintf(path, sizeof(path), "/proc/sys/user/%s", name);
	fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0; /* this kernel has no such count */
	if (fd < 0 || write(fd, value, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (e)
		return err_set(err, ERR_SETUP, e, "writing %s = %s in the jail's user "
			       "namespace: %s (is /proc/sys read-only here? sbx needs "
			       "it writable to bound the jail's share of your quotas)",
			       path, value, strerror(e));
	return 0;
}

int ucount_open(struct sbx_err *err)
{
	int fd = open("/proc/sys/user", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "opening /proc/sys/user: %s "
			       "(sbx needs the host's /proc to bound the jail's share of "
			       "your quotas)", strerror(errno));
	return fd;
}

int ucount_limit_jail(int dirfd, struct sbx_err *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(jail_ucounts) / sizeof(jail_ucounts[0]); i++)
		rc = write_limit(dirfd, jail_ucounts[i].name, jail_ucounts[i].value, err);
	close(dirfd);
	return rc;
}
