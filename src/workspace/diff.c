/*
 * diff.c - what the run created, changed or deleted: the scan taken
 * before the program ran against one taken after; see artifacts.h.
 *
 * Both scans are sorted by path, so the diff is one merge.  What a
 * truncated scan could not see never turns into a change: an unseen file
 * is "created" only when its ctime is from the run, and nothing is
 * "deleted" unless both scans were complete.
 */
#include "base/cleanup.h"
#include "workspace/artifacts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	a->v[a->n++] = (struct art_file){ .path = p, .change = change, .mode = e->mode,
					  .size = e->size };
	return 0;
}

static int merge(struct artifacts *a, const struct art_scan *before,
		 const struct art_scan *after, int64_t since_ns)
{
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
			/* a truncated scan must never look like a deletion */
			if (a->complete)
				rc = add_file(a, &before->v[i], ART_DELETED, &cap);
			i++;
		}
	}
	return rc;
}

/* The before-scan was the incomplete one: report its losses. */
static void keep_truncation(struct art_truncation *to, const struct art_truncation *from)
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

static void art_freep(struct artifacts **a)
{
	art_free(*a);
}

static void art_scan_freep(struct art_scan *s)
{
	art_scan_free(s);
}

struct artifacts *art_diff(int dirfd, const struct art_scan *before,
			   int64_t since_ns, struct sbx_err *err)
{
	struct artifacts *a __attribute__((cleanup(art_freep))) = calloc(1, sizeof(*a));
	struct art_scan after __attribute__((cleanup(art_scan_freep))) = {
		.exclude = before->exclude };

	if (!a) {
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	if (art_scan(dirfd, &after, err) < 0)
		return NULL;
	a->complete = art_scan_complete(before) && art_scan_complete(&after);
	/* the record keeps the losses of the scan that had them */
	a->truncation = after.lost;
	after.lost.nskipped = 0; /* the paths are a's now */
	if (!a->complete && art_scan_complete(&after))
		keep_truncation(&a->truncation, &before->lost);
	if (merge(a, before, &after, since_ns) < 0) {
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	return steal_ptr(&a);
}

void art_mark_size_limit(struct artifacts *a, uint64_t limit_bytes)
{
	for (size_t i = 0; a && limit_bytes && i < a->n; i++) {
		struct art_file *f = &a->v[i];

		/* RLIMIT_FSIZE stops a file at the limit exactly: one that large
		 * had a write refused (EFBIG), or came to the byte by chance */
		f->at_size_limit = f->change != ART_DELETED && S_ISREG(f->mode) &&
				   f->size >= limit_bytes;
	}
}

void art_free(struct artifacts *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].path);
	free(a->v);
	art_truncation_free(&a->truncation);
	free(a);
}
