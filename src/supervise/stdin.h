/*
 * stdin.h - what the program reads on fd 0 (private to supervise/).
 *
 * Default /dev/null (fd 0 is never left closed: the program's next open()
 * would get it).  Otherwise the jail only ever gets the read end of a pipe
 * sbx made: --stdin FILE and --stdin - are relayed through it.  A host fd
 * is never handed over, because the jail could walk a directory fd
 * (/proc/self/fd/0/..), or reopen a file fd for writing via /proc/self/fd/0
 * (the reopen checks only the inode's permissions, not the fd's mode).
 * FILE and sbx's fd 0 may be a regular file, a FIFO, a socket or a
 * character device; a directory, an O_PATH fd, a block device or a
 * write-only fd is refused (config error naming --stdin).
 */
#ifndef SBX_SUPERVISE_STDIN_H
#define SBX_SUPERVISE_STDIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define STDIN_BUF_SIZE (64 * 1024)

struct stdin_relay {
	int src;         /* what is relayed; -1 = not relaying / EOF */
	bool src_owned;  /* src was opened by sbx (--stdin FILE): close it */
	bool src_ready;  /* src cannot be polled (a regular file, /dev/null):
	                  * treat it as always readable */
	int dst;         /* write end of the program's stdin pipe (non-blocking) */
	unsigned char *buf;
	size_t off, len; /* pending bytes in buf */
};

/*
 * Prepare SPEC (NULL, "-" or a path).  *JAIL_FD gets the fd to hand to the
 * jail as the program's stdin (the caller closes it after jail_spawn):
 * /dev/null for NULL (or when sbx's fd 0 is closed), else a pipe fed by R.
 */
int stdin_open(const char *spec, int *jail_fd, struct stdin_relay *r, struct sbx_err *err);

/* Which fd the relay waits on now and for what (EPOLLIN/EPOLLOUT); -1 = done. */
int stdin_want(const struct stdin_relay *r, unsigned *events);

/* Move data after the fd from stdin_want() became ready. */
void stdin_pump(struct stdin_relay *r);

void stdin_close(struct stdin_relay *r);

#endif
