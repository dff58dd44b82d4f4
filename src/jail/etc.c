/*
 * etc.c - a synthesized /etc for policies that do not mount one.
 *
 * Just enough for `id`, getpwuid(), name resolution of localhost and the
 * dynamic loader (passwd, group, hosts, nsswitch.conf written here, the
 * host's ld.so.cache copied), plus a reviewed list of public host files
 * that common runtimes read (host_files below).  Written into the new root's tmpfs before it is made
 * read-only, so the program cannot change them (and the next run starts
 * from scratch anyway).
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/ids.h"
#include "policy/policy.h"

/* Only a mount of /etc itself replaces the synthesized one; mounts below
 * it (/etc/alternatives) land inside the synthesized directory. */
bool etc_is_mounted(const struct policy *p)
{
	for (size_t i = 0; i < p->nmounts; i++)
		if (strcmp(p->mounts[i].dst, "/etc") == 0)
			return true;
	return false;
}

static int write_text(int etc_fd, const char *name, const char *text,
		      struct sbx_err *err)
{
	size_t len = strlen(text);
	int fd = openat(etc_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				      O_CLOEXEC, 0644);
	int e = 0;

	/* O_EXCL: a file the policy mounted there wins; never write into it */
	if (fd < 0 && errno == EEXIST)
		return 0;
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (e)
		return err_set(err, ERR_SETUP, e, "synthesizing /etc/%s: %s", name,
			       strerror(e));
	return 0;
}

static int write_passwd(const struct jail_plan *plan, int etc_fd,
			struct sbx_err *err)
{
	const struct policy *p = plan->policy;
	const char *home = p->workspace ? p->workspace : "/mnt/data";
	char text[1024];
	int n;

	/* The jail user first, under the conventional name of its uid, so that
	 * `id` says "nobody" for 65534 as on the host; no uid appears twice. */
	const char *user = p->uid == SBX_NOBODY_ID ? "nobody" : p->uid == 0 ? "root" : "sandbox";
	n = snprintf(text, sizeof(text), "%s:x:%u:%u:%s:%s:/bin/sh\n",
		     user, p->uid, p->gid, user, home);
	if (p->uid != 0)
		n += snprintf(text + n, sizeof(text) - n,
			      "root:x:0:0:root:/root:/bin/sh\n");
	if (p->uid != SBX_NOBODY_ID)
		snprintf(text + n, sizeof(text) - n,
			 "nobody:x:%u:%u:nobody:/nonexistent:/usr/sbin/nologin\n",
			 SBX_NOBODY_ID, SBX_NOBODY_ID);
	return write_text(etc_fd, "passwd", text, err);
}

static int write_group(const struct jail_plan *plan, int etc_fd,
		       struct sbx_err *err)
{
	const struct policy *p = plan->policy;
	char text[256];
	int n;

	const char *group = p->gid == SBX_NOBODY_ID ? "nogroup" : p->gid == 0 ? "root" : "sandbox";
	n = snprintf(text, sizeof(text), "%s:x:%u:\n", group, p->gid);
	if (p->gid != 0)
		n += snprintf(text + n, sizeof(text) - n, "root:x:0:\n");
	if (p->gid != SBX_NOBODY_ID)
		snprintf(text + n, sizeof(text) - n, "nogroup:x:%u:\n", SBX_NOBODY_ID);
	return write_text(etc_fd, "group", text, err);
}

static int write_hosts(const struct jail_plan *plan, int etc_fd,
		       struct sbx_err *err)
{
	const char *host = plan->policy->hostname ? plan->policy->hostname : "sbx";
	char text[512];

	snprintf(text, sizeof(text),
		 "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
		 "127.0.1.1\t%s\n", host);
	return write_text(etc_fd, "hosts", text, err);
}

/*
 * Host files copied in, reviewed one by one: each is public (a package's
 * or the installer's, world-readable, no account, key or secret in it)
 * and read by common runtimes, which fail or complain without it.
 */
static const struct { const char *name; off_t max; } host_files[] = {
	/* the loader's cache: library lookup without scanning every dir */
	{ "ld.so.cache", 16 << 20 },
	/* distribution name and version: platform, pip, Node's os.version */
	{ "os-release", 64 << 10 },
	/* the host's time zone for libc, Python and Node (tz data in /usr) */
	{ "localtime", 1 << 20 },
	{ "timezone", 4 << 10 },
	/* Debian's matplotlib reads its defaults here and fails without them */
	{ "matplotlibrc", 1 << 20 },
	/* file type by extension: Python's mimetypes, Perl, file servers */
	{ "mime.types", 1 << 20 },
	/* netbase's protocol and port names: getprotobyname, getservbyname */
	{ "protocols", 1 << 20 },
	{ "services", 1 << 20 },
};

static int copy_fail(int in, int out, int e, const char *name, struct sbx_err *err)
{
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (!e)
		return 0;
	return err_set(err, ERR_SETUP, e, "copying /etc/%s: %s", name, strerror(e));
}

/*
 * /etc/NAME of the host into ETC_FD, when it is a world-readable regular
 * file of at most MAX bytes; skipped silently otherwise (a host without
 * it, or one where it is not public).  Copied, not bound, to save mount
 * calls; read-only with the rest of /etc.
 */
static int copy_host_file(int etc_fd, const char *name, off_t max, struct sbx_err *err)
{
	char path[64];
	struct stat st;
	int in, out, e = 0;

	snprintf(path, sizeof(path), "/etc/%s", name);
	/* O_NONBLOCK: a FIFO planted there must not hang the setup */
	in = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return 0;
	/* only what any local user may read: run by root, sbx must not carry
	 * a file the admin protected (a link to shadow) into the jail */
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IROTH) ||
	    st.st_size > max)
		return copy_fail(in, -1, 0, name, err);
	out = openat(etc_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	/* EEXIST: a file the policy mounted there wins */
	if (out < 0)
		return copy_fail(in, -1, errno == EEXIST ? 0 : errno, name, err);
	for (off_t off = 0; !e && off < st.st_size;) {
		ssize_t n = sendfile(out, in, &off, st.st_size - off);

		if (n <= 0)
			e = n < 0 ? errno : 0; /* shrunk while copied: keep what came */
		if (n == 0)
			break;
	}
	return copy_fail(in, out, e, name, err);
}

int etc_synthesize(const struct jail_plan *plan, int etc_fd, struct sbx_err *err)
{
	if (write_passwd(plan, etc_fd, err) < 0 || write_group(plan, etc_fd, err) < 0 ||
	    write_hosts(plan, etc_fd, err) < 0 ||
	    write_text(etc_fd, "nsswitch.conf",
		       "passwd: files\ngroup: files\nshadow: files\n"
		       "hosts: files\nnetworks: files\n", err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(host_files) / sizeof(host_files[0]); i++)
		if (copy_host_file(etc_fd, host_files[i].name, host_files[i].max, err) < 0)
			return -1;
	return 0;
}
