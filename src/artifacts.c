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
#include "artifacts.h"

#include <cjson/cJSON.h>
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

#include "result.h"
#include "workspace.h"

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
		else
			sub = art_open_beneath(fd, comp, O_RDONLY | O_DIRECTORY, 0);
		close(fd);
		fd = sub;
	}
	free(dirs);
	return fd;
}

static int copy_one(const struct art_file *f, int ws, int out)
{
	const char *leaf;
	struct stat st;
	int in, dir, dst = -1, rc = -1;

	/* O_NONBLOCK: a FIFO swapped in for the file cannot hang sbx */
	in = art_open_beneath(ws, f->path, O_RDONLY | O_NONBLOCK, 0);
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(in);
		errno = EINVAL;
		return -1;
	}
	dir = make_parents(out, f->path, &leaf);
	if (dir >= 0)
		dst = art_open_beneath(dir, leaf, O_WRONLY | O_CREAT | O_TRUNC,
				       (st.st_mode & 0755) | 0600);
	if (dst >= 0)
		rc = copy_bytes(in, dst);
	if (dst >= 0 && close(dst) < 0)
		rc = -1;
	if (dir >= 0)
		close(dir);
	close(in);
	return rc;
}

int art_copy_out(const struct artifacts *a, int ws_dirfd, int out_dirfd,
		 const char *out_name)
{
	int failed = 0;

	for (size_t i = 0; a && i < a->n; i++) {
		const struct art_file *f = &a->v[i];

		/* only regular files: a link or FIFO is listed, never copied */
		if (f->change == ART_DELETED || !S_ISREG(f->mode))
			continue;
		if (copy_one(f, ws_dirfd, out_dirfd) < 0) {
			fprintf(stderr, "sbx: warning: --out %s: could not copy %s: %s\n",
				out_name, f->path, strerror(errno));
			failed++;
		}
	}
	return failed;
}

/* ---- the record ---------------------------------------------------------------- */

/* File names are bytes: result.c repairs them to UTF-8 (and says so). */
static cJSON *path_string(const char *path)
{
	return cJSON_CreateString(path);
}

static const char *kind_name(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISLNK(m) ? "symlink" : S_ISFIFO(m) ? "fifo"
	     : S_ISSOCK(m) ? "socket" : "device";
}

static const char *const change_names[] = { "created", "changed", "deleted" };

static const char *const reason_names[ART_R_COUNT] = {
	[ART_R_FILE_COUNT] = "file_count", [ART_R_DEPTH] = "depth",
	[ART_R_PATH_LENGTH] = "path_length", [ART_R_UNREADABLE] = "unreadable",
	[ART_R_PROBE_BUDGET] = "probe_budget",
};

static bool add_item(cJSON *o, const char *key, cJSON *item)
{
	if (!item)
		return false;
	cJSON_AddItemToObject(o, key, item);
	return true;
}

static cJSON *file_json(const struct art_file *f)
{
	cJSON *o = cJSON_CreateObject();
	bool sized = f->change != ART_DELETED && S_ISREG(f->mode);

	if (!o || !add_item(o, "path", path_string(f->path)) ||
	    !add_item(o, "bytes", sized ? cJSON_CreateNumber((double)f->size)
					: cJSON_CreateNull()) ||
	    !cJSON_AddStringToObject(o, "change", change_names[f->change]) ||
	    !cJSON_AddStringToObject(o, "kind", kind_name(f->mode))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *files_json(const struct artifacts *a)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < a->n; i++) {
		cJSON *f = file_json(&a->v[i]);
		if (!f) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, f);
	}
	return arr;
}

static cJSON *truncation_json(const struct art_scan *s)
{
	cJSON *o = cJSON_CreateObject(), *reasons = cJSON_CreateObject();
	cJSON *skipped = cJSON_CreateArray();
	bool ok = o && reasons && skipped;

	for (int i = 0; ok && i < ART_R_COUNT; i++)
		ok = cJSON_AddNumberToObject(reasons, reason_names[i],
					     (double)s->reasons[i]) != NULL;
	for (size_t i = 0; ok && i < s->nskipped; i++) {
		cJSON *p = path_string(s->skipped[i]);
		ok = p != NULL;
		if (ok)
			cJSON_AddItemToArray(skipped, p);
	}
	if (!ok) {
		cJSON_Delete(o);
		cJSON_Delete(reasons);
		cJSON_Delete(skipped);
		return NULL;
	}
	cJSON_AddItemToObject(o, "reasons", reasons);
	cJSON_AddNumberToObject(o, "skipped_count", (double)s->skipped_count);
	cJSON_AddItemToObject(o, "skipped", skipped);
	return o;
}

/* The compile stage's own record, minus what the outer record already says. */
static cJSON *compile_json(const struct result *c)
{
	char *text = result_to_json(c);
	cJSON *o = text ? cJSON_Parse(text) : NULL;

	free(text);
	if (!o)
		return NULL;
	cJSON_DeleteItemFromObject(o, "sbx_version");
	cJSON_DeleteItemFromObject(o, "schema_version");
	cJSON_DeleteItemFromObject(o, "isolation");
	return o;
}

bool artifacts_add_to_record(cJSON *o, const struct result *r)
{
	const struct artifacts *a = r->files;

	if (r->stage && !cJSON_AddStringToObject(o, "stage", r->stage))
		return false;
	if (r->compile && !add_item(o, "compile", compile_json(r->compile)))
		return false;
	if (!a)
		return true;
	if (!add_item(o, "files", files_json(a)))
		return false;
	if (a->complete)
		return true;
	return add_item(o, "artifact_truncation", truncation_json(&a->after));
}
