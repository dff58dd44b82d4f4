/*
 * diagnose.c - after the jail's clone() failed: which namespace refused,
 * which mechanism refused it, and the one fix that works there.
 *
 * One errno covers many causes (EPERM: a seccomp filter, the Debian
 * sysctl, an unmapped uid; ENOSPC: any of seven per-namespace counts), so
 * the message is found by experiment: clone() with CLONE_NEWUSER alone,
 * then with each other namespace flag, each in a child that exits at once
 * (the same syscall the jail uses), unshare() for comparison, and the
 * signs of the surrounding sandbox (/.dockerenv, /run/.containerenv, the
 * seccomp mode in /proc/self/status, an sbx-init as pid 1, the sysctls).
 * Nothing here changes the host; the verdict is the message of run's
 * setup error and of doctor's "jail" check alike.
 */
#include "jail/internal.h"
#include "base/ids.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct ns_kind {
	int flag;
	const char *name;   /* as the record names it */
	const char *count;  /* its /proc/sys/user limit */
	const char *config; /* the kernel option */
} ns_kinds[] = {
	{ CLONE_NEWUSER, "user", "max_user_namespaces", "CONFIG_USER_NS" },
	{ CLONE_NEWNS, "mount", "max_mnt_namespaces", "CONFIG_NAMESPACES" },
	{ CLONE_NEWPID, "pid", "max_pid_namespaces", "CONFIG_PID_NS" },
	{ CLONE_NEWNET, "net", "max_net_namespaces", "CONFIG_NET_NS" },
	{ CLONE_NEWIPC, "ipc", "max_ipc_namespaces", "CONFIG_IPC_NS" },
	{ CLONE_NEWUTS, "uts", "max_uts_namespaces", "CONFIG_UTS_NS" },
	{ CLONE_NEWCGROUP, "cgroup", "max_cgroup_namespaces", "CONFIG_CGROUPS" },
};

/* Every call sbx builds the jail with that a container profile may refuse:
 * the namespace calls, the old mount calls, the new mount API and the
 * jail's hostname. */
#define SECCOMP_FIX \
	"allow the calls sbx builds the jail with in the container's seccomp profile: " \
	"docker/podman run --security-opt seccomp=contrib/engines/seccomp-sbx.json (or " \
	"add {\"names\":[\"clone\",\"unshare\",\"setns\",\"mount\",\"umount2\"," \
	"\"pivot_root\",\"open_tree\",\"move_mount\",\"fsopen\",\"fsconfig\",\"fsmount\"," \
	"\"mount_setattr\",\"sethostname\"],\"action\":\"SCMP_ACT_ALLOW\"} to yours, and " \
	"drop those calls from its rules that refuse them); Kubernetes: " \
	"securityContext.seccompProfile {type: Localhost, localhostProfile: sbx.json} " \
	"(contrib/engines/kubernetes-job.yaml); or run sbx on the host"
#define APPARMOR_FIX \
	"on Ubuntu >= 23.10 'sysctl kernel.apparmor_restrict_unprivileged_userns=1' " \
	"confines user namespaces: load sbx's profile (sudo install -m 0644 " \
	"contrib/apparmor/sbx /etc/apparmor.d/sbx && sudo apparmor_parser -r " \
	"/etc/apparmor.d/sbx)"

/* clone(FLAGS) in a child that exits at once: 0 or the errno. */
static int try_clone(int flags)
{
	pid_t pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* unshare(FLAGS) in a forked child: 0, its errno, or -1 (no fork). */
static int try_unshare(int flags)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(flags) < 0 ? errno & 0x7f : 0);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

long jail_read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* The Seccomp: line of /proc/self/status (0 none, 2 filter), -1 unknown. */
int jail_seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	if (f)
		fclose(f);
	return mode;
}

/* Which sandbox sbx is in, as a phrase ("in a Docker container"), or "". */
static const char *surroundings(void)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/1/comm", "re");

	if (f && !fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	if (f)
		fclose(f);
	if (!strncmp(comm, "sbx-init", 8))
		return " inside another sbx jail (which refuses namespaces by design)";
	if (getenv("KUBERNETES_SERVICE_HOST"))
		return " in a Kubernetes pod";
	if (access("/.dockerenv", F_OK) == 0)
		return " in a Docker container";
	if (access("/run/.containerenv", F_OK) == 0)
		return " in a podman container";
	if (jail_seccomp_mode() == 2)
		return " under a seccomp filter (a container runtime or a sandbox)";
	return "";
}

