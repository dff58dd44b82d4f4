/*
 * uidrange.c - the host uid of a root caller's jail, from a range, by lock.
 *
 * See uidrange.h.  The ids are locked by an flock on one file per id in a
 * root-owned 0700 directory: the lock belongs to the open file, so it is
 * held exactly as long as sbx (or the jail's init, which inherits the fd)
 * lives, and nothing a crash leaves behind can block a later run.  The
 * range is read only from a root-owned file: an environment variable or
 * a user's file would let a caller choose which host uid the jail gets
 * (a system account's, a subuid owner's).
 */
#include "jail/uidrange.h"
#include "jail/uiddb.h"
#include "base/cleanup.h"
#include "policy/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- parsing ---------------------------------------------------------- */

/* A decimal number of at most 10 digits ending at a blank or the end. */
static bool parse_u32(const char *s, size_t n, uint32_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static size_t span_of(const char *s, size_t n, const char *set, bool in)
{
	size_t i = 0;

	while (i < n && (strchr(set, s[i]) != NULL) == in && s[i])
		i++;
	return i;
}

/* One "KEY VALUE" line (comments already cut); 0 or -1 with ERR. */
static int parse_line(const char *s, size_t n, const char *file, int line,
		      uint32_t *first, uint32_t *count, bool *reserved, struct sbx_err *err)
{
	size_t a = span_of(s, n, " \t\r", true), k = a + span_of(s + a, n - a, " \t\r", false);
	size_t v = k + span_of(s + k, n - k, " \t\r", true);
	size_t e = v + span_of(s + v, n - v, " \t\r", false);
	size_t t = e + span_of(s + e, n - e, " \t\r", true);
	uint32_t *dst = NULL, val;

	if (a == n)
		return 0; /* blank */
	if (k - a == 8 && !memcmp(s + a, "reserved", 8)) {
		bool yes = e - v == 3 && !memcmp(s + v, "yes", 3);

		if (t != n || (!yes && !(e - v == 2 && !memcmp(s + v, "no", 2))))
			return err_set(err, ERR_CONFIG, 0, "%s:%d:%zu: 'reserved' wants 'yes' "
				       "or 'no'", file, line, v + 1);
		*reserved = yes;
		return 0;
	}
	if (k - a == 5 && !memcmp(s + a, "first", 5))
		dst = first;
	else if (k - a == 5 && !memcmp(s + a, "count", 5))
		dst = count;
	if (!dst)
		return err_set(err, ERR_CONFIG, 0, "%s:%d:%zu: unknown key '%.*s' (the keys "
			       "are 'first', 'count' and 'reserved', one per line)", file, line, a + 1,
			       (int)(k - a > 32 ? 32 : k - a), s + a);
	if (t != n || !parse_u32(s + v, e - v, &val) || val == 0)
		return err_set(err, ERR_CONFIG, 0, "%s:%d:%zu: '%.*s' wants one number "
			       "from 1 to %u", file, line, v + 1, (int)(k - a), s + a,
			       UIDRANGE_MAX_ID);
	*dst = val;
	return 0;
}

int uidrange_parse(const char *text, size_t len, const char *file, struct uid_range *r,
		   struct sbx_err *err)
{
	uint32_t first = UIDRANGE_DEFAULT_FIRST, count = UIDRANGE_DEFAULT_COUNT;
	bool reserved = false;
	int line = 1;

	for (size_t at = 0; at < len; line++) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at, code;

		code = span_of(s, n, "#", false); /* a comment runs to the end */
		if (code < n && s[code] == '\0')
			return err_set(err, ERR_CONFIG, 0, "%s:%d:%zu: a NUL byte (the file "
				       "is text)", file, line, code + 1);
		if (parse_line(s, code, file, line, &first, &count, &reserved, err) < 0)
			return -1;
		at += n + (nl ? 1 : 0);
	}
	/* ids above 2^31-1 are negative to signed code; 0 would be host root */
	if ((uint64_t)first + count - 1 > UIDRANGE_MAX_ID)
		return err_set(err, ERR_CONFIG, 0, "%s: first %u count %u ends past %u "
			       "(lower 'first' or 'count')", file, first, count,
			       UIDRANGE_MAX_ID);
	r->first = first;
	r->count = count;
	r->reserved = reserved;
	return 0;
}

/* The ids no account has even where every file is silent about them:
 * 65534/65535, nobody and (uint16_t)-1; 61184-65519, systemd's dynamic
 * users, allocated at run time and never listed in /etc/passwd. */
static void add_reserved_ids(struct id_set *s)
{
	id_set_add(s, 65534, 65536);
	id_set_add(s, 61184, 65520);
}

/* ---- files ------------------------------------------------------------ */

