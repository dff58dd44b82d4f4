/*
 * ids.h - the one uid/gid number sbx gives a meaning (65534), and whether
 * sbx runs as the host's root.
 *
 * It is the kernel's overflow id, "nobody"/"nogroup" on the host.  sbx
 * uses it as the default uid/gid inside the jail, where the synthesized
 * /etc names it "nobody"/"nogroup" so that `id` says the same inside as on
 * the host.  A root caller's jail is never this id on the host: it gets
 * one of its own (jail/uidrange.h).
 *
 * And the host's account names, from the C library's lookups
 * (getpwnam_r, getpwuid_r, getgrnam_r): whatever sources nsswitch.conf
 * names, LDAP and sssd too, answer as they do for id(1).
 */
#ifndef SBX_IDS_H
#define SBX_IDS_H

#include <stdbool.h>
#include <sys/types.h>

#define SBX_NOBODY_ID 65534u

/*
 * Whether sbx is a root caller, whose jails each run as a uid of their own:
 * euid 0 in the initial user namespace (uid_map and gid_map "0 0 4294967295").
 * uid 0 of any other user namespace (`unshare -Ur`, rootless podman/Docker, bwrap
 * --unshare-user, a userns-remapped container) cannot map the root uid
 * range (jail/uidrange.h) it has no ids for, so it is an unprivileged
 * caller: the jail maps the ids it has.  When the maps cannot be read (no
 * /proc) euid 0 counts as root: the safe side, since it never maps the jail
 * to the caller's own uid 0.
 */
bool ids_host_root(void);

/* The uid of the host's user NAME; false when it has none.  An account
 * whose id is (uid_t)-1 ("-1", a number past 2^32 in a file) is none. */
bool ids_user_uid(const char *name, uid_t *uid);

/* The gid of the host's group NAME; false when it has none. */
bool ids_group_gid(const char *name, gid_t *gid);

/* A malloc'd copy of the home directory of the host's UID, or NULL. */
char *ids_user_home(uid_t uid);

#endif
