/*
 * doctor.c - `sbx doctor [--json]`: what this kernel and this user allow.
 *
 * Each check really tries the feature in a throw-away child (fork, try,
 * _exit with the state), never guessing from version numbers.  The child
 * writes a one-line detail down a pipe; the parent adds the exact fix for
 * anything missing.  Exit 0 when `sbx run` with the default policy can work
 * here (every check marked `required` is ok), 1 otherwise, 125 on usage.
 */
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
#include <stdbool.h>
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

#include <cjson/cJSON.h>

#include "cmd/commands.h"
#include "jail/jail.h"

#define PROBE_TIMEOUT_S 5
#define APPARMOR_FIX \
	"load the AppArmor profile shipped with sbx: " \
	"sudo install -m 0644 contrib/apparmor/sbx /etc/apparmor.d/sbx && " \
	"sudo apparmor_parser -r /etc/apparmor.d/sbx"
#define DELEGATE_FIX \
	"run sbx in a delegated cgroup: systemd-run --user --scope -p Delegate=yes sbx run ...; " \
	"without one sbx falls back to rlimits (memory as RLIMIT_AS, no OOM evidence)"

enum state { ST_OK, ST_LIMITED, ST_MISSING };

static const char *const state_names[] = { "ok", "limited", "missing" };

struct check {
	const char *name;
	bool required; /* needed by `sbx run` with the default policy */
	enum state state;
	char detail[256];
	char fix[512];
};

/* A probe runs in the child; it fills DETAIL and returns an enum state. */
typedef enum state (*probe_fn)(char *detail, size_t len);

/* ---------- small helpers ---------- */

static void fmt(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static void fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

/* Read a small integer from a /proc file; -1 when absent or unreadable. */
static long read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
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
	enum state st;

	alarm(PROBE_TIMEOUT_S); /* a probe that hangs must not hang doctor */
	st = fn(detail, sizeof(detail));
	if (write(wfd, detail, strlen(detail)) < 0)
		_exit(ST_MISSING);
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

static enum state probe_status(int status, char *detail, size_t len)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) <= ST_MISSING)
		return (enum state)WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		fmt(detail, len, "probe killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	else
		fmt(detail, len, "probe exited with %d", WEXITSTATUS(status));
	return ST_MISSING;
}

/*
 * Fail closed: only a status the kernel gave us for PID counts.  Under an
 * inherited SIGCHLD=SIG_IGN the child is auto-reaped, waitpid says ECHILD
 * and an unset status read as 0 would have been "ok" for every check.
 */
static enum state reap_probe(pid_t pid, char *detail, size_t len)
{
	int status = 0;
	pid_t got;

	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got != pid) {
		fmt(detail, len, "waitpid on the probe: %s",
		    got < 0 ? strerror(errno) : "another child");
		return ST_MISSING;
	}
	return probe_status(status, detail, len);
}

