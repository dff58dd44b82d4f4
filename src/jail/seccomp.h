/*
 * seccomp.h - the syscall filter: named @groups and the compiled program.
 *
 * The groups table is exported so that `sbx explain`, the man page and the
 * tests can list what each @group holds and why.  sc_filter_build() turns a
 * policy's seccomp block into raw BPF once, in the supervisor; the target
 * only calls sc_filter_load() (no libseccomp, no allocation after fork).
 * libseccomp is used only to resolve syscall names.  scnotify.h turns the
 * program into its user-notification twin and answers for it.
 */
#ifndef SBX_JAIL_SECCOMP_H
#define SBX_JAIL_SECCOMP_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "jail/scarch.h"
#include "policy/policy.h"

struct sc_group {
	const char *name;              /* "@default", "@mount", ... */
	const char *const *syscalls;   /* NULL-terminated */
	const char *why;               /* one line for people */
};

/* Syscall numbers the generated program tells apart; higher ones get the
 * default action. */
#define SC_NR_MAX 1024
/* The first instructions of every program: the ABI checks, which kill
 * in the kernel whatever else the program is turned into (x86_64 checks
 * the arch value and x32's number bit, aarch64 the arch value only;
 * both then load the number). */
#define SC_PROLOGUE_LEN (4 + 2 * SC_HAS_X32)

extern const struct sc_group sc_groups[];
extern const size_t sc_groups_count;

/* The group named NAME ("@mount"), or NULL. */
const struct sc_group *sc_group_find(const char *name);

/*
 * Everything sc_filter_build refuses, without building: unknown names (with
 * a suggestion), a block that allows nothing, a command-line allow of what
 * stays denied whatever the options.  For `sbx check` and `sbx explain`.
 */
int sc_spec_check(const struct seccomp_spec *spec, struct sbx_err *err);

/*
 * Compile SPEC into OUT (a malloc'ed BPF program; free with sc_filter_free).
 * Unknown syscall or group names are ERR_CONFIG naming the entry.
 */
int sc_filter_build(const struct seccomp_spec *spec, struct sock_fprog *out,
		    struct sbx_err *err);

/* The same for a run: ALLOC_MAX (bytes, 0: none) bounds the length of one
 * mmap of private writable memory, ENOMEM past it, as RLIMIT_DATA of that
 * size would answer, but reported. */
int sc_filter_build_run(const struct seccomp_spec *spec, uint64_t alloc_max,
			struct sock_fprog *out, struct sbx_err *err);
void sc_filter_free(struct sock_fprog *prog);

/*
 * The program of SPEC for `sbx learn`: besides what SPEC allows, every
 * syscall that SPEC leaves to its default action and no @group names is
 * allowed too (explicit denies, the @groups and the fixed argument rules
 * still refuse).  The supervisor runs it to tell a call the trial run
 * needs from one refused for a reason.
 */
int sc_filter_build_learn(const struct seccomp_spec *spec, struct sock_fprog *out,
			  struct sbx_err *err);

/*
 * Install PROG (it carries the fixed rules too: TIOCSTI/TIOCLINUX/TIOCSETD,
 * personality, clone flags, socket and socketpair families and protocols,
 * setuid/setgid modes in chmod, watch-queue pipes, non-native ABIs).  Needs no_new_privs.  Async-signal-safe:
 * no allocation.  Returns 0 or -1 with errno set.
 */
int sc_filter_load(const struct sock_fprog *prog);

#endif
