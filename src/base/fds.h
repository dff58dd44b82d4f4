/*
 * fds.h - close every file descriptor but a few, and prove it; tell
 * whether two descriptors are one file.
 *
 * sbx (at start), the jail's init and the target each shed what they
 * inherited: make's jobserver, a CI runner's pipes, `3<secret`.  One
 * helper for the three, async-signal-safe (no allocation: it runs in the
 * forked init and target).
 */
#ifndef SBX_FDS_H
#define SBX_FDS_H

#include <stdbool.h>
#include <stddef.h>

#define FDS_KEEP_MAX 64

/*
 * Close every fd not in KEEP (N entries, any order, negatives ignored, at
 * most FDS_KEEP_MAX).  close_range(2) needs no free fd, so this works with
 * a full table.  Where it fails (Linux < 5.9, a container's seccomp
 * profile), a loop up to the soft RLIMIT_NOFILE frees a slot and
 * /proc/self/fd names whatever is left above it.  0, or -1 with errno
 * when no proof is possible (no /proc): fail closed.
 */
int fds_close_except(const int *keep, size_t n);

/* A and B are open on the same file (device and inode). */
bool fds_same_file(int a, int b);

#endif
