/*
 * artifacts.c - the bounded workspace scan, its diff and the -o copy; see
 * artifacts.h.
 *
 * The scan only reads directories and lstat()s entries: it never opens a
 * file (a FIFO cannot block it), never follows a symlink (every directory
 * is opened by openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, one component
 * at a time), and stops at the bounds of artifacts.h, counting what it
 * could not see per reason.  It runs only when every jail process is gone,
 * so the program cannot race it.
 */
#include "workspace/artifacts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workspace/workspace.h"

/* ---- safe opens ----------------------------------------------------------- */

/* Fallback without openat2: one O_NOFOLLOW component at a time. */
static int open_by_components(int dirfd, const char *name, int flags, mode_t mode)
{
	char *copy = strdup(name), *save = NULL, *comp, *next;
	int cur = dirfd, fd = -1;

	if (!copy)
		return -1;
	comp = strtok_r(copy, "/", &save);
	while (comp) {
		next = strtok_r(NULL, "/", &save);
		/* ".." would climb out of the tree the caller named */
		if (!strcmp(comp, "..")) {
			errno = EXDEV;
			fd = -1;
			break;
		}
		fd = openat(cur, comp, next ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
					    : flags | O_NOFOLLOW | O_CLOEXEC, mode);
		if (cur != dirfd)
			close(cur);
		if (fd < 0 || !next)
			break;
		cur = fd;
		comp = next;
	}
	free(copy);
	return fd;
}

int art_open_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
	/* BENEATH + NO_SYMLINKS: a link or ".." the program planted can never
	 * lead a host-side open out of the workspace */
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return (int)fd;
	return open_by_components(dirfd, name, flags, mode);
}

/* ---- the scan --------------------------------------------------------------- */

static int64_t ts_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void skip(struct art_scan *s, enum art_reason r, const char *path)
{
	char *p;

	s->reasons[r]++;
	s->skipped_count++;
	if (s->nskipped < ART_MAX_SKIPPED && (p = strdup(path)))
		s->skipped[s->nskipped++] = p;
}

static int push_entry(struct art_scan *s, const char *path, const struct stat *st)
{
	char *p;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct art_entry *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	if (!(p = strdup(path)))
		return -1;
	s->v[s->n++] = (struct art_entry){
		.path = p, .mode = st->st_mode, .size = (uint64_t)st->st_size,
		.mtime_ns = ts_ns(st->st_mtim), .ctime_ns = ts_ns(st->st_ctim),
		.ino = st->st_ino,
	};
	return 0;
}

struct walk_pos {
	char path[ART_MAX_PATH + 1];
	size_t len;
	int depth;
};

static int walk_dir(struct art_scan *s, int fd, struct walk_pos *w);

/* One directory entry NAME of FD; the path of FD is W->path. */
static int visit(struct art_scan *s, int fd, struct walk_pos *w, const char *name)
{
	size_t nlen = strlen(name), len = w->len;
	struct stat st;
	int child, rc;

	if (len + (len ? 1 : 0) + nlen > ART_MAX_PATH) {
		skip(s, ART_R_PATH_LENGTH, w->path);
		return 0;
	}
	snprintf(w->path + len, sizeof(w->path) - len, "%s%s", len ? "/" : "", name);
	w->len = strlen(w->path);
	rc = 0;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		skip(s, ART_R_UNREADABLE, w->path);
	} else if (!S_ISDIR(st.st_mode)) {
		if (s->n >= ART_MAX_FILES)
			skip(s, ART_R_FILE_COUNT, w->path);
		else
			rc = push_entry(s, w->path, &st);
	} else if (w->depth + 1 > ART_MAX_DEPTH) {
		skip(s, ART_R_DEPTH, w->path);
	} else if ((child = art_open_beneath(fd, name, O_RDONLY | O_DIRECTORY, 0)) < 0) {
		skip(s, ART_R_UNREADABLE, w->path);
	} else {
		w->depth++;
		rc = walk_dir(s, child, w);
		w->depth--;
	}
	w->len = len;
	w->path[len] = '\0';
	return rc;
}

