/*
 * stdin.h - what the program reads on fd 0 (private to supervise/).
 *
 * Default /dev/null (fd 0 is never left closed: the program's next open()
 * would get it); --stdin FILE opens FILE; --stdin - relays sbx's own stdin
 * through a pipe, so a terminal is never handed to the jail.
 */
#ifndef SBX_SUPERVISE_STDIN_H
#define SBX_SUPERVISE_STDIN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define STDIN_BUF_SIZE (64 * 1024)

struct stdin_relay {
	int src;         /* sbx's fd 0 while relaying; -1 = not relaying / EOF */
	int dst;         /* write end of the program's stdin pipe (non-blocking) */
	unsigned char *buf;
	size_t off, len; /* pending bytes in buf */
};

/*
 * Prepare SPEC (NULL, "-" or a path).  *JAIL_FD gets the fd to hand to the
 * jail as the program's stdin (the caller closes it after jail_spawn).
 * R is set up for relaying when SPEC is "-" and sbx's stdin needs a pipe.
 */
int stdin_open(const char *spec, int *jail_fd, struct stdin_relay *r, struct sbx_err *err);

/* Which fd the relay waits on now and for what (EPOLLIN/EPOLLOUT); -1 = done. */
int stdin_want(const struct stdin_relay *r, unsigned *events);

/* Move data after the fd from stdin_want() became ready. */
void stdin_pump(struct stdin_relay *r);

void stdin_close(struct stdin_relay *r);

#endif
