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
#include "policy/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DB_MAX (1u << 20)

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
		      uint32_t *first, uint32_t *count, struct sbx_err *err)
{
	size_t a = span_of(s, n, " \t\r", true), k = a + span_of(s + a, n - a, " \t\r", false);
	size_t v = k + span_of(s + k, n - k, " \t\r", true);
	size_t e = v + span_of(s + v, n - v, " \t\r", false);
	size_t t = e + span_of(s + e, n - e, " \t\r", true);
	uint32_t *dst = NULL, val;

	if (a == n)
		return 0; /* blank */
	if (k - a == 5 && !memcmp(s + a, "first", 5))
		dst = first;
	else if (k - a == 5 && !memcmp(s + a, "count", 5))
		dst = count;
	if (!dst)
		return err_set(err, ERR_CONFIG, 0, "%s:%d:%zu: unknown key '%.*s' (the keys "
			       "are 'first' and 'count', one per line)", file, line, a + 1,
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
	int line = 1;

	for (size_t at = 0; at < len; line++) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at, code;

		code = span_of(s, n, "#", false); /* a comment runs to the end */
		if (code < n && s[code] == '\0')
			return err_set(err, ERR_CONFIG, 0, "%s:%d:%zu: a NUL byte (the file "
				       "is text)", file, line, code + 1);
		if (parse_line(s, code, file, line, &first, &count, err) < 0)
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
	return 0;
}

/* Field IDX (0-based) of the ':'-separated line S of N bytes, as a number. */
static bool line_field(const char *s, size_t n, int idx, uint32_t *out)
{
	size_t at = 0;

	for (int i = 0; i < idx; i++) {
		const char *c = memchr(s + at, ':', n - at);
		if (!c)
			return false;
		at = (size_t)(c - s) + 1;
	}
	return parse_u32(s + at, span_of(s + at, n - at, ":\r", false), out);
}

/* 0 when ID is free in the db TEXT of KIND (0/1 passwd-like, 2/3 subid). */
static uint64_t taken_in(const char *text, size_t len, int kind, uint32_t id)
{
	for (size_t at = 0; at < len;) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at;
		uint32_t a, c;

		at += n + (nl ? 1 : 0);
		if (kind < 2 && line_field(s, n, 2, &a) && a == id)
			return (uint64_t)id + 1;
		if (kind >= 2 && line_field(s, n, 1, &a) && line_field(s, n, 2, &c) &&
		    id >= a && (uint64_t)id < (uint64_t)a + c)
			return (uint64_t)a + c;
	}
	return 0;
}

uint64_t uidrange_taken(const char *const db[4], const size_t dblen[4], uint32_t id)
{
	uint64_t next = 0, n;

	/* 65534/65535: nobody and (uint16_t)-1; 61184-65519: systemd's
	 * dynamic users, allocated at run time, never in /etc/passwd */
	if (id == 65534 || id == 65535)
		return (uint64_t)id + 1;
	if (id >= 61184 && id <= 65519)
		return 65520;
	for (int k = 0; k < 4; k++)
		if (db[k] && (n = taken_in(db[k], dblen[k], k, id)) > next)
			next = n;
	return next;
}

/* ---- files ------------------------------------------------------------ */

/* The whole of FD (at most DB_MAX bytes), malloc'd; NULL on failure. */
static char *read_fd(int fd, size_t *len)
{
	char *buf = malloc(DB_MAX);
	size_t n = 0;
	ssize_t r;

	while (buf && n < DB_MAX && (r = read(fd, buf + n, DB_MAX - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

static char *read_db(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char *text;

	*len = 0;
	if (fd < 0)
		return NULL; /* absent: nothing taken there */
	text = read_fd(fd, len);
	close(fd);
	return text;
}

/* The range: the default, or the trusted config file's. */
static int load_range(struct uid_range *r, struct sbx_err *err)
{
	int fd = open(UIDRANGE_CONFIG, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc;
	char why[256], *text;
	const char *bad;
	size_t len = 0;

	r->first = UIDRANGE_DEFAULT_FIRST;
	r->count = UIDRANGE_DEFAULT_COUNT;
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return err_set(err, ERR_CONFIG, errno, "%s: %s", UIDRANGE_CONFIG,
			       strerror(errno));
	/* a file another user can write would pick the jail's host uid */
	if ((bad = policy_file_untrusted(fd, UIDRANGE_CONFIG, why, sizeof(why)))) {
		close(fd);
		return err_set(err, ERR_CONFIG, EPERM, "%s: not used: %s (run by root, "
			       "sbx reads it only when root owns it and no one else can "
			       "write it or a directory above it)", UIDRANGE_CONFIG, bad);
	}
	text = read_fd(fd, &len);
	close(fd);
	if (!text)
		return err_set(err, ERR_CONFIG, errno, "%s: %s", UIDRANGE_CONFIG,
			       strerror(errno));
	rc = uidrange_parse(text, len, UIDRANGE_CONFIG, r, err);
	free(text);
	return rc;
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

/* The first id of R that no host database names and no run holds. */
static int take_free(int dir, const struct uid_range *r, const char *const db[4],
		     const size_t dblen[4], struct uid_lease *l, struct sbx_err *err)
{
	uint64_t id = r->first, end = (uint64_t)r->first + r->count, next;
	unsigned busy = 0;
	int got;

	while (id < end) {
		if ((next = uidrange_taken(db, dblen, (uint32_t)id)) != 0) {
			id = next;
			continue;
		}
		got = try_lock(dir, (uint32_t)id, &l->fd);
		if (got < 0)
			return err_set(err, ERR_SETUP, errno, "%s/%u: %s", UIDRANGE_LOCK_DIR,
				       (unsigned)id, strerror(errno));
		if (got) {
			l->uid = l->gid = (uint32_t)id;
			return 0;
		}
		busy++;
		id++;
	}
	err_set(err, ERR_SETUP, EAGAIN, "no free host uid in sbx's range %u-%u (%u in use "
		"by other runs, the rest named in /etc/passwd, /etc/group, /etc/subuid or "
		"/etc/subgid): wait for a run to end, or set a wider range in %s",
		r->first, (unsigned)(end - 1), busy, UIDRANGE_CONFIG);
	err->retryable = busy > 0;
	return -1;
}

int uidrange_acquire(struct uid_lease *l, struct sbx_err *err)
{
	static const char *const paths[4] = { "/etc/passwd", "/etc/group", "/etc/subuid",
					       "/etc/subgid" };
	char *db[4] = { 0 };
	size_t dblen[4];
	struct uid_range r;
	int dir, rc = -1;

	l->fd = -1;
	if (load_range(&r, err) < 0 || (dir = open_lock_dir(err)) < 0)
		return -1;
	for (int k = 0; k < 4; k++)
		db[k] = read_db(paths[k], &dblen[k]);
	rc = take_free(dir, &r, (const char *const *)db, dblen, l, err);
	for (int k = 0; k < 4; k++)
		free(db[k]);
	close(dir);
	return rc;
}

void uidrange_release(struct uid_lease *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