/* Only the user namespace: the caller, its host or its sandbox refuses it. */
static int user_refused(int e, struct sbx_err *err)
{
	const char *where = surroundings();
	long max = jail_read_long("/proc/sys/user/max_user_namespaces");
	int un = try_unshare(CLONE_NEWUSER);

	if (!strncmp(where, " inside another sbx", 19))
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: sbx runs%s: "
			       "run it outside the jail", strerror(e), where);
	if (e == EPERM && jail_read_long("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: unprivileged "
			       "user namespaces are disabled: sudo sysctl -w "
			       "kernel.unprivileged_userns_clone=1", strerror(e));
	if (e == EPERM && geteuid() == SBX_NOBODY_ID && !ids_host_root())
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: your uid is "
			       "not mapped in the user namespace sbx runs in (it shows as "
			       "65534): map it there (unshare --map-current-user, or a "
			       "uid_map line for it)", strerror(e));
	if (e == EPERM && jail_seccomp_mode() == 2)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: a seccomp "
			       "filter refuses new namespaces (sbx runs%s; unshare() %s): %s",
			       strerror(e), where, un == 0 ? "is allowed, clone() is not"
			       : "is refused too", SECCOMP_FIX);
	if (e == ENOSPC && max == 0)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: "
			       "user.max_user_namespaces is 0 here: sudo sysctl -w "
			       "user.max_user_namespaces=15000", strerror(e));
	if (e == ENOSPC)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: the count of "
			       "user namespaces is used up here or in a parent sandbox (bwrap "
			       "--disable-userns, a container): raise user.max_user_namespaces "
			       "where it was lowered, or run sbx outside that sandbox", strerror(e));
	if (e == EUSERS)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: user namespaces "
			       "are nested 32 deep already (the kernel's limit): run sbx fewer "
			       "sandboxes deep", strerror(e));
	if (e == EINVAL)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: this kernel has "
			       "no user namespaces (CONFIG_USER_NS): use a kernel built with it",
			       strerror(e));
	if (e == EPERM && jail_read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: %s",
			       strerror(e), APPARMOR_FIX);
	return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER): %s: the kernel or a "
		       "security module refuses user namespaces%s (is sbx chrooted? chroot "
		       "forbids them); 'sbx doctor' shows the details", strerror(e), where);
}

/* The user namespace works but NS with it does not. */
static int other_refused(const struct ns_kind *ns, int e, struct sbx_err *err)
{
	char path[64];
	long max;

	snprintf(path, sizeof(path), "/proc/sys/user/%s", ns->count);
	max = jail_read_long(path);
	if (e == ENOSPC)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER|%s namespace): %s: "
			       "the %s namespace count is used up (user.%s is %ld in this or "
			       "a parent user namespace): sudo sysctl -w user.%s=15000 where "
			       "it was lowered", ns->name, strerror(e), ns->name, ns->count,
			       max, ns->count);
	if (e == EINVAL)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER|%s namespace): %s: "
			       "this kernel has no %s namespaces (%s)", ns->name,
			       strerror(e), ns->name, ns->config);
	if (e == EPERM && jail_seccomp_mode() == 2)
		return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER|%s namespace): %s: "
			       "a seccomp filter refuses it (sbx runs%s): %s", ns->name,
			       strerror(e), surroundings(), SECCOMP_FIX);
	return err_set(err, ERR_SETUP, e, "clone(CLONE_NEWUSER|%s namespace): %s: the "
		       "kernel or a security module refuses %s namespaces inside a user "
		       "namespace%s", ns->name, strerror(e), ns->name, surroundings());
}

/*
 * The mount calls the jail is built with, each made with arguments the
 * kernel rejects on its own before it looks at any permission (a bad
 * flag, an empty path, a bad descriptor: EINVAL, ENOENT, EBADF).  EPERM
 * or ENOSYS back is then a seccomp filter's answer, not the kernel's.
 * Run in the jail's init, which holds CAP_SYS_ADMIN over its mount
 * namespace (pivot_root, fsopen and fsmount check that first).
 */
static const char *const mount_calls[] = {
	"mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig",
	"fsmount", "mount_setattr",
};

static long probe_mount_call(size_t i)
{
	switch (i) {
	case 0: return syscall(SYS_mount, NULL, "", NULL, 0UL, NULL);
	case 1: return syscall(SYS_umount2, "", ~0);
	case 2: return syscall(SYS_pivot_root, "", "");
	case 3: return syscall(SYS_open_tree, -1, "", ~0U);
	case 4: return syscall(SYS_move_mount, -1, "", -1, "", ~0U);
	case 5: return syscall(SYS_fsopen, NULL, ~0U);
	case 6: return syscall(SYS_fsconfig, -1, ~0U, NULL, NULL, 0);
	case 7: return syscall(SYS_fsmount, -1, ~0U, 0U);
	default: return syscall(SYS_mount_setattr, -1, "", ~0U, NULL, 0UL);
	}
}

