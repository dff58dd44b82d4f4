/*
 * ids.h - the one uid/gid number sbx gives a meaning (65534), and whether
 * sbx runs as a root that can use it.
 *
 * 65534 is the kernel's overflow id, "nobody"/"nogroup" on the host.  sbx
 * uses it twice, as one id: a root caller's jail runs as this host uid and
 * gid, never as host root (spec §1); and it is the default uid/gid inside
 * the jail, where the synthesized /etc names it "nobody"/"nogroup" so that
 * `id` says the same inside as on the host.
 */
#ifndef SBX_IDS_H
#define SBX_IDS_H

#include <stdbool.h>

#define SBX_NOBODY_ID 65534u

/*
 * Whether sbx is a root caller in the sense of spec §1: euid 0 in a user
 * namespace that maps uid and gid 65534 (always so in the initial one).
 * uid 0 of a user namespace that maps only itself (`unshare -Ur`, rootless
 * podman/Docker, bwrap --unshare-user) cannot chown to 65534 nor map it, so
 * it is an unprivileged caller: the jail maps the ids it has.  When the
 * maps cannot be read (no /proc) euid 0 counts as root: the safe side,
 * since it never maps the jail to the caller's own uid 0.
 */
bool ids_host_root(void);


#endif
