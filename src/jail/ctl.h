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
 *                      the jail's /proc fd
 *                      (SCM_RIGHTS) if any
 *   CTL_SETUP_FAILED   errno + text          CTL_TERM  SIGTERM every jail process
 *   CTL_STARTED        target exec'd
 *   CTL_EXEC_FAILED    errno (ENOENT->127, else 126)
 *   CTL_EXITED         value = wait status of the target
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
	CTL_GO = 100,
	CTL_TERM,
};

struct ctl_msg {
	uint32_t type;
	int32_t value;     /* wait status for CTL_EXITED */
	int32_t sys_errno; /* for *_FAILED */
	char text[500];    /* NUL-terminated: the failing step, for people */
};

#endif
