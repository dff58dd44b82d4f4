/*
 * uiddb.h - which host ids are somebody's: the account files, whole, and
 * the system's name service where the files are not the whole story.
 *
 * A root caller's jail takes a host uid (= gid) nobody has (uidrange.h).
 * The local files are read to their end, streamed, any size up to
 * UIDDB_FILE_MAX: a file that cannot be read whole fails closed, since
 * the ids in the part not read would look free.  Other sources (LDAP,
 * sssd, systemd's userdb) need not list their accounts at all, so when
 * /etc/nsswitch.conf names any source but "files" for passwd or group,
 * each candidate id is looked up with getent(1), in a process of its own
 * so that no NSS module's threads, sockets or memory stay in root's
 * supervisor: two processes per candidate (passwd, then group).
 */
#ifndef SBX_JAIL_UIDDB_H
#define SBX_JAIL_UIDDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Past this a "database" is not one (a runaway writer, a device). */
#define UIDDB_FILE_MAX (256u << 20)
#define UIDDB_NSSWITCH "/etc/nsswitch.conf"

/* Disjoint [first, end) spans of taken ids inside [lo, hi). */
struct id_span {
	uint32_t first;
	uint64_t end;
};

struct id_set {
	uint32_t lo;
	uint64_t hi;
	struct id_span *v;
	size_t n, cap;
	bool oom;    /* a span could not be stored: nothing in the set is free */
	bool sorted; /* V is sorted and merged */
};

enum uid_db { UIDDB_PASSWD, UIDDB_GROUP, UIDDB_SUBUID, UIDDB_SUBGID };

/* An empty set that keeps spans of [LO, HI) only. */
void id_set_init(struct id_set *s, uint32_t lo, uint64_t hi);
void id_set_free(struct id_set *s);

/* Mark [FIRST, END) taken (clipped to the set's bounds). */
void id_set_add(struct id_set *s, uint64_t first, uint64_t end);

/* The first id >= ID that is not taken (may be >= the set's hi). */
uint64_t id_set_next_free(struct id_set *s, uint64_t id);

/*
 * One account file read as it streams by, in chunks of any size.  For
 * passwd and group the third field, for subuid and subgid the second and
 * third (first, count), are read the ways a C library or shadow's tools
 * may read them: decimal with leading blanks, a sign and trailing junk,
 * wrapped at 2^32, or as C's base 0 (0x hex, 0 octal), every reading
 * counted taken.  Lines may be of any length; NULs, CRs, comments and
 * NIS "+"/"-" lines are read like any other.
 */
struct uid_scan {
	enum uid_db kind;
	struct id_set *set;
	unsigned field;
	bool skip_line, mid_line;
	struct uid_num {
		unsigned phase; /* blanks, sign, digits, done */
		bool neg, dec_on, alt_on, lead0;
		unsigned digits, alt_base;
		uint64_t dec, alt;
		uint32_t dec32, alt32;
	} num, first; /* the field being read; subid's first, read */
};

void uid_scan_init(struct uid_scan *sc, enum uid_db kind, struct id_set *set);
void uid_scan_feed(struct uid_scan *sc, const char *buf, size_t n);
/* The last line, when the file does not end in a newline. */
void uid_scan_end(struct uid_scan *sc);

/*
 * Read FD (named FILE in messages) to its end as KIND into S; more than
 * MAX bytes, or a read error, is -1 with ERR (ERR_SETUP).
 */
int uiddb_scan_fd(int fd, const char *file, enum uid_db kind, uint64_t max,
		  struct id_set *s, struct sbx_err *err);

/* /etc/passwd, /etc/group, /etc/subuid, /etc/subgid into S: an absent file
 * names nothing; one that is not a regular file or cannot be read whole
 * is -1 with ERR. */
int uiddb_scan_files(struct id_set *s, struct sbx_err *err);

/*
 * Of the nsswitch.conf TEXT: whether the passwd or group databases (absent:
 * glibc's built-in default, which the files alone may not be) use any
 * source but "files"; those sources in OTHERS ("passwd: sss", at most CAP
 * bytes).  SUBID says whether a "subid" line names a source (shadow's
 * subordinate ids from a service, which nothing can ask).
 */
bool uiddb_nss_beyond_files(const char *text, size_t len, bool systemd_known, bool *subid,
			    char *others, size_t cap);

/*
 * Whether glibc's "systemd" source (nss-systemd) can name no id in
 * [FIRST, FIRST + COUNT): the range misses every range systemd gives out
 * (homed 60001-60513, its mapped and dynamic users up to 65535, container
 * users 524288-1879048191, the foreign range 2147352576-2147418111), no
 * user or group record is dropped in one of DIRS (NULL-terminated; the
 * userdb directories), and no userdb service but the ones serving those
 * ranges listens in SERVICES (/run/systemd/userdb).  Then the files and
 * these facts answer for it, and no getent is needed.
 */
bool uiddb_systemd_known(uint32_t first, uint32_t count, const char *const *dirs,
			 const char *services);

/*
 * Whether the host's name service (getent) must be asked about ids in
 * [FIRST, FIRST + COUNT): 1 yes, 0 no (files only, or files and a systemd
 * source that cannot name them), -1 with ERR when /etc/nsswitch.conf cannot be read or
 * names subordinate ids from a service.  OTHERS as above.
 */
int uiddb_nss_needed(uint32_t first, uint32_t count, char *others, size_t cap,
		     struct sbx_err *err);

/* Whether ID is a user or a group in the system's database, by
 * `getent passwd ID` then `getent group ID`: 1 taken, 0 free, -1 with ERR
 * (getent missing, killed, or an answer other than found / not found). */
int uiddb_nss_taken(uint32_t id, const char *others, struct sbx_err *err);

#endif
