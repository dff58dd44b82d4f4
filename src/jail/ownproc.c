/*
 * ownproc.c - sbx's own /proc, checked before the supervisor trusts it.
 *
 * The supervisor writes the init's uid/gid maps through /proc/<pid>, with
 * the pid clone() returned: a pid in sbx's own pid namespace.  A /proc of
 * another namespace (sbx under `unshare -p -f` without --mount-proc, or
 * `bwrap --unshare-pid` without --proc) numbers other processes, and
 * /proc/<pid> there is some unrelated one.  So: /proc must be procfs and
 * show sbx with exactly one pid, its own (NSpid lists one pid per level
 * from the procfs's namespace down to ours); the child's directory is
 * opened once, and the child is checked alive after that.
 *
 * The same /proc gives the bounds of sbx's argv and environ strings, which
 * the init (a memory copy of sbx) wipes so /proc/1 does not show them.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Read all of DIRFD/NAME (a small /proc file) into BUF, NUL-terminated. */
static int read_small(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return 0;
}

static int foreign_proc(struct sbx_err *err, const char *seen)
{
	return err_set(err, ERR_SETUP, ESRCH,
		       "/proc belongs to another pid namespace (NSpid of "
		       "/proc/self is '%s', not '%d'): sbx would write the "
		       "uid/gid maps of some other process. Mount a proc for this "
		       "pid namespace: 'unshare --pid --fork --mount-proc', "
		       "'bwrap --unshare-pid --proc /proc', or 'mount -t proc proc "
		       "/proc' in a new mount namespace", seen, (int)getpid());
}

/* /proc/self/status's NSpid must be exactly our own pid. */
static int check_nspid(int procfd, struct sbx_err *err)
{
	char status[8192], seen[64], *line, *end;
	long pid;

	if (read_small(procfd, "self/status", status, sizeof(status)) < 0)
		return errno == EMFILE || errno == ENFILE
			? err_resource(err, "reading /proc/self/status", errno)
			: foreign_proc(err, "(none)");
	line = strstr(status, "\nNSpid:");
	if (!line)
		return err_set(err, ERR_SETUP, ENOENT,
			       "/proc/self/status has no NSpid line (kernel < 4.1 or "
			       "not a procfs): cannot check that /proc is this pid "
			       "namespace's");
	line += strlen("\nNSpid:");
	line += strspn(line, " \t");
	snprintf(seen, sizeof(seen), "%.*s", (int)strcspn(line, "\n"), line);
	for (char *c = seen; *c; c++)
		if (*c == '\t')
			*c = ' ';
	pid = strtol(line, &end, 10);
	/* One level: the procfs's namespace is ours, not an ancestor's. */
	if (pid != (long)getpid() || (*end != '\n' && *end != '\0'))
		return foreign_proc(err, seen);
	return 0;
}

int ownproc_open(struct sbx_err *err)
{
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct statfs sfs;

	if (fd < 0 && (errno == EMFILE || errno == ENFILE))
		return err_resource(err, "open /proc", errno);
	if (fd < 0)
		return err_set(err, ERR_SETUP, errno,
			       "open /proc: %s (sbx needs a procfs mounted for its "
			       "pid namespace at /proc)", strerror(errno));
	/* Not a procfs (a tmpfs, a bind of some directory): nothing in it
	 * names a process. */
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC) {
		close(fd);
		return err_set(err, ERR_SETUP, EINVAL,
			       "/proc is not a procfs: mount one for this pid "
			       "namespace ('mount -t proc proc /proc')");
	}
	if (check_nspid(fd, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int jail_check_own_proc(struct sbx_err *err)
{
	int fd = ownproc_open(err);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int ownproc_child_dir(int procfd, pid_t pid, int pidfd, struct sbx_err *err)
{
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "%d", (int)pid);
	fd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "open /proc/%s of the jail "
			       "init: %s", name, strerror(errno));
	/* Alive after the open: the directory is our child's, not that of a
	 * process that reused the pid (a caller's SIGCHLD=SIG_IGN reaps). */
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0) {
		err_set(err, ERR_SETUP, errno, "the jail init died before its "
			"uid/gid maps were written: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* See internal.h. */
int ownproc_write(int dirfd, pid_t pid, const char *name, const char *text,
		      struct sbx_err *err)
{
	size_t len = strlen(text);
	const char *cause;
	int fd, e = 0;

	fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (!e)
		return 0;
	cause = jail_map_refusal(e);
	if (!cause)
		cause = "the user namespace could not map uid/gid; see 'sbx doctor'";
	if (pid == 0)
		return err_set(err, ERR_SETUP, e,
			       "writing /proc/self/%s '%.*s' in the jail's init: %s (%s)",
			       name, (int)strcspn(text, "\n"), text, strerror(e), cause);
	return err_set(err, ERR_SETUP, e, "writing /proc/%d/%s '%.*s': %s (%s)", (int)pid,
		       name, (int)strcspn(text, "\n"), text, strerror(e), cause);
}

/*
 * Map the policy's uid/gid inside to one host id outside.  An unprivileged
 * caller can only map itself; a root caller maps to the run's own host id
 * from uidrange.c, so that the jail never runs as host root nor as an id
 * anything else on the host has.
 */
int jail_write_maps(int dirfd, pid_t pid, const struct jail_plan *plan, struct jail *out,
		    struct sbx_err *err)
{
	const struct policy *p = plan->policy;
	uint32_t out_uid = plan->map_uid, out_gid = plan->map_gid;
	char map[64];

	/* Unprivileged: setgroups must be denied before gid_map is writable
	 * (CVE-2014-8989: dropping groups could bypass negative ACLs).  Root
	 * keeps it allowed so that the init can drop root's groups. */
	if (!plan->host_root && ownproc_write(dirfd, pid, "setgroups", "deny", err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", p->uid, out_uid);
	if (ownproc_write(dirfd, pid, "uid_map", map, err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", p->gid, out_gid);
	if (ownproc_write(dirfd, pid, "gid_map", map, err) < 0)
		return -1;
	out->host_uid = out_uid;
	out->host_gid = out_gid;
	return 0;
}

/* Fields 48-51 of /proc/self/stat: arg_start arg_end env_start env_end. */
int ownproc_arg_area(int procfd, struct jail_plan *plan, struct sbx_err *err)
{
	char stat[4096], *p;
	unsigned long long v[4];

	if (read_small(procfd, "self/stat", stat, sizeof(stat)) < 0)
		return err_set(err, ERR_SETUP, errno, "reading /proc/self/stat: %s",
			       strerror(errno));
	/* After the comm (which may hold spaces and ')'), to the space
	 * before field 48. */
	p = strrchr(stat, ')');
	for (int field = 3; p && field <= 48; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) != 4 ||
	    v[0] > v[1] || v[2] > v[3])
		return err_set(err, ERR_SETUP, EINVAL, "/proc/self/stat: no argv and "
			       "environ bounds (kernel < 3.5?)");
	plan->arg_start = (uintptr_t)v[0];
	plan->arg_end = (uintptr_t)v[1];
	plan->env_start = (uintptr_t)v[2];
	plan->env_end = (uintptr_t)v[3];
	return 0;
}
