/*
 * internal.h - what the files of src/workspace share and nobody else needs.
 */
#ifndef SBX_WORKSPACE_INTERNAL_H
#define SBX_WORKSPACE_INTERNAL_H

/* Run by root, the jailed program is host uid/gid 65534 (spec §1). */
#define JAILED_ROOT_UID 65534
#define JAILED_ROOT_GID 65534

/*
 * Empty the directory ROOTFD (not consumed) by fd only, never following a
 * link or leaving the tree (remove.c).  0, or -1 with errno.
 */
int ws_remove_contents(int rootfd);

#endif