/* Walk FD (consumed).  -1 only on out of memory. */
static int walk_dir(struct art_scan *s, int fd, struct walk_pos *w)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		skip(s, ART_R_UNREADABLE, w->len ? w->path : ".");
		return 0;
	}
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (w->depth == 0 && s->exclude && !strcmp(e->d_name, s->exclude))
			continue; /* sbx's own build output, not the program's */
		/* the probe budget bounds a million-entry tree */
		if (s->budget >= ART_PROBE_BUDGET) {
			skip(s, ART_R_PROBE_BUDGET, w->len ? w->path : ".");
			break;
		}
		s->budget++;
		rc = visit(s, dirfd(d), w, e->d_name);
	}
	closedir(d);
	return rc;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct art_entry *)a)->path,
		      ((const struct art_entry *)b)->path);
}

int art_scan(int dirfd, struct art_scan *s, struct sbx_err *err)
{
	struct walk_pos *w = calloc(1, sizeof(*w));
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (!w || fd < 0) {
		int e = errno;
		free(w);
		if (fd >= 0)
			close(fd);
		return err_set(err, ERR_SETUP, e, "scanning the workspace: %s", strerror(e));
	}
	rc = walk_dir(s, fd, w);
	free(w);
	if (rc < 0)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	if (s->n > 1) /* qsort(NULL, 0) is UB */
		qsort(s->v, s->n, sizeof(*s->v), entry_cmp);
	return 0;
}

bool art_scan_complete(const struct art_scan *s)
{
	return s->skipped_count == 0;
}

