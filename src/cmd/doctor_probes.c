/*
 * doctor_probes.c - the probes of `sbx doctor`; see doctor.h.
 *
 * Each probe really tries one feature in a throw-away child (fork, try,
 * _exit with the state), never guessing from version numbers; the child
 * writes a one-line detail down a pipe.  Which checks are required and how
 * to fix a missing one is doctor.c's.
 */
#include "cmd/doctor.h"
#include "supervise/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/jail.h"

#define PROBE_TIMEOUT_S 5

/* ---------- small helpers ---------- */

void doctor_fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	text_mark_cut(buf, len, vsnprintf(buf, len, f, ap));
	va_end(ap);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* ---------- running a probe in a throw-away child ---------- */

static void probe_child(probe_fn fn, int wfd)
{
	char detail[256] = "";
	enum doctor_state st;

	alarm(PROBE_TIMEOUT_S); /* a probe that hangs must not hang doctor */
	st = fn(detail, sizeof(detail));
	if (write(wfd, detail, strlen(detail)) < 0)
		_exit(DOC_MISSING);
	_exit(st);
}

static void read_detail(int rfd, char *detail, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got + 1 < len && (n = read(rfd, detail + got, len - 1 - got)) > 0)
		got += (size_t)n;
	detail[got] = '\0';
}

static enum doctor_state probe_status(int status, char *detail, size_t len)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) <= DOC_MISSING)
		return (enum doctor_state)WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		doctor_fmt(detail, len, "probe killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	else
		doctor_fmt(detail, len, "probe exited with %d", WEXITSTATUS(status));
	return DOC_MISSING;
}

/*
 * Fail closed: only a status the kernel gave us for PID counts.  Under an
 * inherited SIGCHLD=SIG_IGN the child is auto-reaped, waitpid says ECHILD
 * and an unset status read as 0 would have been "ok" for every check.
 */
static enum doctor_state reap_probe(pid_t pid, char *detail, size_t len)
{
	int status = 0;
	pid_t got;

	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got != pid) {
		doctor_fmt(detail, len, "waitpid on the probe: %s",
		    got < 0 ? strerror(errno) : "another child");
		return DOC_MISSING;
	}
	return probe_status(status, detail, len);
}

/* Fork, run FN in the child, collect its detail and state. */
enum doctor_state probe_run(probe_fn fn, char *detail, size_t len)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		doctor_fmt(detail, len, "pipe2: %s", strerror(errno));
		return DOC_MISSING;
	}
	fflush(NULL); /* the child must not flush our buffered output twice */
	pid = fork();
	if (pid < 0) {
		doctor_fmt(detail, len, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return DOC_MISSING;
	}
	if (pid == 0) {
		close(p[0]);
		probe_child(fn, p[1]);
	}
	close(p[1]);
	read_detail(p[0], detail, len);
	close(p[0]);
	return reap_probe(pid, detail, len);
}

/* ---------- probes (each runs in a child) ---------- */

/*
 * Continue in a new user namespace (and EXTRA_FLAGS) made by clone(), the
 * syscall `sbx run` makes them with (a filter may refuse one and allow
 * unshare, or the reverse): this process waits for the clone and exits
 * with its status; the clone goes on with the probe.
 */
static int clone_into(int extra_flags, char *detail, size_t len)
{
	int status = 0;
	pid_t pid = syscall(SYS_clone, CLONE_NEWUSER | extra_flags | SIGCHLD,
			    NULL, NULL, NULL, 0);

	if (pid < 0) {
		doctor_fmt(detail, len, "clone: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		alarm(PROBE_TIMEOUT_S); /* a fork's child has no alarm of its own */
		return 0;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : DOC_MISSING);
}

/* Enter a new user namespace and map the caller to root inside it. */
static int enter_userns(int extra_flags, char *detail, size_t len)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (clone_into(extra_flags, detail, len) < 0)
		return -1;
	doctor_fmt(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0) {
		doctor_fmt(detail, len, "writing uid_map: %s", strerror(errno));
		return -1;
	}
	/* setgroups=deny before gid_map: unprivileged gid maps require it (CVE-2014-8989) */
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) {
		doctor_fmt(detail, len, "writing setgroups: %s", strerror(errno));
		return -1;
	}
	doctor_fmt(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0) {
		doctor_fmt(detail, len, "writing gid_map: %s", strerror(errno));
		return -1;
	}
	return 0;
}

