/*
 * cleanup.h - scoped release of fds, memory, streams and directory
 * streams, as bubblewrap's
 * and systemd's cleanup attributes do: declare `int fd cleanup_fd = -1;`,
 * return early on any error, and steal_fd() what is handed over.  Not for
 * code that runs after vfork in the parent's memory.
 */
#ifndef SBX_CLEANUP_H
#define SBX_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_fd_fn(int *fd)
{
	int e = errno; /* a close on the way out keeps the error being returned */

	if (*fd >= 0)
		close(*fd);
	errno = e;
}

static inline void cleanup_free_fn(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_file_fn(FILE **f)
{
	int e = errno;

	if (*f)
		fclose(*f);
	errno = e;
}

static inline void cleanup_dir_fn(DIR **d)
{
	int e = errno;

	if (*d)
		closedir(*d);
	errno = e;
}

#define cleanup_fd __attribute__((cleanup(cleanup_fd_fn)))
#define cleanup_free __attribute__((cleanup(cleanup_free_fn)))
#define cleanup_file __attribute__((cleanup(cleanup_file_fn)))
#define cleanup_dir __attribute__((cleanup(cleanup_dir_fn)))

/* *FD, which the cleanup then leaves open. */
static inline int steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

/* *P, which the cleanup then leaves allocated. */
static inline void *steal_ptr(void *p)
{
	void *v = *(void **)p;

	*(void **)p = NULL;
	return v;
}

#endif
