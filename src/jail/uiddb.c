/*
 * uiddb.c - which host ids are somebody's (uiddb.h).
 *
 * Three parts: a set of taken id spans, kept to the range sbx draws from;
 * a streaming reader of the account files that fills it, byte by byte, so
 * that no line length or file size leaves part of a file unread; and the
 * name service, asked through getent(1) when nsswitch.conf says the files
 * are not all of the accounts.
 */
#include "jail/uiddb.h"
#include "jail/uidrange.h"
#include "base/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the set ---------------------------------------------------------- */

void id_set_init(struct id_set *s, uint32_t lo, uint64_t hi)
{
	*s = (struct id_set){ .lo = lo, .hi = hi };
}

void id_set_free(struct id_set *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

static int span_cmp(const void *a, const void *b)
{
	const struct id_span *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorted, overlapping and touching spans merged. */
static void id_set_compact(struct id_set *s)
{
	size_t out = 0;

	if (s->sorted || s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(*s->v), span_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->v[i].first <= s->v[out - 1].end) {
			if (s->v[i].end > s->v[out - 1].end)
				s->v[out - 1].end = s->v[i].end;
			continue;
		}
		s->v[out++] = s->v[i];
	}
	s->n = out;
	s->sorted = true;
}

void id_set_add(struct id_set *s, uint64_t first, uint64_t end)
{
	if (first < s->lo)
		first = s->lo;
	if (end > s->hi)
		end = s->hi;
	if (first >= end)
		return;
	if (s->n == s->cap) {
		id_set_compact(s);
		/* grow unless merging freed half: no add is quadratic */
		if (s->n == s->cap || s->n > s->cap / 2) {
			size_t cap = s->cap ? s->cap * 2 : 64;
			struct id_span *v = reallocarray(s->v, cap, sizeof(*v));

			/* an id not stored would look free: the set fails closed */
			if (!v) {
				s->oom = true;
				return;
			}
			s->v = v;
			s->cap = cap;
		}
	}
	s->v[s->n++] = (struct id_span){ (uint32_t)first, end };
	s->sorted = false;
}

uint64_t id_set_next_free(struct id_set *s, uint64_t id)
{
	size_t lo = 0, hi;

	if (s->oom)
		return s->hi;
	id_set_compact(s);
	hi = s->n;
	/* the last span that starts at or before ID */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].first <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && id < s->v[lo - 1].end)
		return s->v[lo - 1].end; /* merged: the next span starts later */
	return id;
}

/* ---- one number field, as any parser might read it ------------------- */

enum { NUM_BLANKS, NUM_SIGN, NUM_DIGITS, NUM_DONE };

static unsigned digit_in(unsigned char c, unsigned base)
{
	unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
		   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a') + 10u
		   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A') + 10u : 99u;

	return d < base ? d : 99u;
}

static uint64_t sat_mul_add(uint64_t v, unsigned base, unsigned d)
{
	if (v > (UINT64_MAX - d) / base)
		return UINT64_MAX;
	return v * base + d;
}

/* One byte of a field; ':' and '\n' never come here. */
static void num_feed(struct uid_num *n, unsigned char c)
{
	unsigned d;

	/* strtoul skips isspace() and takes one sign */
	if (n->phase == NUM_BLANKS && (c == ' ' || (c >= '\t' && c <= '\r')))
		return;
	if (n->phase == NUM_BLANKS && (c == '+' || c == '-')) {
		n->neg = c == '-';
		n->phase = NUM_SIGN;
		return;
	}
	if (n->phase == NUM_BLANKS || n->phase == NUM_SIGN) {
		if (digit_in(c, 10) == 99u) {
			n->phase = NUM_DONE;
			return;
		}
		n->phase = NUM_DIGITS;
		n->dec_on = n->alt_on = true;
		n->lead0 = c == '0';
		n->alt_base = n->lead0 ? 8 : 10; /* C's base 0 */
	} else if (n->phase != NUM_DIGITS) {
		return;
	}
	if (n->dec_on && (d = digit_in(c, 10)) != 99u) {
		n->dec = sat_mul_add(n->dec, 10, d);
		n->dec32 = n->dec32 * 10u + d; /* a parser without overflow check */
	} else {
		n->dec_on = false;
	}
	if (n->alt_on && n->lead0 && n->digits == 1 && (c == 'x' || c == 'X'))
		n->alt_base = 16;
	else if (n->alt_on && (d = digit_in(c, n->alt_base)) != 99u)
		n->alt = sat_mul_add(n->alt, n->alt_base, d), n->alt32 = n->alt32 * n->alt_base + d;
	else
		n->alt_on = false;
	n->digits++;
	if (!n->dec_on && !n->alt_on)
		n->phase = NUM_DONE;
}

