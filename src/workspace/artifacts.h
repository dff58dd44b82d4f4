/*
 * artifacts.h - what the run created, changed or deleted in its workspace.
 *
 * A bounded, symlink-proof scan of the workspace is taken before the
 * program runs (the inputs) and after every jail process is gone; the
 * difference is the record's "files", and what the scan could not see is
 * its "artifact_truncation".  `-o DIR` copies the
 * created and changed regular files out.  Nothing here follows a link,
 * opens a FIFO, or leaves the workspace directory it is given.
 * scan.c scans, diff.c compares, copyout.c copies out; the record's keys
 * are built from these structures by src/record/files.c.
 */
#ifndef SBX_ARTIFACTS_H
#define SBX_ARTIFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

/* Bounds of one scan: a huge or deep tree cannot make sbx run unbounded. */
#define ART_MAX_FILES 2000      /* entries recorded per scan */
#define ART_MAX_DEPTH 32        /* directory levels below the workspace */
#define ART_MAX_PATH 1024       /* bytes of a relative path */
#define ART_PROBE_BUDGET 100000 /* directory entries looked at per scan */
#define ART_MAX_SKIPPED 20      /* skipped paths named in the record */

enum art_reason {
	ART_R_FILE_COUNT, ART_R_DEPTH, ART_R_PATH_LENGTH, ART_R_UNREADABLE,
	ART_R_PROBE_BUDGET,
	/* -o: over the total budget; not the program's own file; copy failed */
	ART_R_OUT_BUDGET, ART_R_OUT_REFUSED, ART_R_OUT_FAILED, ART_R_COUNT
};

struct art_entry {
	char *path;      /* relative to the workspace, "a/b.txt" */
	mode_t mode;
	uint64_t size;
	int64_t mtime_ns, ctime_ns;
	ino_t ino;
};

/* What a scan could not see, or -o could not copy: the record's
 * "artifact_truncation". */
struct art_truncation {
	unsigned long reasons[ART_R_COUNT];
	unsigned long skipped_count;
	char *skipped[ART_MAX_SKIPPED];
	size_t nskipped;
};

struct art_scan {
	struct art_entry *v;     /* sorted by path after art_scan() */
	size_t n, cap;
	struct art_truncation lost;
	unsigned long budget;
	const char *exclude;     /* a top-level name sbx itself writes, or NULL */
};

enum art_change { ART_CREATED, ART_CHANGED, ART_DELETED };

/* What -o did with one file: not its business (no -o, not a regular file,
 * deleted), copied, or not copied for copy_reason. */
enum art_copy { ART_COPY_NONE, ART_COPY_DONE, ART_COPY_MISSED };

struct art_file {
	char *path;
	enum art_change change;
	mode_t mode;
	uint64_t size;
	bool at_size_limit;       /* as large as the file-size limit: cut there */
	enum art_copy copy;
	enum art_reason copy_reason; /* ART_R_OUT_*, when copy is ART_COPY_MISSED */
};

/* The record's "files" and "artifact_truncation". */
struct artifacts {
	struct art_file *v;
	size_t n;
	struct art_truncation truncation; /* of the scan that lost more, and -o's */
	bool complete;           /* both scans saw everything */
};

/* Scan the tree under DIRFD into S (S zeroed by the caller, exclude set). */
int art_scan(int dirfd, struct art_scan *s, struct sbx_err *err);
bool art_scan_complete(const struct art_scan *s);
void art_scan_free(struct art_scan *s);
void art_truncation_free(struct art_truncation *t);

/* Count PATH as not seen (the scan) or not copied (-o) for reason R;
 * the first ART_MAX_SKIPPED paths are kept for the record. */
void art_skip(struct art_truncation *t, enum art_reason r, const char *path);

/*
 * Compare BEFORE with a new scan of DIRFD.  Files the before-scan did not
 * see are "created" only when their ctime is at or after SINCE_NS (the run
 * start): a truncated before-scan never turns an old file into a new one.
 * Deleted files are listed only when both scans were complete.
 */
struct artifacts *art_diff(int dirfd, const struct art_scan *before,
			   int64_t since_ns, struct sbx_err *err);
void art_free(struct artifacts *a);

/* Mark the regular files of A that reached LIMIT_BYTES (the file-size
 * limit the program had): the kernel refused every write past it, so
 * the file may be cut short.  LIMIT_BYTES 0: unlimited, none marked. */
void art_mark_size_limit(struct artifacts *a, uint64_t limit_bytes);

/*
 * Total data bytes -o writes by default: ART_OUT_BUDGET_FILES times the
 * file-size limit, at most ART_OUT_BUDGET_MAX (also when it is unlimited).
 */
#define ART_OUT_BUDGET_FILES 4
#define ART_OUT_BUDGET_MAX (4ULL << 30)
uint64_t art_out_budget(uint64_t file_size_mb);

/*
 * Copy the created and changed regular files of A from WS_DIRFD to OUT_DIRFD
 * (keeping their relative paths), holes as holes, each through a fresh
 * temporary file renamed into place, at most BUDGET data bytes in all.
 * Files not copied (over the budget, not the program's own: a hard link
 * to a file outside, or failed) are named on stderr and counted in A's
 * artifact_truncation; each file tried says in its copy whether it was
 * copied; returns the number not copied.  A pending abort signal
 * (SIGTERM...) ends the copy, and ABORTED (the run was) copies nothing: the
 * file in progress and the rest count as failed.  JAIL_UID: the program's
 * host uid (a hard-linked file of another owner is not its own).
 */
int art_copy_out(struct artifacts *a, int ws_dirfd, int out_dirfd,
		 const char *out_name, uint64_t budget, uid_t jail_uid, bool aborted);

#endif
