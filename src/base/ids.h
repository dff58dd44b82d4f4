/*
 * ids.h - the one uid/gid number sbx gives a meaning: 65534.
 *
 * It is the kernel's overflow id, "nobody"/"nogroup" on the host.  sbx
 * uses it as the default uid/gid inside the jail, where the synthesized
 * /etc names it "nobody"/"nogroup" so that `id` says the same inside as on
 * the host.  A root caller's jail is never this id on the host: it gets
 * one of its own (jail/uidrange.h).
 */
#ifndef SBX_IDS_H
#define SBX_IDS_H

#define SBX_NOBODY_ID 65534u

#endif