const char *jail_mount_refusal(int e)
{
	static char text[2048];
	char calls[256] = "";
	size_t n = 0;
	int saved = errno;

	if ((e != EPERM && e != ENOSYS) || jail_seccomp_mode() != 2)
		return NULL;
	for (size_t i = 0; i < sizeof(mount_calls) / sizeof(mount_calls[0]); i++) {
		errno = 0;
		if (probe_mount_call(i) < 0 && errno == e && n < sizeof(calls))
			n += snprintf(calls + n, sizeof(calls) - n, "%s%s", n ? ", " : "",
				      mount_calls[i]);
	}
	errno = saved;
	if (!n)
		return NULL;
	snprintf(text, sizeof(text), "a seccomp filter sbx runs under answers %s for %s "
		 "(sbx runs%s%s): %s", e == EPERM ? "EPERM" : "ENOSYS", calls, surroundings(),
		 e == ENOSYS ? "; this kernel has the calls: a profile older than a call "
		 "answers ENOSYS for it" : "", SECCOMP_FIX);
	return text;
}

/* sethostname(NULL, 65): past the capability check the kernel refuses the
 * length (EINVAL); a filter answers before it looks.  The init holds
 * CAP_SYS_ADMIN over its own uts namespace, so the kernel's EPERM for a
 * missing capability cannot be the probe's answer there. */
const char *jail_hostname_refusal(int e)
{
	static char text[2048];
	int saved = errno;
	long rc;

	if ((e != EPERM && e != ENOSYS) || jail_seccomp_mode() != 2)
		return NULL;
	errno = 0;
	rc = syscall(SYS_sethostname, NULL, 65);
	if (rc == 0 || errno != e) {
		errno = saved;
		return NULL;
	}
	errno = saved;
	snprintf(text, sizeof(text), "a seccomp filter sbx runs under answers %s for "
		 "sethostname (sbx runs%s): %s", e == EPERM ? "EPERM" : "ENOSYS",
		 surroundings(), SECCOMP_FIX);
	return text;
}

/* Whether a mount covers a part of /proc: a container runtime's masks
 * (/dev/null on /proc/kcore) and read-only binds (/proc/sys).  Not
 * binfmt_misc, on an empty directory the kernel lets a new proc pass. */
static bool proc_covered(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mp[4096];
	bool covered = false;

	while (f && !covered && fgets(line, sizeof(line), f))
		covered = sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 &&
			  !strncmp(mp, "/proc/", 6) &&
			  strcmp(mp, "/proc/sys/fs/binfmt_misc") != 0;
	if (f)
		fclose(f);
	return covered;
}

const char *jail_proc_refusal(int e)
{
	static char text[2048];
	int saved = errno;

	if (e != EROFS && (e != EPERM || !proc_covered())) {
		errno = saved;
		return NULL;
	}
	errno = saved;
	snprintf(text, sizeof(text), "%s (sbx runs%s), and the kernel makes a new proc "
		 "only where all of /proc is visible: run the container with /proc "
		 "unmasked: docker run --security-opt systempaths=unconfined, podman run "
		 "--security-opt unmask=ALL, Kubernetes securityContext.procMount: Unmasked "
		 "(with hostUsers: false)", e == EROFS ? "/proc/sys is read-only here"
		 : "parts of /proc are masked or read-only here", surroundings());
	return text;
}

/* Every capability dropped from the bounding set of the process that made
 * the jail's user namespace.  The init, born into that namespace with a
 * full set, cannot see it: the supervisor looks before the clone
 * (jail_note_bounding_set) and the init inherits the answer. */
static bool bounding_set_was_empty;

static bool bounding_set_empty(void)
{
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			return false;
	return true;
}

void jail_note_bounding_set(void)
{
	bounding_set_was_empty = bounding_set_empty();
}

const char *jail_map_refusal(int e)
{
	if (e == EPERM && (bounding_set_was_empty || bounding_set_empty()))
		return "sbx runs with an empty capability bounding set (bwrap --uid 0 "
		       "without --cap-add, or a runtime that drops every capability from "
		       "it), and a user namespace made from there cannot map its ids: in "
		       "bwrap, leave out --uid 0 (your own uid works) or add --cap-add ALL "
		       "(it gives nothing outside bwrap's user namespace)";
	return NULL;
}

int jail_diagnose_clone(int flags, int e, struct sbx_err *err)
{
	int eu = try_clone(CLONE_NEWUSER), again;

	if (eu == EAGAIN || e == EAGAIN)
		return err_resource(err, "clone", EAGAIN);
	if (eu)
		return user_refused(eu, err);
	for (size_t i = 1; i < sizeof(ns_kinds) / sizeof(ns_kinds[0]); i++) {
		int en;

		if (!(flags & ns_kinds[i].flag))
			continue;
		en = try_clone(CLONE_NEWUSER | ns_kinds[i].flag);
		if (en)
			return other_refused(&ns_kinds[i], en, err);
	}
	again = try_clone(flags & ~CLONE_PIDFD);
	err_set(err, ERR_SETUP, e, "clone (new namespaces): %s; each namespace on its own "
		"%s: %s", strerror(e), again ? "works, only all together fail" : "works now",
		again ? "'sbx doctor' shows the details" : "retry");
	err->retryable = again == 0;
	return -1;
}
