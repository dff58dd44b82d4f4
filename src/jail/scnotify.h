/*
 * scnotify.h - seccomp user notification: the filter that reports its
 * refusals, and the answers the supervisor gives for it.
 *
 * The target loads the notify twin of the policy's program: the same
 * program with every refusal (ERRNO or KILL, but the ABI checks of the
 * prologue) turned into SECCOMP_RET_USER_NOTIF.  The supervisor holds the
 * listener, runs the policy's own program on each notification's
 * seccomp_data (sc_eval) and answers with exactly what the kernel would
 * have answered, so the program sees what it saw without a report.
 */
#ifndef SBX_JAIL_SCNOTIFY_H
#define SBX_JAIL_SCNOTIFY_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Newer than some <linux/seccomp.h>: wake the answered task on this CPU. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* Run PROG (one of sc_filter_build's) on D; an instruction it never emits
 * or a jump out of the program is KILL_PROCESS (fail closed). */
uint32_t sc_eval(const struct sock_fprog *prog, const struct seccomp_data *d);

/* OUT = POLICY with its refusals reported (malloc'ed; sc_filter_free).
 * -1 with errno on ENOMEM. */
int sc_filter_notify(const struct sock_fprog *policy, struct sock_fprog *out);

/* Whether the target, under POLICY, may hand its listener over (sendmsg)
 * and report a failure (write): else it would wait on a notification
 * that nobody can read yet. */
bool sc_can_pass_listener(const struct sock_fprog *policy);

/* The native name of syscall NR ("unshare"), or "syscall_NR". */
void sc_syscall_name(int nr, char *buf, size_t size);

/*
 * The argument that decided RET for D when a fixed argument rule refused
 * it (a neutral value of that argument would be answered otherwise):
 * its index and the bits that decided in *VALUE; -1 when none did.
 */
int sc_deciding_arg(const struct sock_fprog *policy, const struct seccomp_data *d,
		    uint32_t ret, uint64_t *value);

/* That argument for people: "flags=CLONE_NEWUSER", "family=AF_PACKET". */
void sc_arg_text(int nr, int arg, uint64_t value, char *buf, size_t size);

#endif
