/*
 * uidrange.h - run by root, a host uid/gid of its own for each run.
 *
 * A root caller's jail never runs as host root, and never as an id it
 * shares: each run takes one id (uid = gid) from a range, locked like
 * isolate's box ids by an flock on /run/sbx/uid/ID held for the run, so
 * concurrent runs never share one and a killed sbx frees its id with its
 * last fd.  The range is 2000000000-2000065535 unless /etc/sbx/uid-range
 * (root-owned, checked like a policy file) says otherwise; ids named in
 * /etc/passwd, /etc/group, /etc/subuid or /etc/subgid, by the system's
 * name service (uiddb.h) unless the file says the range is reserved,
 * 65534/65535 and systemd's dynamic users (61184-65519) are skipped.
 */
#ifndef SBX_JAIL_UIDRANGE_H
#define SBX_JAIL_UIDRANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define UIDRANGE_CONFIG "/etc/sbx/uid-range"
#define UIDRANGE_LOCK_DIR "/run/sbx/uid"
/* systemd's UIDS-GIDS.md lists 1879048192-2147352575 as unused, above the
 * container ranges and below the signed 32-bit boundary */
#define UIDRANGE_DEFAULT_FIRST 2000000000u
#define UIDRANGE_DEFAULT_COUNT 65536u
/* the last id a range may reach: ids above 2^31-1 break signed code */
#define UIDRANGE_MAX_ID 2147483646u

struct uid_range {
	uint32_t first, count;
	bool reserved; /* no account of any name service is in it: ask none */
};

struct uid_lease {
	uint32_t uid, gid; /* uid == gid */
	int fd;            /* the flocked lock file, O_CLOEXEC; -1 = none */
};

/*
 * Parse the text of a uid-range file (FILE names it in messages):
 * "first N", "count N" and "reserved yes|no" lines, '#' comments.  0, or
 * -1 with ERR (ERR_CONFIG, file:line:col) and R untouched.
 */
int uidrange_parse(const char *text, size_t len, const char *file, struct uid_range *r,
		   struct sbx_err *err);

/* Take a free id of the range and lock it (root only); -1 with ERR. */
int uidrange_acquire(struct uid_lease *l, struct sbx_err *err);

/* Unlock (close); safe on a lease that holds nothing. */
void uidrange_release(struct uid_lease *l);

#endif
