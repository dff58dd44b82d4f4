/*
 * scan.c - the bounded, symlink-proof scan of the workspace; see
 * artifacts.h.
 *
 * The scan only reads directories and lstat()s entries: it never opens a
 * file (a FIFO cannot block it), never follows a symlink (every directory
 * is opened by path_open_beneath, base/path.h, one component at a time),
 * and stops at the bounds of artifacts.h, counting what it
 * could not see per reason.  It runs only when every jail process is gone,
 * so the program cannot race it.
 */
#include "base/cleanup.h"
#include "workspace/artifacts.h"
#include "base/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t ts_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void art_skip(struct art_truncation *t, enum art_reason r, const char *path)
{
	char *p;

	t->reasons[r]++;
	t->skipped_count++;
	if (t->nskipped < ART_MAX_SKIPPED && (p = strdup(path)))
		t->skipped[t->nskipped++] = p;
}

void art_truncation_free(struct art_truncation *t)
{
	for (size_t i = 0; i < t->nskipped; i++)
		free(t->skipped[i]);
	t->nskipped = 0;
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
		art_skip(&s->lost, ART_R_PATH_LENGTH, w->path);
		return 0;
	}
	snprintf(w->path + len, sizeof(w->path) - len, "%s%s", len ? "/" : "", name);
	w->len = strlen(w->path);
	rc = 0;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		art_skip(&s->lost, ART_R_UNREADABLE, w->path);
	} else if (!S_ISDIR(st.st_mode)) {
		if (s->n >= ART_MAX_FILES)
			art_skip(&s->lost, ART_R_FILE_COUNT, w->path);
		else
			rc = push_entry(s, w->path, &st);
	} else if (w->depth + 1 > ART_MAX_DEPTH) {
		art_skip(&s->lost, ART_R_DEPTH, w->path);
	} else if ((child = path_open_beneath(fd, name, O_RDONLY | O_DIRECTORY, 0)) < 0) {
		art_skip(&s->lost, ART_R_UNREADABLE, w->path);
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
	int held cleanup_fd = fd;
	DIR *d cleanup_dir = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		art_skip(&s->lost, ART_R_UNREADABLE, w->len ? w->path : ".");
		return 0;
	}
	steal_fd(&held); /* the stream's now */
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (w->depth == 0 && s->exclude && !strcmp(e->d_name, s->exclude))
			continue; /* sbx's own build output, not the program's */
		/* the probe budget bounds a million-entry tree */
		if (s->budget >= ART_PROBE_BUDGET) {
			art_skip(&s->lost, ART_R_PROBE_BUDGET, w->len ? w->path : ".");
			break;
		}
		s->budget++;
		rc = visit(s, dirfd(d), w, e->d_name);
	}
	return rc;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct art_entry *)a)->path,
		      ((const struct art_entry *)b)->path);
}

int art_scan(int dirfd, struct art_scan *s, struct sbx_err *err)
{
	struct walk_pos *w cleanup_free = calloc(1, sizeof(*w));
	int fd cleanup_fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (!w || fd < 0)
		return err_set(err, ERR_SETUP, errno, "scanning the workspace: %s", strerror(errno));
	rc = walk_dir(s, steal_fd(&fd), w);
	if (rc < 0)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	if (s->n > 1) /* qsort(NULL, 0) is UB */
		qsort(s->v, s->n, sizeof(*s->v), entry_cmp);
	return 0;
}

bool art_scan_complete(const struct art_scan *s)
{
	return s->lost.skipped_count == 0;
}

void art_scan_free(struct art_scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	art_truncation_free(&s->lost);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
