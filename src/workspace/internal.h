/*
 * internal.h - what the files of src/workspace share and nobody else needs.
 */
#ifndef SBX_WORKSPACE_INTERNAL_H
#define SBX_WORKSPACE_INTERNAL_H

/*
 * Empty the directory ROOTFD (not consumed) by fd only, never following a
 * link or leaving the tree (remove.c).  0, or -1 with errno.
 */
int ws_remove_contents(int rootfd);

#endif
