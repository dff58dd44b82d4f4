/*
 * scarch.h - what the seccomp filter needs to know of the architecture sbx
 * is built for: the audit value of its native ABI (the only one a jail may
 * call through), libseccomp's token for its syscall table, and whether it
 * has a second ABI sharing that audit value (x86_64's x32).  Any other ABI
 * the CPU can run (i386 on x86_64, AArch32 on aarch64) carries another
 * audit value, and the filter's first instruction kills it.
 *
 * Only the architectures whose filter was built and tested are listed: on
 * any other the numbers, argument layouts and legacy calls are unknown, and
 * a filter guessed for them could refuse nothing, or kill every jail.
 */
#ifndef SBX_JAIL_SCARCH_H
#define SBX_JAIL_SCARCH_H

#include <linux/audit.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define SC_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SC_SCMP_ARCH SCMP_ARCH_X86_64
#define SC_ARCH_NAME "x86_64"
/* x32 calls carry x86_64's audit value, with this bit set in the number */
#define SC_X32_SYSCALL_BIT 0x40000000
#define SC_HAS_X32 1
#elif defined(__aarch64__) && !defined(__ILP32__)
#define SC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define SC_SCMP_ARCH SCMP_ARCH_AARCH64
#define SC_ARCH_NAME "aarch64"
#define SC_HAS_X32 0
#else
#error "sbx supports x86_64 and aarch64 (64-bit ABIs) only: its seccomp filter names each architecture's system calls and foreign ABIs (src/jail/scarch.h); porting it means adding this architecture there and proving the filter on it"
#endif

#endif
