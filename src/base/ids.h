/*
 * ids.h - the one uid/gid number sbx gives a meaning (65534), and whether
 * sbx runs as the host's root.
 *
 * It is the kernel's overflow id, "nobody"/"nogroup" on the host.  sbx
 * uses it as the default uid/gid inside the jail, where the synthesized
 * /etc names it "nobody"/"nogroup" so that `id` says the same inside as on
 * the host.  A root caller's jail is never this id on the host: it gets
 * one of its own (jail/uidrange.h).
 */
#ifndef SBX_IDS_H
#define SBX_IDS_H

#include <stdbool.h>

#define SBX_NOBODY_ID 65534u

/*
 * Whether sbx is a root caller in the sense of spec §1: euid 0 in the
 * initial user namespace (uid_map and gid_map "0 0 4294967295").  uid 0 of
 * any other user namespace (`unshare -Ur`, rootless podman/Docker, bwrap
 * --unshare-user, a userns-remapped container) cannot map the root uid
 * range (jail/uidrange.h) it has no ids for, so it is an unprivileged
 * caller: the jail maps the ids it has.  When the maps cannot be read (no
 * /proc) euid 0 counts as root: the safe side, since it never maps the jail
 * to the caller's own uid 0.
 */
bool ids_host_root(void);

#endif
