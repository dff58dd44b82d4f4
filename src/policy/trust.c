/*
 * trust.c - which policy files sbx may believe when it runs as root.
 *
 * A policy decides the jail's network, seccomp filter, limits and which
 * host variables pass in: run by root, one that an unprivileged user can
 * write is a root escalation (`su` without `-` or sudo
 * keeping HOME made root load that user's ~/.config/sbx/default.policy).
 * So as root the config directory comes from the environment only when
 * root owns it and every directory above it; otherwise from the password
 * database.  And every policy file root loads (a config or /etc/sbx file,
 * an include, or one named with -p) must be owned by root (or the real
 * uid) and writable by nobody else, and so must the directories above it
 * (a sticky directory such as /tmp is fine above, not as its own
 * directory).  The file is checked on the opened descriptor, so a symlink
 * cannot swap in another file after the check.  Unprivileged callers
 * gain nothing by planting a policy for themselves: nothing is checked.
 */
#include "base/cleanup.h"
#include "policy/trust.h"

#include "base/ids.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool trusted_owner(uid_t uid)
{
	return uid == 0 || uid == getuid();
}

/* Why DIR (absolute, no symlinks) is not trusted, or NULL. */
static const char *dir_untrusted(const char *dir, bool own_dir, char *buf, size_t cap)
{
	struct stat st;

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(buf, cap, "directory %s cannot be checked", dir);
		return buf;
	}
	if (!trusted_owner(st.st_uid)) {
		snprintf(buf, cap, "directory %s belongs to uid %u", dir, (unsigned)st.st_uid);
		return buf;
	}
	/* others may add names to a sticky directory, never replace ours;
	 * but the file's own directory must admit no new name at all */
	if ((st.st_mode & 022) && (own_dir || !(st.st_mode & S_ISVTX))) {
		snprintf(buf, cap, "directory %s is writable by group or others (mode %04o)",
			 dir, (unsigned)(st.st_mode & 07777));
		return buf;
	}
	return NULL;
}

/* Why REAL (a realpath) or a directory above it is not trusted, or NULL. */
static const char *chain_untrusted(const char *real, bool is_dir, char *buf, size_t cap)
{
	char path[PATH_MAX];
	bool own = true;
	const char *why;

	snprintf(path, sizeof(path), "%s", real);
	if (is_dir && (why = dir_untrusted(path, true, buf, cap)))
		return why;
	for (char *slash; (slash = strrchr(path, '/')) != NULL; own = false) {
		if (slash == path) {
			if (!path[1])
				break;
			path[1] = '\0';
		} else {
			*slash = '\0';
		}
		if ((why = dir_untrusted(path, own && !is_dir, buf, cap)))
			return why;
		if (!strcmp(path, "/"))
			break;
	}
	return NULL;
}

bool policy_trust_needed(void)
{
	return geteuid() == 0;
}

const char *policy_file_untrusted(int fd, const char *path, char *buf, size_t cap)
{
	char real[PATH_MAX];
	struct stat st, named;

	if (!policy_trust_needed())
		return NULL;
	if (fstat(fd, &st) < 0 || !realpath(path, real) || stat(real, &named) < 0 ||
	    named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
		snprintf(buf, cap, "it cannot be checked (it moved while being opened)");
		return buf;
	}
	if (!trusted_owner(st.st_uid)) {
		snprintf(buf, cap, "it belongs to uid %u", (unsigned)st.st_uid);
		return buf;
	}
	if (st.st_mode & 022) {
		snprintf(buf, cap, "it is writable by group or others (mode %04o)",
			 (unsigned)(st.st_mode & 07777));
		return buf;
	}
	return chain_untrusted(real, false, buf, cap);
}

/* BASE/sbx when root may trust it (see the top of the file). */
static char *trusted_sbx_dir(const char *base)
{
	char *dir cleanup_free = NULL, real[PATH_MAX], why[256];
	bool ok = false;

	if (asprintf(&dir, "%s/sbx", base) < 0) {
		dir = NULL; /* asprintf leaves it undefined */
		return NULL;
	}
	if (!policy_trust_needed())
		return steal_ptr(&dir);
	if (realpath(dir, real))
		ok = !chain_untrusted(real, true, why, sizeof(why));
	else if (errno == ENOENT && realpath(base, real)) /* nothing in it yet: */
		ok = !chain_untrusted(real, true, why, sizeof(why)); /* its parent decides */
	return ok ? steal_ptr(&dir) : NULL;
}

static char *pw_config_dir(void)
{
	char *home cleanup_free = ids_user_home(geteuid()), *base cleanup_free = NULL;

	if (!home || home[0] != '/' || asprintf(&base, "%s/.config", home) < 0) {
		base = NULL; /* asprintf leaves it undefined */
		return NULL;
	}
	return trusted_sbx_dir(base);
}

/* Say once that a config directory another user controls is ignored. */
static void warn_ignored(const char *base)
{
	static bool warned;
	char *dir cleanup_free = NULL;
	struct stat st;

	if (warned || asprintf(&dir, "%s/sbx", base) < 0) {
		dir = NULL; /* asprintf leaves it undefined */
		return;
	}
	if (stat(dir, &st) == 0)
		fprintf(stderr, "sbx: note: ignoring %s: run by root, sbx reads only a "
			"configuration directory that root owns, with every directory "
			"above it (set HOME to root's home, e.g. use su - or sudo -H)\n", dir);
	warned = true;
}

char *policy_config_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *base cleanup_free = NULL, *dir = NULL;

	/* the XDG spec says relative values are invalid: ignore them */
	if (xdg && xdg[0] == '/')
		base = strdup(xdg);
	else if (home && home[0] == '/' && asprintf(&base, "%s/.config", home) < 0)
		base = NULL;
	if (base)
		dir = trusted_sbx_dir(base);
	if (base && !dir && policy_trust_needed())
		warn_ignored(base);
	/* as root, a HOME or XDG_CONFIG_HOME another user controls is not
	 * root's configuration: root's own home from the password database is */
	if (!dir && policy_trust_needed())
		dir = pw_config_dir();
	return dir;
}