/* Fork, run FN in the child, collect its detail and state. */
static enum state probe_run(probe_fn fn, char *detail, size_t len)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		fmt(detail, len, "pipe2: %s", strerror(errno));
		return ST_MISSING;
	}
	fflush(NULL); /* the child must not flush our buffered output twice */
	pid = fork();
	if (pid < 0) {
		fmt(detail, len, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return ST_MISSING;
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

/* Enter a new user namespace and map the caller to root inside it. */
static int enter_userns(int extra_flags, char *detail, size_t len)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | extra_flags) < 0) {
		fmt(detail, len, "unshare: %s", strerror(errno));
		return -1;
	}
	fmt(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0) {
		fmt(detail, len, "writing uid_map: %s", strerror(errno));
		return -1;
	}
	/* setgroups=deny before gid_map: unprivileged gid maps require it (CVE-2014-8989) */
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) {
		fmt(detail, len, "writing setgroups: %s", strerror(errno));
		return -1;
	}
	fmt(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0) {
		fmt(detail, len, "writing gid_map: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static enum state probe_userns(char *detail, size_t len)
{
	if (enter_userns(0, detail, len) < 0)
		return ST_MISSING;
	return ST_OK;
}

/* A tmpfs in a fresh mount namespace, as the jail's root is built. */
static int mount_scratch(char *detail, size_t len)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fmt(detail, len, "making / private: %s", strerror(errno));
		return -1;
	}
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0) {
		fmt(detail, len, "mount tmpfs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static enum state probe_mount(char *detail, size_t len)
{
	if (enter_userns(CLONE_NEWNS, detail, len) < 0 || mount_scratch(detail, len) < 0)
		return ST_MISSING;
	fmt(detail, len, "tmpfs mounted in a new mount namespace");
	return ST_OK;
}

/* Runs as pid 1 of the new pid namespace: mount a fresh /proc. */
static int mount_proc_as_init(void)
{
	if (mkdir("/tmp/proc", 0755) < 0)
		return errno;
	if (mount("proc", "/tmp/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return errno;
	/* the new /proc must show only this namespace: we are pid 1 in it */
	if (read_long("/tmp/proc/self/stat") != 1)
		return EPROTO;
	return 0;
}

static enum state probe_proc(char *detail, size_t len)
{
	int status = 0, e;
	pid_t pid;

	if (enter_userns(CLONE_NEWNS | CLONE_NEWPID, detail, len) < 0 ||
	    mount_scratch(detail, len) < 0)
		return ST_MISSING;
	pid = fork();
	if (pid < 0) {
		fmt(detail, len, "fork into the pid namespace: %s", strerror(errno));
		return ST_MISSING;
	}
	if (pid == 0)
		_exit(mount_proc_as_init());
	/* no status from the kernel (ECHILD) is a failure, not a success */
	while ((e = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (e != pid)
		e = ECHILD;
	else
		e = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
	if (e) {
		fmt(detail, len, "mount proc in a new pid namespace: %s", strerror(e));
		return ST_MISSING;
	}
	fmt(detail, len, "fresh /proc shows only the jail's processes");
	return ST_OK;
}

/* Bring lo up, as --net loopback does. */
/* sbx run refuses a /proc of another pid namespace (jail/ownproc.c). */
static enum state probe_own_proc(char *detail, size_t len)
{
	struct sbx_err err = { 0 };

	if (jail_check_own_proc(&err) < 0) {
		fmt(detail, len, "%.*s", (int)strcspn(err.msg, ":"), err.msg);
		return ST_MISSING;
	}
	fmt(detail, len, "/proc is this pid namespace's");
	return ST_OK;
}

static int loopback_up(char *detail, size_t len)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = 0;

	if (fd < 0) {
		fmt(detail, len, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr)) < 0) {
		fmt(detail, len, "bringing lo up: %s", strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

static enum state probe_net(char *detail, size_t len)
{
	if (enter_userns(CLONE_NEWNET, detail, len) < 0)
		return ST_MISSING;
	if (loopback_up(detail, len) < 0)
		return ST_LIMITED;
	fmt(detail, len, "empty namespace; lo can be brought up");
	return ST_OK;
}

static enum state probe_other_ns(char *detail, size_t len)
{
	if (enter_userns(CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP, detail, len) < 0)
		return ST_MISSING;
	if (sethostname("sbx", 3) < 0) {
		fmt(detail, len, "sethostname in the new uts namespace: %s", strerror(errno));
		return ST_MISSING;
	}
	fmt(detail, len, "ipc, uts, cgroup");
	return ST_OK;
}

/* Load a filter that makes getppid() fail with EPERM, then check it does. */
static int load_trivial_filter(char *detail, size_t len)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx) {
		fmt(detail, len, "seccomp_init failed");
		return -1;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(getppid), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		fmt(detail, len, "loading a filter: %s", strerror(-rc));
		return -1;
	}
	errno = 0;
	if (syscall(SYS_getppid) != -1 || errno != EPERM) {
		fmt(detail, len, "a loaded filter was not enforced");
		return -1;
	}
	return 0;
}

static bool action_avail(unsigned int action)
{
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

static enum state probe_seccomp(char *detail, size_t len)
{
	static const struct { unsigned int act; const char *name; } acts[] = {
		{ SECCOMP_RET_KILL_PROCESS, "kill_process" },
		{ SECCOMP_RET_ERRNO, "errno" },
		{ SECCOMP_RET_USER_NOTIF, "user_notif" },
		{ SECCOMP_RET_LOG, "log" },
	};
	char missing[128] = "";
	size_t i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		fmt(detail, len, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
		return ST_MISSING;
	}
	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!action_avail(acts[i].act))
			fmt(missing + strlen(missing), sizeof(missing) - strlen(missing),
			    "%s%s", missing[0] ? "," : "", acts[i].name);
	if (load_trivial_filter(detail, len) < 0)
		return ST_MISSING;
	if (missing[0]) {
		fmt(detail, len, "filters work; actions not available: %s", missing);
		/* without kill_process a SIGSYS kills one thread, not the program */
		return strstr(missing, "kill_process") || strstr(missing, "errno")
			? ST_MISSING : ST_LIMITED;
	}
	fmt(detail, len, "filters; kill_process, errno, user_notif, log");
	return ST_OK;
}

static enum state probe_landlock(char *detail, size_t len)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0) {
		fmt(detail, len, "%s", errno == EOPNOTSUPP ? "disabled at boot (lsm=)"
							    : strerror(errno));
		return ST_MISSING;
	}
	fmt(detail, len, "ABI %ld", abi);
	return ST_OK;
}

static enum state probe_pidfd(char *detail, size_t len)
{
	long fd = syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0) {
		fmt(detail, len, "pidfd_open: %s", strerror(errno));
		return ST_MISSING;
	}
	fmt(detail, len, "pidfd_open works");
	return ST_OK;
}

static enum state probe_close_range(char *detail, size_t len)
{
	/* CLOSE_RANGE_CLOEXEC is 4; it only marks, so the probe's pipe survives */
	if (syscall(SYS_close_range, 3, ~0U, 4U) < 0) {
		fmt(detail, len, "close_range: %s", strerror(errno));
		return ST_MISSING;
	}
	fmt(detail, len, "close_range works");
	return ST_OK;
}

static enum state probe_openat2(char *detail, size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));

	if (fd < 0) {
		fmt(detail, len, "openat2: %s", strerror(errno));
		return ST_MISSING;
	}
	fmt(detail, len, "RESOLVE_BENEATH works");
	return ST_OK;
}

