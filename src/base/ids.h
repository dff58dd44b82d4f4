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
 * And the host's account names, read from /etc/passwd and /etc/group
 * themselves: sbx is linked statically (a faster start), and a static glibc's
 * getpwnam() would load the NSS modules of whatever glibc is installed,
 * which need not match the one sbx was built with.
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

/* The uid of user NAME in /etc/passwd; false when it has none. */
bool ids_user_uid(const char *name, uid_t *uid);

/* The gid of group NAME in /etc/group; false when it has none. */
bool ids_group_gid(const char *name, gid_t *gid);

/* A malloc'd copy of UID's home directory in /etc/passwd, or NULL. */
char *ids_user_home(uid_t uid);

/* The same lookups in the file PASSWD or GROUP instead of /etc's.  An
 * entry whose id reads as (uid_t)-1 ("-1", a number past 2^32) is none. */
bool ids_user_uid_in(const char *passwd, const char *name, uid_t *uid);
char *ids_user_home_in(const char *passwd, uid_t uid);
bool ids_group_gid_in(const char *group, const char *name, gid_t *gid);

#endif