/* Every id the field may be read as; the count of them in OUT. */
static size_t num_ids(const struct uid_num *n, uint64_t out[6])
{
	size_t k = 0;

	if (n->digits == 0)
		return 0;
	if (n->dec <= UINT32_MAX)
		out[k++] = n->dec;
	out[k++] = n->dec32;
	if (n->alt <= UINT32_MAX)
		out[k++] = n->alt;
	out[k++] = n->alt32;
	if (n->neg) { /* strtoul negates; a 32-bit long wraps at 2^32 */
		out[k++] = (uint32_t)(0u - n->dec32);
		out[k++] = (uint32_t)(0u - n->alt32);
	}
	return k;
}

/* The widest count the field may be read as (no number: one id). */
static uint64_t num_count(const struct uid_num *n)
{
	if (n->digits == 0)
		return 1;
	if (n->neg)
		return UINT64_MAX;
	return n->dec > n->alt ? n->dec : n->alt;
}

/* ---- the account files ------------------------------------------------ */

void uid_scan_init(struct uid_scan *sc, enum uid_db kind, struct id_set *set)
{
	*sc = (struct uid_scan){ .kind = kind, .set = set };
}

static bool is_subid(const struct uid_scan *sc)
{
	return sc->kind == UIDDB_SUBUID || sc->kind == UIDDB_SUBGID;
}

static void add_ids(struct uid_scan *sc, const struct uid_num *n, uint64_t count)
{
	uint64_t ids[6];
	size_t k = num_ids(n, ids);

	for (size_t i = 0; i < k; i++)
		id_set_add(sc->set, ids[i], count > UINT64_MAX - ids[i] ? UINT64_MAX : ids[i] + count);
}

/* The end of field SC->field. */
static void end_field(struct uid_scan *sc)
{
	if (!is_subid(sc) && sc->field == 2)
		add_ids(sc, &sc->num, 1);
	else if (is_subid(sc) && sc->field == 1)
		sc->first = sc->num;
	else if (is_subid(sc) && sc->field == 2)
		add_ids(sc, &sc->first, num_count(&sc->num));
	sc->num = (struct uid_num){ 0 };
}

static void end_line(struct uid_scan *sc)
{
	if (!sc->skip_line)
		end_field(sc);
	/* "name:first" without a count: its first id at least */
	if (is_subid(sc) && sc->field == 1)
		add_ids(sc, &sc->first, 1);
	sc->field = 0;
	sc->skip_line = false;
	sc->mid_line = false;
	sc->num = sc->first = (struct uid_num){ 0 };
}

void uid_scan_feed(struct uid_scan *sc, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\n') {
			end_line(sc);
			continue;
		}
		sc->mid_line = true;
		if (sc->skip_line)
			continue;
		if (c == ':') {
			end_field(sc);
			/* the id fields are the second and third: the rest is names */
			sc->skip_line = ++sc->field > 2;
		} else if (sc->field >= (is_subid(sc) ? 1u : 2u)) {
			num_feed(&sc->num, c);
		}
	}
}

void uid_scan_end(struct uid_scan *sc)
{
	if (sc->mid_line)
		end_line(sc);
}

int uiddb_scan_fd(int fd, const char *file, enum uid_db kind, uint64_t max,
		  struct id_set *s, struct sbx_err *err)
{
	char buf[16384];
	struct uid_scan sc;
	uint64_t total = 0;
	ssize_t r;

