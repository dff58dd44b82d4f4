/*
 * ids.h - the one uid/gid number sbx gives a meaning: 65534.
 *
 * It is the kernel's overflow id, "nobody"/"nogroup" on the host.  sbx
 * uses it twice, as one id: a root caller's jail runs as this host uid and
 * gid, never as host root (spec §1); and it is the default uid/gid inside
 * the jail, where the synthesized /etc names it "nobody"/"nogroup" so that
 * `id` says the same inside as on the host.
 */
#ifndef SBX_IDS_H
#define SBX_IDS_H

#define SBX_NOBODY_ID 65534u

#endif