void art_scan_free(struct art_scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	for (size_t i = 0; i < s->nskipped; i++)
		free(s->skipped[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = s->nskipped = 0;
}

/* ---- the diff ---------------------------------------------------------------- */

static bool entry_changed(const struct art_entry *a, const struct art_entry *b)
{
	return a->size != b->size || a->mtime_ns != b->mtime_ns ||
	       a->ctime_ns != b->ctime_ns || a->ino != b->ino ||
	       (a->mode & S_IFMT) != (b->mode & S_IFMT);
}

static int add_file(struct artifacts *a, const struct art_entry *e,
		    enum art_change change, size_t *cap)
{
	char *p;

	if (a->n == *cap) {
		size_t c = *cap ? *cap * 2 : 32;
		struct art_file *v = realloc(a->v, c * sizeof(*v));
		if (!v)
			return -1;
		a->v = v;
		*cap = c;
	}
	if (!(p = strdup(e->path)))
		return -1;
	a->v[a->n++] = (struct art_file){ p, change, e->mode, e->size };
	return 0;
}

static int merge(struct artifacts *a, const struct art_scan *before, int64_t since_ns)
{
	const struct art_scan *after = &a->after;
	bool before_complete = art_scan_complete(before);
	size_t i = 0, j = 0, cap = 0;
	int rc = 0;

	while (rc == 0 && (i < before->n || j < after->n)) {
		int c = i == before->n ? 1 : j == after->n ? -1
			: strcmp(before->v[i].path, after->v[j].path);

		if (c == 0) {
			if (entry_changed(&before->v[i], &after->v[j]))
				rc = add_file(a, &after->v[j], ART_CHANGED, &cap);
			i++, j++;
		} else if (c > 0) {
			/* unseen before: new only if it is new since the run began */
			if (before_complete || after->v[j].ctime_ns >= since_ns)
				rc = add_file(a, &after->v[j], ART_CREATED, &cap);
			j++;
		} else {
			/* a truncated scan must never look like a deletion (item 103) */
			if (a->complete)
				rc = add_file(a, &before->v[i], ART_DELETED, &cap);
			i++;
		}
	}
	return rc;
}

/* The before-scan was the incomplete one: report its losses. */
static void keep_truncation(struct art_scan *to, const struct art_scan *from)
{
	for (int i = 0; i < ART_R_COUNT; i++)
		to->reasons[i] += from->reasons[i];
	to->skipped_count += from->skipped_count;
	for (size_t i = 0; i < from->nskipped && to->nskipped < ART_MAX_SKIPPED; i++) {
		char *p = strdup(from->skipped[i]);
		if (p)
			to->skipped[to->nskipped++] = p;
	}
}

struct artifacts *art_diff(int dirfd, const struct art_scan *before,
			   int64_t since_ns, struct sbx_err *err)
{
	struct artifacts *a = calloc(1, sizeof(*a));

	if (!a) {
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	a->after.exclude = before->exclude;
	if (art_scan(dirfd, &a->after, err) < 0) {
		art_free(a);
		return NULL;
	}
	a->complete = art_scan_complete(before) && art_scan_complete(&a->after);
	if (!a->complete && art_scan_complete(&a->after))
		keep_truncation(&a->after, before);
	if (merge(a, before, since_ns) < 0) {
		art_free(a);
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	return a;
}

void art_free(struct artifacts *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].path);
	free(a->v);
	art_scan_free(&a->after);
	free(a);
}

/* ---- -o: copy out ----------------------------------------------------------- */

/* Run by root the program is host uid 65534 (spec §1), else the caller. */
static uid_t jail_host_uid(void)
{
	return geteuid() == 0 ? 65534 : geteuid();
}

uint64_t art_out_budget(uint64_t file_size_mb)
{
	uint64_t max_mb = ART_OUT_BUDGET_MAX >> 20;

	if (file_size_mb == 0 || file_size_mb >= max_mb / ART_OUT_BUDGET_FILES)
		return ART_OUT_BUDGET_MAX; /* not set, unlimited, or that large */
	return (file_size_mb * ART_OUT_BUDGET_FILES) << 20;
}

/* Make the directories of PATH under OUT; returns the parent's fd. */
static int make_parents(int out, const char *path, const char **leaf)
{
	const char *slash = strrchr(path, '/');
	char *dirs;
	int fd;

	*leaf = slash ? slash + 1 : path;
	if (!slash)
		return fcntl(out, F_DUPFD_CLOEXEC, 0);
	if (!(dirs = strndup(path, (size_t)(slash - path))))
		return -1;
	fd = fcntl(out, F_DUPFD_CLOEXEC, 0);
	for (char *comp = dirs, *next; fd >= 0 && comp; comp = next) {
		int sub;

		next = strchr(comp, '/');
		if (next)
			*next++ = '\0';
		if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
			sub = -1;
		else /* a symlink planted in DIR is refused, never followed */
			sub = art_open_beneath(fd, comp, O_RDONLY | O_DIRECTORY, 0);
		close(fd);
		fd = sub;
	}
	free(dirs);
	return fd;
}

/* Bytes of data (not holes) in the first SIZE bytes of IN. */
static uint64_t data_bytes(int in, uint64_t size)
{
	uint64_t total = 0;
	off_t pos = 0, data, hole;

	while ((uint64_t)pos < size) {
		data = lseek(in, pos, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? total : size; /* no SEEK_DATA: all data */
		if ((uint64_t)data >= size)
			break;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		total += (uint64_t)(hole - data);
		pos = hole;
	}
	return total;
}

/* Copy LEN bytes at OFF from IN to OUT (pread/pwrite: offsets stay ours). */
static int copy_range(int in, int out, off_t off, uint64_t len)
{
	char buf[65536];

	while (len > 0) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		ssize_t n = pread(in, buf, want, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0; /* shrank meanwhile: keep what was there */
		for (ssize_t done = 0; done < n;) {
			ssize_t w = pwrite(out, buf + done, (size_t)(n - done), off + done);
			if (w < 0 && errno != EINTR)
				return -1;
			if (w > 0)
				done += w;
		}
		off += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/*
 * Copy the first SIZE bytes of IN (the size fstat saw: a file a host
 * process keeps growing cannot make the copy endless) with its holes left
 * as holes: three `truncate -s 60M` files must not become 180 MiB on the
 * host (issue 11 item 4).
 */
static int copy_sparse(int in, int out, uint64_t size)
{
	off_t pos = 0, data, hole;

	while ((uint64_t)pos < size) {
		data = lseek(in, pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (data < 0) /* no SEEK_DATA here: copy it all */
			return copy_range(in, out, pos, size - (uint64_t)pos) < 0 ||
			       ftruncate(out, (off_t)size) < 0 ? -1 : 0;
		if ((uint64_t)data >= size)
			break;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		if (copy_range(in, out, data, (uint64_t)(hole - data)) < 0)
			return -1;
		pos = hole;
	}
	return ftruncate(out, (off_t)size);
}

/* Create a fresh temporary file in DIR (O_EXCL: no name planted there is used). */
static int open_temp(int dir, char *name, size_t cap, mode_t mode)
{
	static unsigned long seq;

	for (int attempt = 0; attempt < 100; attempt++) {
		int fd;

		snprintf(name, cap, ".sbx-out-%ld-%lu", (long)getpid(), seq++);
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/*
 * Write IN's data to LEAF in DIR through a temporary file renamed over
 * it: a symlink or a hard link already in DIR under LEAF (to /etc/passwd,
 * say) is replaced as a name, never written through.
 */
static int write_into(int in, const struct stat *st, int dir, const char *leaf)
{
	char tmp[64];
	int dst = open_temp(dir, tmp, sizeof(tmp), (st->st_mode & 0755) | 0600);
	int rc;

	if (dst < 0)
		return -1;
	rc = copy_sparse(in, dst, (uint64_t)st->st_size);
	if (close(dst) < 0)
		rc = -1;
	if (rc == 0)
		rc = renameat(dir, tmp, dir, leaf);
	if (rc < 0) {
		int e = errno;
		(void)unlinkat(dir, tmp, 0);
		errno = e;
	}
	return rc;
}

enum copy_outcome { COPIED, COPY_FAILED, COPY_REFUSED, COPY_OVER_BUDGET };

static enum copy_outcome copy_one(const struct art_file *f, int ws, int out,
				  uint64_t *budget)
{
	const char *leaf;
	struct stat st;
	uint64_t need;
	int in, dir, rc = -1;

	/* O_NONBLOCK: a FIFO swapped in for the file cannot hang sbx */
	in = art_open_beneath(ws, f->path, O_RDONLY | O_NONBLOCK, 0);
	if (in < 0)
		return COPY_FAILED;
	/* checked on the opened file: a FIFO or device swapped in is no file */
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(in);
		return COPY_REFUSED;
	}
	/* a hard link to a file outside (a -w workspace is the host's) is not
	 * the program's output: only its own files leave with sbx's rights */
	if (st.st_nlink > 1 && st.st_uid != jail_host_uid()) {
		close(in);
		return COPY_REFUSED;
	}
	/* the total budget bounds what -o can write to the host */
	need = data_bytes(in, (uint64_t)st.st_size);
	if (need > *budget) {
		close(in);
		return COPY_OVER_BUDGET;
	}
	dir = make_parents(out, f->path, &leaf);
	if (dir >= 0) {
		rc = write_into(in, &st, dir, leaf);
		close(dir);
	}
	close(in);
	if (rc < 0)
		return COPY_FAILED;
	*budget -= need;
	return COPIED;
}

/* Terminal-safe copy of a file name for a warning (newlines, escapes). */
static void print_name(const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
}

int art_copy_out(struct artifacts *a, int ws_dirfd, int out_dirfd,
		 const char *out_name, uint64_t budget)
{
	static const char *const why[] = {
		[COPY_FAILED] = "could not copy", [COPY_REFUSED] = "refused to copy",
		[COPY_OVER_BUDGET] = "over the copy-out budget, not copied",
	};
	int failed = 0;

	for (size_t i = 0; a && i < a->n; i++) {
		const struct art_file *f = &a->v[i];
		int e;

		/* only regular files: a link or FIFO is listed, never copied */
		if (f->change == ART_DELETED || !S_ISREG(f->mode))
			continue;
		enum copy_outcome r = copy_one(f, ws_dirfd, out_dirfd, &budget);
		if (r == COPIED)
			continue;
		e = errno;
		skip(&a->after, r == COPY_OVER_BUDGET ? ART_R_OUT_BUDGET
			      : r == COPY_REFUSED ? ART_R_OUT_REFUSED : ART_R_OUT_FAILED,
		     f->path);
		fprintf(stderr, "sbx: warning: --out %s: %s ", out_name, why[r]);
		print_name(f->path);
		if (r == COPY_FAILED)
			fprintf(stderr, ": %s", strerror(e));
		fputc('\n', stderr);
		failed++;
	}
	return failed;
}