	uid_scan_init(&sc, kind, s);
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		/* the ids in the part not read would look free */
		if (r < 0)
			return err_set(err, ERR_SETUP, errno, "%s: %s while reading it (sbx reads "
				       "all of it to know which host ids are accounts: fix the "
				       "file or the filesystem it is on)", file, strerror(errno));
		total += (uint64_t)r;
		if (total > max)
			return err_set(err, ERR_SETUP, EFBIG, "%s: more than %llu MiB (sbx reads "
				       "all of it to know which host ids are accounts, and stops "
				       "at this size: a file still growing, or not an account "
				       "file; check what writes it)", file,
				       (unsigned long long)(max >> 20));
		uid_scan_feed(&sc, buf, (size_t)r);
	}
	uid_scan_end(&sc);
	return 0;
}

int uiddb_scan_files(struct id_set *s, struct sbx_err *err)
{
	static const char *const paths[] = { "/etc/passwd", "/etc/group", "/etc/subuid",
					     "/etc/subgid" };
	static const enum uid_db kinds[] = { UIDDB_PASSWD, UIDDB_GROUP, UIDDB_SUBUID,
					     UIDDB_SUBGID };

	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		int fd cleanup_fd = open(paths[k], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		struct stat st;

		if (fd < 0 && errno == ENOENT)
			continue; /* absent: names nobody */
		if (fd < 0)
			return err_set(err, ERR_SETUP, errno, "%s: %s (sbx reads it to know "
				       "which host ids are accounts: make it readable by root)",
				       paths[k], strerror(errno));
		/* a FIFO or a device is no list of accounts, and may never end */
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
			return err_set(err, ERR_SETUP, EINVAL, "%s: not a regular file (sbx "
				       "reads it to know which host ids are accounts: replace it "
				       "with the file it should be)", paths[k]);
		if (uiddb_scan_fd(fd, paths[k], kinds[k], UIDDB_FILE_MAX, s, err) < 0)
			return -1;
	}
	if (s->oom)
		return err_set(err, ERR_INTERNAL, ENOMEM, "reading /etc/passwd, /etc/group, "
			       "/etc/subuid and /etc/subgid: out of memory");
	return 0;
}

/* ---- the name service ------------------------------------------------- */

/* The most of nsswitch.conf sbx reads; Debian's is 500 bytes. */
#define UIDDB_NSSWITCH_MAX (64u << 10)

/* Append "DB: WORD" (or ", WORD") to OTHERS. */
static void note_source(char *others, size_t cap, const char *db, size_t dblen,
			const char *word, size_t wlen)
{
	size_t at = strnlen(others, cap);

	if (at + 1 >= cap)
		return;
	snprintf(others + at, cap - at, "%s%.*s: %.*s", at ? ", " : "", (int)dblen, db,
		 (int)wlen, word);
}

/* One "db: source [ACTION] source" line (comment cut): SEEN gets bit 1 for
 * passwd, 2 for group; true when it names a source but files. */
static bool nss_line(const char *s, size_t n, bool systemd_known, unsigned *seen, bool *subid,
		     char *others, size_t cap)
{
	size_t a = 0, e;
	bool beyond = false;
	unsigned bit;

	while (a < n && (s[a] == ' ' || s[a] == '\t'))
		a++;
	for (e = a; e < n && s[e] != ':' && s[e] != ' ' && s[e] != '\t'; e++)
		;
	bit = e - a == 6 && !memcmp(s + a, "passwd", 6) ? 1u
	    : e - a == 5 && !memcmp(s + a, "group", 5)   ? 2u
	    : e - a == 5 && !memcmp(s + a, "subid", 5)   ? 4u : 0u;
	const char *db = s + a;
	size_t dblen = e - a;

	while (e < n && s[e] != ':')
		e++;
	if (!bit || e >= n)
		return false;
	*seen |= bit;
	for (size_t i = e + 1; i < n;) {
		size_t w;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++;
			continue;
		}
		if (s[i] == '[') { /* an action, [NOTFOUND=return] */
			while (i < n && s[i] != ']')
				i++;
			i++;
			continue;
		}
		for (w = i; w < n && s[w] != ' ' && s[w] != '\t' && s[w] != '\r' && s[w] != '['; w++)
			;
		if (bit == 4u)
			*subid = true; /* any source: shadow's tools ask it, sbx cannot */
		else if ((w - i != 5 || memcmp(s + i, "files", 5)) &&
			 !(systemd_known && w - i == 7 && !memcmp(s + i, "systemd", 7))) {
			beyond = true;
			note_source(others, cap, db, dblen, s + i, w - i);
		}
		i = w;
	}
	return beyond;
}

