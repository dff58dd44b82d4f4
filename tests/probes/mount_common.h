/*
 * mount_common.h - a scratch mount point for the mount probes: a fresh
 * directory under $TMPDIR or /tmp, so that a mount that wrongly succeeds
 * (bare as root, in sanity mode) covers nothing and is undone at once.
 */
#ifndef SBX_MOUNT_COMMON_H
#define SBX_MOUNT_COMMON_H

#include "probe.h"

#include <sys/mount.h>

static char scratch_dir[256];

static inline const char *make_scratch(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch_dir, sizeof(scratch_dir), "%s/sbx-probe-mnt-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch_dir)) {
		/* A read-only /tmp still lets the attempt be made on the workspace. */
		snprintf(scratch_dir, sizeof(scratch_dir), "sbx-probe-mnt-XXXXXX");
		if (!mkdtemp(scratch_dir))
			probe_error("no scratch directory: %s", errname(errno));
	}
	return scratch_dir;
}

/* A mount that succeeded: undo it, then report the escape. */
__attribute__((noreturn))
static inline void mounted(const char *what)
{
	umount2(scratch_dir, MNT_DETACH);
	rmdir(scratch_dir);
	escaped("%s succeeded", what);
}

__attribute__((noreturn))
static inline void not_mounted(const char *what, int e)
{
	rmdir(scratch_dir);
	blocked("%s failed: %s", what, errname(e));
}

#endif