/* ---------- cgroup v2 ---------- */

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* The caller's cgroup v2 path from the `0::` line of /proc/self/cgroup. */
static int own_cgroup(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			fmt(out, len, "%s", line + 3);
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

static void read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");

	out[0] = '\0';
	if (!f)
		return;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/* Try to create (and remove) a child cgroup where sbx would put the jail. */
static int try_mkdir_cgroup(const char *dir)
{
	char path[4200];

	fmt(path, sizeof(path), "%s/sbx-doctor-%d", dir, (int)getpid());
	if (mkdir(path, 0755) < 0)
		return -1;
	rmdir(path);
	return 0;
}

static enum state cgroup_in(const char *dir, const char *layout, char *detail, size_t len)
{
	char ctrl[256], f1[4200], f2[4200];

	fmt(f1, sizeof(f1), "%s/cgroup.subtree_control", dir);
	fmt(f2, sizeof(f2), "%s/cgroup.procs", dir);
	if (access(f1, W_OK) < 0 || access(f2, W_OK) < 0 || try_mkdir_cgroup(dir) < 0) {
		fmt(detail, len, "%s; %s is not delegated to this user", layout, dir);
		return ST_MISSING;
	}
	fmt(f1, sizeof(f1), "%s/cgroup.controllers", dir);
	read_line(f1, ctrl, sizeof(ctrl));
	if (!strstr(ctrl, "memory") || !strstr(ctrl, "pids")) {
		fmt(detail, len, "%s; %s writable but controllers are [%s], need memory and pids",
		    layout, dir, ctrl);
		return ST_LIMITED;
	}
	fmt(detail, len, "%s; delegated %s [%s]", layout, dir, ctrl);
	return ST_OK;
}

static enum state probe_cgroup(char *detail, size_t len)
{
	const char *mnt = "/sys/fs/cgroup", *layout = "unified (v2 only)";
	char rel[4096], dir[4200];

	if (!is_cgroup2(mnt)) {
		mnt = "/sys/fs/cgroup/unified";
		layout = "hybrid (v1 controllers, v2 at /sys/fs/cgroup/unified)";
		if (!is_cgroup2(mnt)) {
			fmt(detail, len, "no cgroup2 mounted (v1 only)");
			return ST_MISSING;
		}
	}
	if (own_cgroup(rel, sizeof(rel)) < 0) {
		fmt(detail, len, "%s; no 0:: line in /proc/self/cgroup", layout);
		return ST_MISSING;
	}
	fmt(dir, sizeof(dir), "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel);
	return cgroup_in(dir, layout, detail, len);
}

/* ---------- the checks and their fixes ---------- */

static void fix_userns(struct check *c)
{
	long max = read_long("/proc/sys/user/max_user_namespaces");
	long clone = read_long("/proc/sys/kernel/unprivileged_userns_clone");
	long aa = read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	char extra[200] = "";

	if (max >= 0)
		fmt(extra, sizeof(extra), "max %ld", max);
	if (clone >= 0)
		fmt(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    "%sunprivileged_userns_clone=%ld", extra[0] ? ", " : "", clone);
	if (aa >= 0)
		fmt(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    "%sapparmor_restrict_unprivileged_userns=%ld", extra[0] ? ", " : "", aa);
	if (c->state == ST_OK) {
		fmt(c->detail, sizeof(c->detail), "%s", extra);
		return;
	}
	fmt(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
	    "%s%s", extra[0] ? "; " : "", extra);
	if (max == 0)
		fmt(c->fix, sizeof(c->fix), "sudo sysctl -w user.max_user_namespaces=15000");
	else if (clone == 0)
		fmt(c->fix, sizeof(c->fix), "sudo sysctl -w kernel.unprivileged_userns_clone=1");
	else if (aa == 1)
		fmt(c->fix, sizeof(c->fix), APPARMOR_FIX);
	else if (strstr(c->detail, strerror(ENOSPC)))
		fmt(c->fix, sizeof(c->fix), "the user-namespace count limit is reached "
		    "(user.max_user_namespaces here, or a parent sandbox such as "
		    "bwrap --disable-userns): run sbx outside that sandbox, or "
		    "sudo sysctl -w user.max_user_namespaces=15000");
	else
		fmt(c->fix, sizeof(c->fix), "the kernel or a container runtime's seccomp "
		    "profile refuses unshare(CLONE_NEWUSER): run sbx on the host, or allow "
		    "unshare in the container's seccomp profile");
}

/* Mount/proc/net failing with userns working: usually AppArmor on Ubuntu. */
static void fix_inside_userns(struct check *c)
{
	if (c->state == ST_OK)
		return;
	if (read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		fmt(c->fix, sizeof(c->fix), APPARMOR_FIX);
	else if (!strcmp(c->name, "own /proc"))
		fmt(c->fix, sizeof(c->fix), "mount a proc for sbx's pid namespace: "
		    "unshare --pid --fork --mount-proc, bwrap --unshare-pid --proc /proc, "
		    "or mount -t proc proc /proc in a new mount namespace");
	else if (!strcmp(c->name, "pid namespace+proc"))
		fmt(c->fix, sizeof(c->fix), "a fully visible /proc is needed to mount a new "
		    "one: in a container, run sbx on the host or unmask /proc "
		    "(docker --security-opt systempaths=unconfined)");
	else
		fmt(c->fix, sizeof(c->fix), "the kernel refused this inside a user namespace: "
		    "if sbx runs in a container, run it on the host or relax the container's "
		    "profiles (docker --security-opt seccomp=unconfined "
		    "--security-opt apparmor=unconfined)");
}

static void fix_seccomp(struct check *c)
{
	long mode;

	if (c->state != ST_OK)
		fmt(c->fix, sizeof(c->fix), "a kernel built with CONFIG_SECCOMP_FILTER "
		    "(Linux >= 4.14 for kill_process) is required; sbx will not run "
		    "without a filter");
	mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	if (mode == 2)
		fmt(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
		    "; sbx is already under a filter (container?), sbx's stacks on it");
}

static void fix_optional(struct check *c)
{
	if (c->state == ST_OK)
		return;
	if (!strcmp(c->name, "cgroup v2"))
		fmt(c->fix, sizeof(c->fix), DELEGATE_FIX);
	else if (!strcmp(c->name, "landlock"))
		fmt(c->fix, sizeof(c->fix), "optional: boot with lsm=...,landlock "
		    "(Linux >= 5.13); sbx does not need it");
	else
		fmt(c->fix, sizeof(c->fix), "optional: Linux >= 5.6 has it; sbx falls "
		    "back to slower portable code");
}

struct check_def {
	const char *name;
	bool required;
	probe_fn probe;
	void (*fix)(struct check *c);
};

/* "user namespaces" must stay first: the namespace checks depend on it. */
static const struct check_def check_defs[] = {
	{ "user namespaces", true, probe_userns, fix_userns },
	{ "mount namespace", true, probe_mount, fix_inside_userns },
	{ "pid namespace+proc", true, probe_proc, fix_inside_userns },
	{ "own /proc", true, probe_own_proc, fix_inside_userns },
	{ "network namespace", true, probe_net, fix_inside_userns },
	{ "ipc/uts/cgroup ns", true, probe_other_ns, fix_inside_userns },
	{ "seccomp", true, probe_seccomp, fix_seccomp },
	{ "cgroup v2", false, probe_cgroup, fix_optional },
	{ "landlock", false, probe_landlock, fix_optional },
	{ "pidfd_open", false, probe_pidfd, fix_optional },
	{ "close_range", false, probe_close_range, fix_optional },
	{ "openat2", false, probe_openat2, fix_optional },
};

#define NCHECKS (sizeof(check_defs) / sizeof(check_defs[0]))

static bool run_checks(struct check *checks)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < NCHECKS; i++) {
		struct check *c = &checks[i];

		c->name = check_defs[i].name;
		c->required = check_defs[i].required;
		c->state = probe_run(check_defs[i].probe, c->detail, sizeof(c->detail));
		if (check_defs[i].fix == fix_inside_userns && c->state != ST_OK &&
		    checks[0].state != ST_OK)
			fmt(c->fix, sizeof(c->fix), "needs user namespaces: fix that first");
		else
			check_defs[i].fix(c);
		if (c->required && c->state != ST_OK)
			ok = false;
	}
	return ok;
}

/* ---------- output ---------- */

static void print_text(const struct check *checks, bool ok)
{
	size_t i;

	for (i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];

		printf("%-20s %-8s%s%s%s\n", c->name, state_names[c->state],
		       c->detail[0] ? "(" : "", c->detail, c->detail[0] ? ")" : "");
		if (c->fix[0])
			printf("%-20s fix: %s\n", "", c->fix);
	}
	printf("\n%s\n", ok ? "sbx run can work here with the default policy."
			   : "sbx run cannot work here with the default policy: "
			     "fix the required checks above.");
}

