/*
 * copyout.c - `-o DIR`: the created and changed regular files of the run,
 * copied out of the workspace; see artifacts.h.
 *
 * Each file is opened beneath the workspace without following a link and
 * checked on its fd (a regular file, the program's own), then written to
 * DIR through a fresh temporary file renamed into place, holes left as
 * holes, within one budget of data bytes for the whole copy.  What is not
 * copied is named on stderr and counted in the record's
 * artifact_truncation.
 */
#include "base/cleanup.h"
#include "workspace/artifacts.h"
#include "base/path.h"
#include "base/procstate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t art_out_budget(uint64_t file_size_mb)
{
	uint64_t max_mb = ART_OUT_BUDGET_MAX >> 20;

	if (file_size_mb == 0 || file_size_mb >= max_mb / ART_OUT_BUDGET_FILES)
		return ART_OUT_BUDGET_MAX; /* not set, unlimited, or that large */
	return (file_size_mb * ART_OUT_BUDGET_FILES) << 20;
}

/* Make the directories of PATH under OUT; the parent's fd, LEAF its name. */
static int make_parents(int out, const char *path, char leaf[NAME_MAX + 1])
{
	/* a symlink planted in DIR is refused, never followed */
	struct path_walk w = { .flags = O_RDONLY, .mkdir = true };

	return path_walk(out, path, &w, leaf);
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

/* Copy LEN bytes at OFF from IN to OUT (pread/pwrite: offsets stay ours);
 * *CHUNKS counts the reads of the whole file. */
static int copy_range(int in, int out, off_t off, uint64_t len, unsigned *chunks)
{
	char buf[65536];

	while (len > 0) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		ssize_t n;

		/* a request to stop cuts the copy short, looked for every 16
		 * reads (a MiB, or 16 extents: a counter per extent never came
		 * to 16 in a file of 4 KiB extents, copied whole) */
		if (++*chunks % 16 == 0 && procstate_abort_pending()) {
			errno = EINTR;
			return -1;
		}
		n = pread(in, buf, want, off);

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
 * host.
 */
static int copy_sparse(int in, int out, uint64_t size)
{
	off_t pos = 0, data, hole;
	unsigned chunks = 0;

	while ((uint64_t)pos < size) {
		data = lseek(in, pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (data < 0) /* no SEEK_DATA here: copy it all */
			return copy_range(in, out, pos, size - (uint64_t)pos, &chunks) < 0 ||
			       ftruncate(out, (off_t)size) < 0 ? -1 : 0;
		if ((uint64_t)data >= size)
			break;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		if (copy_range(in, out, data, (uint64_t)(hole - data), &chunks) < 0)
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

/* Give the unnamed file FD (O_TMPFILE) a fresh temporary name in DIR. */
static int link_temp(int fd, int dir, char *name, size_t cap)
{
	static unsigned long seq;
	char proc[40];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int attempt = 0; attempt < 100; attempt++) {
		snprintf(name, cap, ".sbx-out-%ld-t%lu", (long)getpid(), seq++);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH before Linux 6.10;
		 * the /proc link needs a /proc */
		if (linkat(fd, "", dir, name, AT_EMPTY_PATH) == 0 ||
		    (errno != EEXIST &&
		     linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) == 0))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/*
 * Write IN's data to LEAF in DIR through a temporary file renamed over
 * it: a symlink or a hard link already in DIR under LEAF (to /etc/passwd,
 * say) is replaced as a name, never written through.  The file is written
 * unnamed (O_TMPFILE) and named only for the rename: a SIGKILL of sbx in
 * the middle of a copy left a named .sbx-out-PID-N in DIR.  Filesystems
 * without O_TMPFILE get a named temporary file throughout.
 */
static int write_into(int in, const struct stat *st, int dir, const char *leaf)
{
	char tmp[64];
	mode_t mode = (st->st_mode & 0755) | 0600;
	int dst = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	bool named = dst < 0;
	int rc;

	if (named)
		dst = open_temp(dir, tmp, sizeof(tmp), mode);
	if (dst < 0)
		return -1;
	rc = copy_sparse(in, dst, (uint64_t)st->st_size);
	if (rc == 0 && !named) {
		rc = link_temp(dst, dir, tmp, sizeof(tmp));
		named = rc == 0;
	}
	if (close(dst) < 0)
		rc = -1;
	if (rc == 0)
		rc = renameat(dir, tmp, dir, leaf);
	if (rc < 0 && named) {
		int e = errno;
		(void)unlinkat(dir, tmp, 0);
		errno = e;
	}
	return rc;
}

enum copy_outcome { COPIED, COPY_FAILED, COPY_REFUSED, COPY_OVER_BUDGET };

static enum copy_outcome copy_one(const struct art_file *f, int ws, int out,
				  uint64_t *budget, uid_t jail_uid)
{
	char leaf[NAME_MAX + 1];
	struct stat st;
	uint64_t need;

	/* O_NONBLOCK: a FIFO swapped in for the file cannot hang sbx */
	int in cleanup_fd = path_open_beneath(ws, f->path, O_RDONLY | O_NONBLOCK, 0);
	if (in < 0)
		return COPY_FAILED;
	/* checked on the opened file: a FIFO or device swapped in is no file */
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode))
		return COPY_REFUSED;
	/* a hard link to a file outside (a -w workspace is the host's) is not
	 * the program's output: only its own files leave with sbx's rights */
	if (st.st_nlink > 1 && st.st_uid != jail_uid)
		return COPY_REFUSED;
	/* the total budget bounds what -o can write to the host */
	need = data_bytes(in, (uint64_t)st.st_size);
	if (need > *budget)
		return COPY_OVER_BUDGET;
	int dir cleanup_fd = make_parents(out, f->path, leaf);
	if (dir < 0 || write_into(in, &st, dir, leaf) < 0)
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

static enum art_reason reason_of(enum copy_outcome r)
{
	return r == COPY_OVER_BUDGET ? ART_R_OUT_BUDGET
	     : r == COPY_REFUSED ? ART_R_OUT_REFUSED : ART_R_OUT_FAILED;
}

int art_copy_out(struct artifacts *a, int ws_dirfd, int out_dirfd,
		 const char *out_name, uint64_t budget, uid_t jail_uid, bool aborted)
{
	static const char *const why[] = {
		[COPY_FAILED] = "could not copy", [COPY_REFUSED] = "refused to copy",
		[COPY_OVER_BUDGET] = "over the copy-out budget, not copied",
	};
	int failed = 0, left = 0;

	for (size_t i = 0; a && i < a->n; i++) {
		struct art_file *f = &a->v[i];
		int e;

		/* only regular files: a link or FIFO is listed, never copied */
		if (f->change == ART_DELETED || !S_ISREG(f->mode))
			continue;
		/* SIGTERM mid-copy waited for the whole copy, then exit 0; and
		 * one during the run still meant a whole copy before sbx left */
		/* the record says of each file whether it left, not only how
		 * many did not: a full disk kept the first one that failed */
		f->copy = ART_COPY_MISSED;
		f->copy_reason = ART_R_OUT_FAILED;
		if (aborted || left > 0 || procstate_abort_pending()) {
			art_skip(&a->truncation, ART_R_OUT_FAILED, f->path);
			left++;
			continue;
		}
		enum copy_outcome r = copy_one(f, ws_dirfd, out_dirfd, &budget, jail_uid);
		if (r == COPIED) {
			f->copy = ART_COPY_DONE;
			continue;
		}
		e = errno;
		if (r == COPY_FAILED && e == EINTR && procstate_abort_pending()) {
			art_skip(&a->truncation, ART_R_OUT_FAILED, f->path);
			left++; /* cut short: counted with the files not reached */
			continue;
		}
		f->copy_reason = reason_of(r);
		art_skip(&a->truncation, reason_of(r), f->path);
		fprintf(stderr, "sbx: warning: --out %s: %s ", out_name, why[r]);
		print_name(f->path);
		if (r == COPY_FAILED)
			fprintf(stderr, ": %s", strerror(e));
		fputc('\n', stderr);
		failed++;
	}
	if (left > 0)
		fprintf(stderr, "sbx: warning: --out %s: sbx was asked to stop: %d "
			"file%s not copied\n", out_name, left, left == 1 ? "" : "s");
	return failed + left;
}