enum doctor_state probe_userns(char *detail, size_t len)
{
	if (enter_userns(0, detail, len) < 0)
		return DOC_MISSING;
	return DOC_OK;
}

/* A tmpfs in a fresh mount namespace, as the jail's root is built. */
static int mount_scratch(char *detail, size_t len)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		doctor_fmt(detail, len, "making / private: %s", strerror(errno));
		return -1;
	}
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0) {
		doctor_fmt(detail, len, "mount tmpfs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

enum doctor_state probe_mount(char *detail, size_t len)
{
	if (enter_userns(CLONE_NEWNS, detail, len) < 0 || mount_scratch(detail, len) < 0)
		return DOC_MISSING;
	doctor_fmt(detail, len, "tmpfs mounted in a new mount namespace");
	return DOC_OK;
}

/* Runs as pid 1 of the new pid namespace: mount a fresh /proc. */
static int mount_proc_as_init(void)
{
	if (mkdir("/tmp/proc", 0755) < 0)
		return errno;
	if (mount("proc", "/tmp/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return errno;
	/* the new /proc must show only this namespace: we are pid 1 in it */
	if (jail_read_long("/tmp/proc/self/stat") != 1)
		return EPROTO;
	return 0;
}

enum doctor_state probe_proc(char *detail, size_t len)
{
	int e;

	/* the clone is pid 1 of the new pid namespace already */
	if (enter_userns(CLONE_NEWNS | CLONE_NEWPID, detail, len) < 0 ||
	    mount_scratch(detail, len) < 0)
		return DOC_MISSING;
	e = mount_proc_as_init();
	if (e) {
		doctor_fmt(detail, len, "mount proc in a new pid namespace: %s", strerror(e));
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "fresh /proc shows only the jail's processes");
	return DOC_OK;
}

/* sbx run refuses a /proc of another pid namespace (jail/ownproc.c). */
enum doctor_state probe_own_proc(char *detail, size_t len)
{
	struct sbx_err err = { 0 };

	if (jail_check_own_proc(&err) < 0) {
		doctor_fmt(detail, len, "%.*s", (int)strcspn(err.msg, ":"), err.msg);
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "/proc is this pid namespace's");
	return DOC_OK;
}

/* Bring lo up, as --net loopback does. */
static int loopback_up(char *detail, size_t len)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = 0;

	if (fd < 0) {
		doctor_fmt(detail, len, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr)) < 0) {
		doctor_fmt(detail, len, "bringing lo up: %s", strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

enum doctor_state probe_net(char *detail, size_t len)
{
	if (enter_userns(CLONE_NEWNET, detail, len) < 0)
		return DOC_MISSING;
	if (loopback_up(detail, len) < 0)
		return DOC_LIMITED;
	doctor_fmt(detail, len, "empty namespace; lo can be brought up");
	return DOC_OK;
}

enum doctor_state probe_other_ns(char *detail, size_t len)
{
	if (enter_userns(CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP, detail, len) < 0)
		return DOC_MISSING;
	if (sethostname("sbx", 3) < 0) {
		doctor_fmt(detail, len, "sethostname in the new uts namespace: %s", strerror(errno));
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "ipc, uts, cgroup");
	return DOC_OK;
}

/* Load a filter that makes getppid() fail with EPERM, then check it does. */
static int load_trivial_filter(char *detail, size_t len)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx) {
		doctor_fmt(detail, len, "seccomp_init failed");
		return -1;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(getppid), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		doctor_fmt(detail, len, "loading a filter: %s", strerror(-rc));
		return -1;
	}
	errno = 0;
	if (syscall(SYS_getppid) != -1 || errno != EPERM) {
		doctor_fmt(detail, len, "a loaded filter was not enforced");
		return -1;
	}
	return 0;
}

static bool action_avail(unsigned int action)
{
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

enum doctor_state probe_seccomp(char *detail, size_t len)
{
	static const struct { unsigned int act; const char *name; } acts[] = {
		{ SECCOMP_RET_KILL_PROCESS, "kill_process" },
		{ SECCOMP_RET_ERRNO, "errno" },
		{ SECCOMP_RET_USER_NOTIF, "user_notif" },
		{ SECCOMP_RET_LOG, "log" },
	};
	char missing[128] = "";
	int why = 0;
	size_t i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		doctor_fmt(detail, len, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return DOC_MISSING;
	}
	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!action_avail(acts[i].act)) {
			why = errno;
			doctor_fmt(missing + strlen(missing), sizeof(missing) - strlen(missing),
			    "%s%s", missing[0] ? "," : "", acts[i].name);
		}
	/* The kernel answers EOPNOTSUPP for an action it lacks; EPERM or ENOSYS
	 * for the query itself is a filter above sbx refusing the seccomp()
	 * call.  Filters then still load through prctl(PR_SET_SECCOMP), as
	 * run's do, but without a listener: no report of refused calls. */
	if (why == EPERM || why == ENOSYS) {
		if (load_trivial_filter(detail, len) < 0)
			return DOC_MISSING;
		doctor_fmt(detail, len, "filters load through prctl; a filter sbx runs under "
			   "refuses the seccomp() call itself (%s): no report of refused "
			   "calls (denied_syscalls is null)", strerror(why));
		return DOC_LIMITED;
	}
	if (load_trivial_filter(detail, len) < 0)
		return DOC_MISSING;
	if (missing[0]) {
		doctor_fmt(detail, len, "filters work; actions not available: %s", missing);
		/* without kill_process a SIGSYS kills one thread, not the program */
		return strstr(missing, "kill_process") || strstr(missing, "errno")
			? DOC_MISSING : DOC_LIMITED;
	}
	doctor_fmt(detail, len, "filters; kill_process, errno, user_notif, log");
	return DOC_OK;
}

enum doctor_state probe_landlock(char *detail, size_t len)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0) {
		doctor_fmt(detail, len, "%s", errno == EOPNOTSUPP ? "disabled at boot (lsm=)"
							    : strerror(errno));
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "ABI %ld", abi);
	return DOC_OK;
}

enum doctor_state probe_pidfd(char *detail, size_t len)
{
	long fd = syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0) {
		doctor_fmt(detail, len, "pidfd_open: %s", strerror(errno));
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "pidfd_open works");
	return DOC_OK;
}

