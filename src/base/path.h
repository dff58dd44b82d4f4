/*
 * path.h - open a path beneath a directory without following any link.
 *
 * One walker for the four places sbx resolves a name it does not trust,
 * each keeping its own checks:
 *   - the workspace scan and -o (src/workspace/scan.c, copyout.c): a name
 *     the program made, opened beneath the workspace, no symlink anywhere
 *     (the last component included), no "..", no magic link;
 *     path_open_beneath.
 *   - mount points in the new root (src/jail/mountpoint.c): missing
 *     directories created on the way, O_PATH fds, a symlink component
 *     refused, the leaf left to the caller; path_walk with mkdir, O_PATH
 *     and a leaf.
 *   - the paths the caller names for sbx to open (--stdin, --stdout,
 *     --stderr, --result, -o, -w; src/base/callerpath.c): walked from the
 *     cwd or "/", ".." allowed, a symlink anywhere refused; path_walk with
 *     O_PATH, ".." and a leaf.
 *   - TMPDIR (src/workspace/workspace.c): opened from "/" one component at
 *     a time, the owner and mode of every directory on the way checked by
 *     its fd before the next is opened from it (what is checked is what is
 *     used); path_walk with a check and the path walked.
 */
#ifndef SBX_PATH_H
#define SBX_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Which step of a walk failed (errno says why). */
enum path_fail {
	PATH_FAIL_NONE,
	PATH_FAIL_NAME,  /* "..", an over-long component, or no leaf at all */
	PATH_FAIL_MKDIR, /* creating a missing directory */
	PATH_FAIL_OPEN,  /* opening a component (ELOOP/ENOTDIR: a symlink) */
	PATH_FAIL_CHECK, /* the caller's check refused a directory */
};

/*
 * How path_walk opens each directory on its way: from the fd of the one
 * before, with O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC, so a symlink anywhere
 * fails the walk and ".." (EXDEV) can never climb out of the start.
 */
struct path_walk {
	int flags;        /* O_RDONLY, or O_PATH (mount points) */
	bool mkdir;       /* create a missing directory first */
	/* its mode, by the directory it is made in; NULL: 0755 */
	mode_t (*mkdir_mode)(int dir, void *arg);
	/* allow ".." (a path the caller gave, walked from its cwd or "/":
	 * climbing is no escape there; beneath a directory it would be) */
	bool dotdot;
	/* called on every directory the walk holds, the start included,
	 * before it goes on from there; -1 ends the walk */
	int (*check)(int fd, const char *walked, void *arg);
	void *arg;        /* for check and mkdir_mode */
	/* optional: the names walked are appended here, "/"-separated, to
	 * what the caller put in ("/" for a walk from the root); after a
	 * failed open it ends with the component that failed */
	char *walked;
	size_t walked_cap;
	enum path_fail failed; /* out: set when path_walk returns -1 */
};

/*
 * Open each component of PATH beneath DIRFD as a directory ("" and "."
 * components are skipped) and return the last one (a new fd; DIRFD is
 * not consumed).  With LEAF (NAME_MAX + 1 bytes), the last component is
 * not opened but copied there and its parent returned; a PATH with no
 * component is then EINVAL.  -1 with errno and W->failed.
 */
int path_walk(int dirfd, const char *path, struct path_walk *w, char *leaf);

/*
 * Open NAME beneath DIRFD with FLAGS (MODE for O_CREAT), never following
 * a symlink or leaving DIRFD: openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 * RESOLVE_NO_MAGICLINKS, or path_open_nofollow where openat2 is missing
 * (Linux < 5.6) or filtered (a container's seccomp profile: EPERM).
 */
int path_open_beneath(int dirfd, const char *name, int flags, mode_t mode);

/* The fallback: path_walk to the parent, then an O_NOFOLLOW open. */
int path_open_nofollow(int dirfd, const char *name, int flags, mode_t mode);

#endif
