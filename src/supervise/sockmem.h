/*
 * sockmem.h - memory the jail holds in AF_UNIX socket buffers (private to
 * supervise/).
 *
 * Bytes written to a unix socket and not yet read live in kernel memory
 * that no process's RSS shows: 30 processes pinned 1.7 GiB that way under
 * --memory 64M.  The init opens a NETLINK_SOCK_DIAG socket in
 * the jail's own network namespace; a dump through it lists exactly the
 * jail's unix sockets with what each has allocated.
 */
#ifndef SBX_SUPERVISE_SOCKMEM_H
#define SBX_SUPERVISE_SOCKMEM_H

#include <stdbool.h>
#include <stdint.h>

/* Is FD a NETLINK_SOCK_DIAG socket (what the init sends for this)? */
bool sockmem_is_diag(int fd);

/* How many sockets the network namespace of the /proc/PID/net/sockstat
 * open at FD has ("sockets: used N"), or -1 when it cannot be read: one
 * pread, against the dump's netlink round trip. */
int64_t sockmem_sockets_used(int fd);

/* KiB that the unix sockets of FD's network namespace hold in their send
 * and receive queues, or -1 when the dump fails. */
int64_t sockmem_unix_kib(int fd);

/* KiB queued in the netlink sockets that /proc/PID/net/netlink open at FD
 * lists (its Rmem and Wmem columns), or -1 when it cannot be read. */
int64_t sockmem_netlink_kib(int fd);

#endif