static cJSON *check_json(const struct check *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "state", state_names[c->state]);
	cJSON_AddStringToObject(o, "detail", c->detail);
	if (c->fix[0])
		cJSON_AddStringToObject(o, "fix", c->fix);
	else
		cJSON_AddNullToObject(o, "fix");
	cJSON_AddBoolToObject(o, "required", c->required);
	return o;
}

static int print_json(const struct check *checks, bool ok)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "checks");
	char *text;
	size_t i;

	for (i = 0; i < NCHECKS; i++)
		cJSON_AddItemToArray(arr, check_json(&checks[i]));
	cJSON_AddBoolToObject(root, "ok", ok);
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!text) {
		fprintf(stderr, "sbx doctor: out of memory\n");
		return -1;
	}
	puts(text);
	cJSON_free(text);
	return 0;
}

static void doctor_usage(FILE *to)
{
	fputs("usage: sbx doctor [--json]\n"
	      "Check what this kernel and user allow; each check says ok, limited or\n"
	      "missing and, when missing, how to fix it.  Exit 0 when `sbx run` with\n"
	      "the default policy can work here, 1 otherwise.\n", to);
}

int cmd_doctor(int argc, char **argv)
{
	struct check checks[NCHECKS];
	bool json = false, ok;
	int i;

	/* argv[0] is "doctor" when main passes the subcommand's own argv */
	for (i = 0; i < argc; i++) {
		if (i == 0 && !strcmp(argv[i], "doctor"))
			continue;
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			doctor_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "sbx doctor: unknown argument '%s'\n", argv[i]);
			doctor_usage(stderr);
			return 125;
		}
	}
	memset(checks, 0, sizeof(checks));
	ok = run_checks(checks);
	if (json ? print_json(checks, ok) < 0 : (print_text(checks, ok), 0))
		return 125;
	/* an answer nobody could read is no "ok": a script must not see exit 0 */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sbx doctor: writing the report failed: %s\n", strerror(errno));
		return 125;
	}
	return ok ? 0 : 1;
}
