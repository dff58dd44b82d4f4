/*
 * internal.h - what the files of src/jail/ share; not for other modules.
 *
 * spawn.c fills a struct jail_plan in the supervisor (the seccomp program is
 * compiled there, once), clones the init, and the init (init.c) and the
 * target (target.c) work from their copy of it: no parsing or allocation
 * is needed after the clone except for messages.
 *
 * Steps that run inside the jail return -1 with a struct sbx_err naming the
 * step ("mount /usr (bind from /usr): Permission denied"); the init sends
 * it to the supervisor as CTL_SETUP_FAILED.
 */
#ifndef SBX_JAIL_INTERNAL_H
#define SBX_JAIL_INTERNAL_H

#include <linux/filter.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "jail/ctl.h"
#include "jail/jail.h"

/* Where the new root is assembled inside the jail's mount namespace. */
#define JAIL_BUILD_DIR "/tmp"

struct jail_plan {
	const struct jail_spec *spec;
	const struct policy *policy;
	struct sock_fprog prog; /* the policy's filter, compiled before clone */
	int ctl_fd;             /* the init's end of the control socket */
	int sync_fd;            /* read end: one byte once the maps are written */
	bool host_root;         /* sbx runs as root: drop groups in the init */
	uint64_t t0_ns;         /* CLOCK_MONOTONIC at jail_spawn, for -v */
};

/* init.c: the jail's pid 1; never returns. */
__attribute__((noreturn)) void init_main(struct jail_plan *plan);

/* target.c: the pre-exec steps of the target; never returns. */
__attribute__((noreturn)) void target_main(const struct jail_plan *plan, int report_fd);

/* What the target writes on its CLOEXEC report pipe when it cannot exec. */
enum report_stage { REPORT_SETUP = 1, REPORT_EXEC = 2 };
struct target_report {
	int32_t stage;
	int32_t sys_errno;
	char text[400];
};

/* mount.c: build the root from the policy's mounts, pivot into it. */
int mount_build_root(const struct jail_plan *plan, struct sbx_err *err);

/* etc.c: write passwd, group, hosts, nsswitch.conf, ld.so.cache into
 * ETC_FD (a directory in the new root). */
int etc_synthesize(const struct jail_plan *plan, int etc_fd, struct sbx_err *err);
/* True when a mount entry targets /etc or a path below it. */
bool etc_is_mounted(const struct policy *p);

/* net.c: bring lo up in the jail's network namespace. */
int net_loopback_up(struct sbx_err *err);

/* rlimit.c: apply the policy's limits (strictest of policy and inherited);
 * RLIMIT_AS separately, as the last step before seccomp. */
int rlimit_apply(const struct policy *p, struct sbx_err *err);
int rlimit_apply_memory(const struct policy *p, struct sbx_err *err);

/* ucount.c: lower the jail's user-namespace limits (/proc/sys/user), so
 * the jail cannot use up its caller's per-user quotas; needs the init's
 * CAP_SYS_RESOURCE in the jail's user namespace. */
int ucount_limit_jail(struct sbx_err *err);

/* caps.c: drop every capability in every set and verify. */
int caps_drop_all(struct sbx_err *err);

/* spawn.c: "sbx: +0.412ms STEP" on stderr when spec->verbose. */
void jail_log(const struct jail_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t jail_now_ns(void);

#endif