bool uiddb_nss_beyond_files(const char *text, size_t len, bool systemd_known, bool *subid,
			    char *others, size_t cap)
{
	unsigned seen = 0;
	bool beyond = false;

	*subid = false;
	if (cap)
		others[0] = '\0';
	for (size_t at = 0; at < len;) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at, code;

		for (code = 0; code < n && s[code] != '#' && s[code] != '\0'; code++)
			;
		if (nss_line(s, code, systemd_known, &seen, subid, others, cap))
			beyond = true;
		at += n + (nl ? 1 : 0);
	}
	/* a database without a line gets glibc's default, not files alone */
	if (!(seen & 1u))
		note_source(others, cap, "passwd", 6, "(no line: glibc's default)", 26);
	if (!(seen & 2u))
		note_source(others, cap, "group", 5, "(no line: glibc's default)", 26);
	return beyond || (seen & 3u) != 3u;
}

/* Whether directory PATH holds an entry of a name other than "." and
 * "..", or (with KNOWN) one not in KNOWN; an absent one holds none, one
 * that cannot be read counts as holding some. */
static bool holds_entries(const char *path, const char *const *known)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool some = false;

	if (!d)
		return errno != ENOENT && errno != ENOTDIR;
	while (!some && (e = readdir(d))) {
		bool ok = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");

		for (const char *const *k = known; !ok && k && *k; k++)
			ok = !strcmp(e->d_name, *k);
		some = !ok;
	}
	closedir(d);
	return some;
}

bool uiddb_systemd_known(uint32_t first, uint32_t count, const char *const *dirs,
			 const char *services)
{
	static const struct { uint64_t lo, hi; } given[] = {
		{ 60001, 65535 }, { 524288, 1879048191 }, { 2147352576, 2147418111 },
	};
	/* the userdb services whose users live in the ranges above, or that
	 * only pass other sources on */
	static const char *const served[] = {
		"io.systemd.DynamicUser", "io.systemd.Home", "io.systemd.Multiplexer",
		"io.systemd.NameServiceSwitch", NULL,
	};
	uint64_t lo = first, hi = (uint64_t)first + count - 1;

	if (!count)
		return false;
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (lo <= given[i].hi && given[i].lo <= hi)
			return false;
	for (const char *const *d = dirs; *d; d++)
		if (holds_entries(*d, NULL))
			return false;
	return !holds_entries(services, served);
}

