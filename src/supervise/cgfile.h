/*
 * cgfile.h - parse the text of cgroup v2 interface files (pure functions,
 * no I/O; fuzzed by tests/fuzz/fuzz_cgfile.c).
 */
#ifndef SBX_CGFILE_H
#define SBX_CGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The value of KEY in a flat-keyed file ("usage_usec 123\nuser_usec 100\n":
 * cpu.stat, memory.events, cgroup.events).  0 and *OUT set; -1 when KEY is
 * absent or its value is not a decimal number that fits in 64 bits.
 */
int cgfile_key(const char *text, size_t len, const char *key, uint64_t *out);

/*
 * The cgroup v2 path ("/user.slice/x.scope") from the text of
 * /proc/self/cgroup: the `0::` line.  0 and OUT filled (NUL-terminated,
 * always absolute); -1 when there is none or it does not fit in SIZE.
 */
int cgfile_own_path(const char *text, size_t len, char *out, size_t size);

/* Whether the space-separated list TEXT (cgroup.controllers,
 * cgroup.subtree_control) names WORD. */
bool cgfile_has_word(const char *text, size_t len, const char *word);

/*
 * The pids of a cgroup.procs text: *COUNT set to how many there are, and
 * *ONLY true when every one equals PID or OTHER (-1: no other).  -1 when a
 * line is not a pid.
 */
int cgfile_procs(const char *text, size_t len, long pid, long other, size_t *count,
		 bool *only);

/*
 * The pid in a run cgroup's name "sbx-run.PID.N"; -1 when NAME is not one.
 * It only makes names unique: it is no evidence of who owns the cgroup
 * now (another pid namespace, a reused pid); the owner's lock is.
 */
long cgfile_run_owner(const char *name);

#endif
