/*
 * callerpath.h - the paths a caller names for sbx to open on its behalf:
 * --stdin, --stdout, --stderr, --result, -o and -w.
 *
 * sbx opens them with the caller's rights (root's, often), and a jail may
 * have planted any name in a directory it could write (a -w workspace
 * outlives the run).  So no component of such a path is ever followed as
 * a symbolic link: a relative path is walked from the cwd, an absolute
 * one from "/", one component at a time (base/path.h), and a link
 * anywhere is refused with a message naming it.  Ownership cannot tell a
 * planted link from the caller's own (a root caller's workspace files are
 * root's on the host), so there is no exception but sbx's own
 * descriptors: /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd/N.
 */
#ifndef SBX_CALLERPATH_H
#define SBX_CALLERPATH_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/err.h"

/* /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N: the descriptor number
 * they name (sbx uses the descriptor, not the link); else -1. */
int caller_path_fd(const char *path);

/*
 * Open PATH for OPTION ("--stdin") with FLAGS (and MODE with O_CREAT),
 * never following a link in any component.  A new fd, or -1 with ERR
 * (ERR_USAGE) naming OPTION, PATH and the link or file that failed.
 */
int caller_open(const char *option, const char *path, int flags, mode_t mode,
		struct sbx_err *err);

/* The directory PATH (-o, -w), created (0755) first when MAKE and missing;
 * only the last component is made. */
int caller_open_dir(const char *option, const char *path, bool make, struct sbx_err *err);

/*
 * An output file (--stdout, --stderr, --result): created 0644 or emptied,
 * open for writing, non-blocking.  Only a regular file with one link or a
 * character device (/dev/null, a tty: a jail cannot make one) is
 * accepted; a FIFO (it could block sbx, or hand the output to whoever
 * reads it), a socket, a directory, a block device, or a file with
 * another hard link (a jail could have linked a file outside to the name)
 * is refused before anything is written.
 */
int caller_open_output(const char *option, const char *path, struct sbx_err *err);

/* PATH, walked as above, names FD's file itself (not a link to it). */
bool caller_path_is(const char *path, int fd);

/* The error for a regular file at PATH with NLINK links, for OPTION. */
int caller_hard_link_err(const char *option, const char *path, unsigned long nlink,
			 struct sbx_err *err);

#endif