int uiddb_nss_needed(uint32_t first, uint32_t count, char *others, size_t cap,
		     struct sbx_err *err)
{
	static const char *const userdb_dirs[] = {
		"/etc/userdb", "/run/userdb", "/run/host/userdb", "/usr/local/lib/userdb",
		"/usr/lib/userdb", NULL,
	};
	int fd cleanup_fd = open(UIDDB_NSSWITCH, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *text cleanup_free = NULL;
	size_t len = 0;
	ssize_t r;
	bool subid;

	if (fd < 0 && errno == ENOENT) {
		snprintf(others, cap, "no %s: glibc's default", UIDDB_NSSWITCH);
		return 1;
	}
	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "%s: %s (sbx reads it to know where the "
			       "host's accounts are listed)", UIDDB_NSSWITCH, strerror(errno));
	if (!(text = malloc(UIDDB_NSSWITCH_MAX)))
		return err_set(err, ERR_INTERNAL, ENOMEM, "reading %s: out of memory",
			       UIDDB_NSSWITCH);
	while (len < UIDDB_NSSWITCH_MAX &&
	       (r = read(fd, text + len, UIDDB_NSSWITCH_MAX - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_set(err, ERR_SETUP, errno, "%s: %s while reading it (sbx "
				       "reads it to know where the host's accounts are listed)",
				       UIDDB_NSSWITCH, strerror(errno));
		len += (size_t)r;
	}
	/* a line past what was read could name a source */
	if (len == UIDDB_NSSWITCH_MAX)
		return err_set(err, ERR_SETUP, EFBIG, "%s: 64 KiB or more: not a name service "
			       "configuration sbx can read whole; check what wrote it",
			       UIDDB_NSSWITCH);
	/* Debian's default "files systemd": no getent per run, when systemd's
	 * own facts say it has no account in sbx's range */
	bool known = uiddb_systemd_known(first, count, userdb_dirs, "/run/systemd/userdb");
	bool beyond = uiddb_nss_beyond_files(text, len, known, &subid, others, cap);
	/* newuidmap would ask that source for ranges that no one can list */
	if (subid)
		return err_set(err, ERR_SETUP, EPERM, "%s: a 'subid' line names a source of "
			       "subordinate ids, which sbx cannot ask which ids it gives out: "
			       "once none of its ranges overlaps sbx's uid range, write "
			       "'reserved yes' in %s", UIDDB_NSSWITCH, UIDRANGE_CONFIG);
	return beyond;
}

/* The exit status of `getent DB ID`, run with no caller environment and
 * SIGCHLD at its default (a caller's SIG_IGN would reap it first); -1
 * with errno when it could not run. */
static int run_getent(const char *path, const char *db, uint32_t id)
{
	char key[16], *const argv[] = { "getent", (char *)db, key, NULL };
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int status = -1, rc, e;
	pid_t pid;

	snprintf(key, sizeof(key), "%u", id);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	sigaction(SIGCHLD, &dfl, &old);
	rc = posix_spawn(&pid, path, &fa, &at, argv, envp);
	while (rc == 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	e = rc ? rc : errno;
	sigaction(SIGCHLD, &old, NULL);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0 || status < 0) {
		errno = e;
		return -1;
	}
	return status;
}

int uiddb_nss_taken(uint32_t id, const char *others, struct sbx_err *err)
{
	static const char *const paths[] = { "/usr/bin/getent", "/bin/getent" };
	static const char *const dbs[] = { "passwd", "group" };
	const char *path = NULL;

	for (size_t i = 0; !path && i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			path = paths[i];
	if (!path)
		return err_set(err, ERR_SETUP, ENOENT, "%s: accounts from sources sbx cannot "
			       "read itself (%s), and no getent(1) to ask them: install it "
			       "(Debian: libc-bin), or, if no account of those sources is in "
			       "sbx's uid range, write 'reserved yes' in %s", UIDDB_NSSWITCH,
			       others, UIDRANGE_CONFIG);
	for (size_t d = 0; d < 2; d++) {
		int st = run_getent(path, dbs[d], id);

		/* getent: 0 found, 2 not found; anything else left the id unknown */
		if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 1;
		if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2)
			continue;
		if (st < 0)
			return err_set(err, ERR_SETUP, errno, "%s %s %u: %s (%s names account "
				       "sources sbx asks through getent: %s; or, if none of their "
				       "accounts is in sbx's uid range, write 'reserved yes' in %s)",
				       path, dbs[d], id, strerror(errno), UIDDB_NSSWITCH, others,
				       UIDRANGE_CONFIG);
		return err_set(err, ERR_SETUP, EIO, "%s %s %u: %s %d, so whether host id %u "
			       "is an account is unknown (%s names account sources sbx asks "
			       "through getent: %s): fix the name service, or, if none of its "
			       "accounts is in sbx's uid range, write 'reserved yes' in %s",
			       path, dbs[d], id, WIFEXITED(st) ? "exit status" : "killed by signal",
			       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), id, UIDDB_NSSWITCH,
			       others, UIDRANGE_CONFIG);
	}
	return 0;
}
