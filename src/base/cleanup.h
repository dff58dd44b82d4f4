/*
 * cleanup.h - scoped release of fds and memory, as bubblewrap's and
 * systemd's: `int fd cleanup_fd = -1;` closes FD when it goes out of
 * scope, so an early return on error leaks nothing; steal_fd() hands the
 * fd over (to the caller, or a struct) and leaves -1 behind.
 *
 * Not for code that runs after vfork in the parent's memory.
 */
#ifndef SBX_CLEANUP_H
#define SBX_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_fd_close(int *fd)
{
	int e = errno; /* the error being returned is the one that counts */

	if (*fd >= 0)
		close(*fd);
	errno = e;
}

static inline void cleanup_free_ptr(void *p)
{
	free(*(void **)p);
}

#define cleanup_fd __attribute__((cleanup(cleanup_fd_close)))
#define cleanup_free __attribute__((cleanup(cleanup_free_ptr)))

static inline int steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#endif