enum doctor_state probe_close_range(char *detail, size_t len)
{
	/* CLOSE_RANGE_CLOEXEC is 4; it only marks, so the probe's pipe survives */
	if (syscall(SYS_close_range, 3, ~0U, 4U) < 0) {
		doctor_fmt(detail, len, "close_range: %s", strerror(errno));
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "close_range works");
	return DOC_OK;
}

enum doctor_state probe_openat2(char *detail, size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));

	if (fd < 0) {
		doctor_fmt(detail, len, "openat2: %s", strerror(errno));
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "RESOLVE_BENEATH works");
	return DOC_OK;
}

/* ---------- cgroup v2 ---------- */

/* What `sbx run` started the same way would find (supervise/cgroup.c). */
enum doctor_state probe_cgroup(char *detail, size_t len)
{
	char parent[4096], why[1024];

	/* this probe is doctor's child: doctor, started as sbx run would be
	 * (alone in a delegated scope), is there too */
	if (cgroup_probe(parent, sizeof(parent), (long)getppid(), why, sizeof(why)) != 0) {
		doctor_fmt(detail, len, "no cgroup for the run: %s", why);
		return DOC_MISSING;
	}
	doctor_fmt(detail, len, "each run gets a cgroup in %s", parent);
	return DOC_OK;
}
