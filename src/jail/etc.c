/*
 * etc.c - a synthesized /etc for policies that do not mount one.
 *
 * Just enough for `id`, getpwuid(), name resolution of localhost and the
 * dynamic loader: passwd, group, hosts, nsswitch.conf and a copy of the
 * host's ld.so.cache.  Written into the new root's tmpfs before it is made
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

/* The loader's cache makes library lookup fast; copied, not bound, to
 * save two mount calls; it is read-only with the rest of /etc. */
static int copy_ld_cache(int etc_fd, struct sbx_err *err)
{
	struct stat st;
	int in = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	int out, e = 0;

	if (in < 0)
		return 0;
	out = openat(etc_fd, "ld.so.cache", O_WRONLY | O_CREAT | O_EXCL |
						   O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0 || fstat(in, &st) < 0)
		e = errno;
	for (off_t off = 0; !e && off < st.st_size;) {
		ssize_t n = sendfile(out, in, &off, st.st_size - off);

		if (n <= 0)
			e = n < 0 ? errno : EIO;
	}
	close(in);
	if (out >= 0)
		close(out);
	if (e)
		return err_set(err, ERR_SETUP, e, "copying /etc/ld.so.cache: %s",
			       strerror(e));
	return 0;
}

int etc_synthesize(const struct jail_plan *plan, int etc_fd, struct sbx_err *err)
{
	if (write_passwd(plan, etc_fd, err) < 0 || write_group(plan, etc_fd, err) < 0 ||
	    write_hosts(plan, etc_fd, err) < 0 ||
	    write_text(etc_fd, "nsswitch.conf",
		       "passwd: files\ngroup: files\nshadow: files\n"
		       "hosts: files\nnetworks: files\n", err) < 0)
		return -1;
	return copy_ld_cache(etc_fd, err);
}
