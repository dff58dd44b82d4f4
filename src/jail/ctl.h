/*
 * ctl.h - the control protocol between the supervisor and the jail's init.
 *
 * One SOCK_SEQPACKET socketpair; each message is one struct ctl_msg.  The
 * init's end is closed in the target before exec, so the program cannot
 * speak on it.  The supervisor still treats every field as untrusted input
 * to bound (type checked, text NUL-terminated) although only the init
 * writes it.
 *
 *   init -> supervisor                      supervisor -> init
 *   CTL_READY          root built; carries   CTL_GO    fork+exec the target
 *                      the jail's /proc fd,
 *                      a sock_diag socket in
 *                      its netns, with -i the
 *                      master of the program's
 *                      pty, its tmpfs roots
 *                      (SCM_RIGHTS) if any;
 *                      value = 1 + index of the
 *                      workspace tmpfs among
 *                      them, 0 = none
 *   CTL_SETUP_FAILED   errno + text          CTL_TERM  SIGTERM every jail process
 *   CTL_STARTED        target exec'd     CTL_STOP  SIGSTOP every jail process
 *                                         CTL_CONT  SIGCONT every jail process
 *                                                   (the caller's Ctrl-Z, fg)
 *                                         CTL_HELD  value = ms the caller's stop
 *                                                   held the jail (sent before
 *                                                   its release)
 *   CTL_EXEC_FAILED    errno (ENOENT->127, else 126)
 *   CTL_EXITED         value = wait status of the target,
 *                      sys_errno = kernel evidence (CTL_EV_* bits)
 *   CTL_LISTENER       sent by the target, after its filter is loaded and
 *                      before exec, on its inherited copy of the init's
 *                      end (CLOEXEC, so the program never has it): value 1
 *                      with the filter's seccomp listener (SCM_RIGHTS), or
 *                      0 and sys_errno = why the kernel gave none
 *   CTL_STARTED's value is the target's pid in the jail.
 */
#ifndef SBX_CTL_H
#define SBX_CTL_H

#include <stdint.h>

enum ctl_type {
	CTL_READY = 1,
	CTL_SETUP_FAILED,
	CTL_STARTED,
	CTL_EXEC_FAILED,
	CTL_EXITED,
	CTL_LISTENER,
	CTL_GO = 100,
	CTL_TERM,
	CTL_STOP,
	CTL_CONT,
	CTL_HELD,
};

/* CTL_EXITED evidence, from the target's zombie: the kernel marked its
 * seccomp mode dead, i.e. the filter killed it (a SIGSYS from kill(2) does
 * not); its CPU as the kernel counts it reached RLIMIT_CPU's soft limit
 * (so its SIGXCPU was the kernel's). */
#define CTL_EV_SECCOMP_KILL 1
#define CTL_EV_CPU_RLIMIT 2
/* The init ended the jail at its own wall bound (the supervisor had not:
 * it was stopped). */
#define CTL_EV_WALL_BOUND 4

/* Most descriptors CTL_READY carries: /proc, sock_diag, the workspace,
 * the pty master (-i), 14 tmpfs roots. */
#define CTL_MAX_FDS 18

struct ctl_msg {
	uint32_t type;
	int32_t value;     /* wait status for CTL_EXITED */
	int32_t sys_errno; /* for *_FAILED; CTL_EV_* bits for CTL_EXITED */
	int64_t cpu_ns;    /* CTL_EXITED: the target's CPU as the kernel counts
			    * it (ticks, RLIMIT_CPU's clock), -1 = unknown */
	int32_t procs;     /* CTL_EXITED: the jail's processes as the target
			    * ended, the init included, -1 = unknown */
	char text[1024];   /* NUL-terminated: the failing step, for people; as
			    * long as an error's text (struct sbx_err) */
};

#endif
