/*
 * workspace.h - the host directory mounted at the policy's workspace path.
 *
 * Disposable (default): a fresh private directory with a random name under
 * $TMPDIR/sbx-UID/ (TMPDIR defaults to /tmp), locked for the run's life
 * and removed after it without ever following a symlink or leaving the
 * tree; what a crashed sbx left there is removed by the next run.  All of
 * it is made and removed by fd beneath TMPDIR, opened from "/" one
 * component at a time; run by root, a TMPDIR with a directory on its path
 * that another user can rename entries of (writable without the sticky
 * bit, or owned by another user) is refused.
 * Persistent (-w DIR): DIR itself, never removed, locked (flock) against a
 * second concurrent run.  Files are copied in by descriptor (O_NOFOLLOW
 * in, O_EXCL out).
 */
#ifndef SBX_WORKSPACE_H
#define SBX_WORKSPACE_H

#include <stdbool.h>

#include "base/err.h"

struct workspace {
	char *host_path; /* absolute */
	int dirfd;       /* O_DIRECTORY|O_CLOEXEC fd of host_path, -1 = none */
	bool disposable;
	int parent_fd;   /* disposable only: $TMPDIR/sbx-UID, and $TMPDIR */
	int tmp_fd;
};

/* Make a disposable workspace, or adopt WORKDIR (must be a directory). */
int workspace_open(struct workspace *ws, const char *workdir, struct sbx_err *err);

/* Copy everything readable from IN to OUT (fds); -1 with errno on failure. */
int copy_bytes(int in, int out);

/* Copy the regular file SRC into the workspace as basename(SRC). */
int workspace_copy_in(const struct workspace *ws, const char *src,
		      const char *option, struct sbx_err *err);

/* Remove the file NAME sbx itself writes there (an old build output). */
int workspace_remove_file(const struct workspace *ws, const char *name,
			  struct sbx_err *err);

/*
 * Close WS; remove it when disposable.  Returns -1 with ERR filled when
 * removal failed (the directory is then left in place and named in ERR).
 */
int workspace_close(struct workspace *ws, struct sbx_err *err);

#endif