/* The whole of FD (at most MAX bytes: more is an error), malloc'd. */
static char *read_config(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	size_t n = 0;
	ssize_t r;

	while (buf && n <= max && (r = read(fd, buf + n, max + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		n += (size_t)r;
	}
	/* a line past what was read could change the range */
	if (buf && n > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	*len = n;
	return buf;
}

/* The range: the default, or the trusted config file's. */
static int load_range(struct uid_range *r, struct sbx_err *err)
{
	int fd cleanup_fd = open(UIDRANGE_CONFIG, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char why[256], *text cleanup_free = NULL;
	const char *bad;
	size_t len = 0;

	*r = (struct uid_range){ UIDRANGE_DEFAULT_FIRST, UIDRANGE_DEFAULT_COUNT, false };
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return err_set(err, ERR_CONFIG, errno, "%s: %s", UIDRANGE_CONFIG,
			       strerror(errno));
	/* a file another user can write would pick the jail's host uid */
	if ((bad = policy_file_untrusted(fd, UIDRANGE_CONFIG, why, sizeof(why))))
		return err_set(err, ERR_CONFIG, EPERM, "%s: not used: %s (run by root, "
			       "sbx reads it only when root owns it and no one else can "
			       "write it or a directory above it)", UIDRANGE_CONFIG, bad);
	if (!(text = read_config(fd, 1u << 20, &len)))
		return err_set(err, ERR_CONFIG, errno, "%s: %s", UIDRANGE_CONFIG,
			       errno == EFBIG ? "1 MiB or more: not a uid-range file"
					      : strerror(errno));
	return uidrange_parse(text, len, UIDRANGE_CONFIG, r, err);
}

/* DIR in AT, made if missing (MODE), checked to be root's and private. */
static int open_private_dir(int at, const char *name, mode_t mode, struct sbx_err *err)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, mode) < 0 && errno != EEXIST)
		return err_set(err, ERR_SETUP, errno, "mkdir %s: %s", UIDRANGE_LOCK_DIR,
			       strerror(errno));
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* another user's directory could hold or break the locks */
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		int e = fd < 0 ? errno : EPERM;
		if (fd >= 0)
			close(fd);
		return err_set(err, ERR_SETUP, e, "%s: %s (it must be a directory of "
			       "root's that no one else can write: remove it and retry)",
			       UIDRANGE_LOCK_DIR, strerror(e));
	}
	return fd;
}

static int open_lock_dir(struct sbx_err *err)
{
	int run = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC), sbx, dir;

	if (run < 0)
		return err_set(err, ERR_SETUP, errno, "/run: %s (sbx keeps its uid "
			       "locks in %s)", strerror(errno), UIDRANGE_LOCK_DIR);
	sbx = open_private_dir(run, "sbx", 0755, err);
	close(run);
	if (sbx < 0)
		return -1;
	dir = open_private_dir(sbx, "uid", 0700, err);
	close(sbx);
	return dir;
}

/* Lock ID's file in DIR: 1 taken by us, 0 busy, -1 error (errno). */
static int try_lock(int dir, uint32_t id, int *fd)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", id);
	*fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*fd < 0)
		return -1;
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	close(*fd);
	*fd = -1;
	return errno == EWOULDBLOCK ? 0 : -1;
}

/* Where the ids to skip come from: the local files, and the name service
 * when nsswitch.conf names more than files (NSS: its sources, else ""). */
struct taken_ids {
	struct id_set files;
	char nss[256];
	bool ask_nss;
	unsigned busy, nss_hits; /* ids locked by other runs; named by NSS */
};

/* Lock the first id of R no account has and no run holds; -1 with ERR. */
static int take_free(int dir, const struct uid_range *r, struct taken_ids *t,
		     struct uid_lease *l, struct sbx_err *err)
{
	uint64_t end = (uint64_t)r->first + r->count;

	for (uint64_t id = id_set_next_free(&t->files, r->first); id < end;
	     id = id_set_next_free(&t->files, id + 1)) {
		int got = try_lock(dir, (uint32_t)id, &l->fd), nss = 0;

		if (got < 0)
			return err_set(err, ERR_SETUP, errno, "%s/%u: %s", UIDRANGE_LOCK_DIR,
				       (unsigned)id, strerror(errno));
		if (!got) {
			t->busy++;
			continue;
		}
		/* locked first: a run that holds the id needs no lookup */
		if (t->ask_nss && (nss = uiddb_nss_taken((uint32_t)id, t->nss, err)) != 0) {
			uidrange_release(l);
			if (nss < 0)
				return -1;
			t->nss_hits++;
			continue;
		}
		l->uid = l->gid = (uint32_t)id;
		return 0;
	}
	err_set(err, ERR_SETUP, EAGAIN, "no free host uid in sbx's range %u-%u (%u in use "
		"by other runs, %u accounts of the name service, the rest named in "
		"/etc/passwd, /etc/group, /etc/subuid or /etc/subgid): wait for a run to end, "
		"or set a wider range in %s", r->first, (unsigned)(end - 1), t->busy,
		t->nss_hits, UIDRANGE_CONFIG);
	err->retryable = t->busy > 0;
	return -1;
}

int uidrange_acquire(struct uid_lease *l, struct sbx_err *err)
{
	struct taken_ids t = { .nss = "" };
	struct uid_range r;
	int dir cleanup_fd = -1, rc = -1, nss = 0;

	l->fd = -1;
	if (load_range(&r, err) < 0 || (dir = open_lock_dir(err)) < 0)
		return -1;
	id_set_init(&t.files, r.first, (uint64_t)r.first + r.count);
	add_reserved_ids(&t.files);
	/* an admin's "reserved yes": no account of any service is in the range */
	if (uiddb_scan_files(&t.files, err) == 0 &&
	    (r.reserved || (nss = uiddb_nss_needed(r.first, r.count, t.nss, sizeof(t.nss), err)) >= 0)) {
		t.ask_nss = nss > 0;
		rc = take_free(dir, &r, &t, l, err);
	}
	id_set_free(&t.files);
	return rc;
}

void uidrange_release(struct uid_lease *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
