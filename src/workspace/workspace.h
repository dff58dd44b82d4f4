/*
 * workspace.h - what is mounted at the policy's workspace path.
 *
 * Disposable (default): a tmpfs the jail's init makes (jail.h), never a
 * directory on the host: nothing is left on the host however sbx ends
 * (kill -9 included), its total size is bounded, and no host path leads
 * to it.  Inputs (-f, --lang FILE) are opened and checked before the jail
 * starts and copied in through the supervisor's descriptor of the tmpfs
 * at CTL_READY (workspace_attach); the record's files and -o read back
 * through the same descriptor after the jail is gone.  A compiled
 * language's two stages share it (the second jail clones the mount).
 * Persistent (-w DIR): DIR itself, never removed, locked (flock) against
 * a second concurrent run; inputs are copied in at once.  Copies go by
 * descriptor (O_NOFOLLOW in, O_EXCL out).
 *
 * The folder: workspace.c (this header: making, locking, copy-in, the
 * tmpfs's attach), scan.c (the bounded scan that never follows a link),
 * diff.c (two scans -> what the run created, changed or deleted:
 * artifacts.h), copyout.c (-o DIR).  All of it runs in sbx's own process.
 */
#ifndef SBX_WORKSPACE_H
#define SBX_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "policy/policy.h"

/* An input waiting for the tmpfs: its open source and its name there. */
struct ws_input {
	int fd;
	const char *name; /* points into the caller's argument */
	const char *src;
	const char *option;
};

struct workspace {
	char *host_path; /* -w: absolute; NULL for the tmpfs */
	int dirfd;       /* O_DIRECTORY|O_CLOEXEC fd of it; the tmpfs's from attach on; -1 */
	bool disposable; /* a tmpfs in the jail */
	int mnt_fd;      /* its detached mount (fsmount's fd): the last close of
			  * that would dissolve it, and a later stage clones it */
	struct ws_input *in; /* disposable: inputs not yet copied */
	size_t nin;
	char **made;     /* -w: mount points sbx is to make in it, parents first */
	size_t nmade;
};

/* The tmpfs's size bound in MiB for a file-size limit of FILE_SIZE_MB:
 * WS_TMPFS_FILES such files, within [WS_TMPFS_MIN_MB, WS_TMPFS_MAX_MB]. */
#define WS_TMPFS_FILES 4
#define WS_TMPFS_MIN_MB 64ULL
#define WS_TMPFS_MAX_MB 4096ULL
unsigned long long workspace_tmpfs_mb(uint64_t file_size_mb);

/* Prepare a disposable workspace (nothing made yet), or adopt WORKDIR. */
int workspace_open(struct workspace *ws, const char *workdir, struct sbx_err *err);

/* Copy everything readable from IN to OUT (fds); -1 with errno on failure. */
int copy_bytes(int in, int out);

/* Copy the regular file SRC into the workspace as basename(SRC), mode 0644,
 * or 0755 when SRC is executable by its owner: now for -w, at
 * workspace_attach for the tmpfs (SRC is opened and checked now). */
int workspace_copy_in(struct workspace *ws, const char *src,
		      const char *option, struct sbx_err *err);

/* `--lang L -`: the program is sbx's stdin, read to its end now (at most MAX
 * bytes, else an error) and copied in as NAME the way workspace_copy_in
 * copies a file. */
int workspace_copy_in_stdin(struct workspace *ws, const char *name, uint64_t max,
			    const char *option, struct sbx_err *err);

/* The tmpfs is up: take MNT_FD (its mount fd; kept) and copy the
 * inputs in, creating them as HOST_UID when sbx runs as root (the tmpfs
 * belongs to the jail's user namespace, where only that uid is mapped). */
int workspace_attach(struct workspace *ws, int mnt_fd, uint32_t host_uid,
		     struct sbx_err *err);

/* Remove the file NAME sbx itself writes there (an old build output). */
int workspace_remove_file(const struct workspace *ws, const char *name,
			  struct sbx_err *err);

/*
 * Before the run, -w: note the mount points the jail will make in DIR for
 * POLICY's mounts inside the workspace (--tmpfs /mnt/data/x, -b SRC:/mnt/
 * data/y): the components of their destinations DIR lacks now.
 * workspace_remove_mount_points, once every jail process is gone, removes
 * those that are still empty: a directory, or an empty file (a file
 * bind's mount point).  What the program put in one keeps it.
 */
int workspace_note_mount_points(struct workspace *ws, const struct policy *policy,
				struct sbx_err *err);
void workspace_remove_mount_points(struct workspace *ws);

/* Close WS (a tmpfs goes with its last descriptor; -w stays). */
void workspace_close(struct workspace *ws);

#endif
