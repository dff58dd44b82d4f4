/*
 * sbx-sim.c - put sbx in one of the environments where jail runners
 * break, then exec it: the integration suite's simulations (test_hosts.c).
 *
 *   sbx-sim [SETTING...] -- PROGRAM [ARG...]
 *
 *   --seccomp docker   a filter like Docker's default profile: EPERM for
 *                      unshare, setns, mount, umount2, pivot_root, the
 *                      keyrings, bpf and clone with a namespace flag;
 *                      ENOSYS for clone3
 *   --seccomp unshare  only unshare refused (EPERM)
 *   --seccomp clone    only clone with a namespace flag refused (EPERM)
 *   --seccomp seccomp  only the seccomp() call refused (EPERM): a filter can
 *                      still be loaded with prctl, without a listener
 *   --seccomp newmount ENOSYS for the new mount API (open_tree, move_mount,
 *                      fsopen, fsconfig, fsmount, fspick, mount_setattr), as
 *                      a runtime's profile older than those calls answers
 *   --seccomp pivot_root  only pivot_root refused (EPERM)
 *   --seccomp open_tree   only open_tree refused (EPERM)
 *   --seccomp sethostname only sethostname refused (EPERM), as podman's
 *                      default profile does without CAP_SYS_ADMIN
 *   --userns           a user namespace that maps only the caller, as uid 0
 *                      (unshare -Ur, rootless containers)
 *   --no-caps          --userns, then every capability dropped from the
 *                      bounding set, as bwrap --uid 0 without --cap-add
 *   --unmapped         a user namespace with no uid/gid map: the caller's uid
 *                      is unmapped there (shows as 65534)
 *   --max NAME         --userns, then /proc/sys/user/NAME = 0 in it (a
 *                      per-user-namespace limit: the host is untouched)
 *   --no-proc          an empty tmpfs over /proc (private mount namespace)
 *   --proc-masked      /proc as container runtimes leave it by default:
 *                      /dev/null over /proc/kcore (or another file runtimes
 *                      mask), /proc/sys bound read-only
 *   --proc-masked-rw   only that file masked
 *   --tmp-full         a full temporary directory: a 64 KiB tmpfs, filled,
 *                      as TMPDIR (sbx's only use of /tmp is as the default
 *                      TMPDIR; mounted on /mnt, since over /tmp it would hide
 *                      a build tree under /tmp, sbx and the record's path)
 *   --tmp-ro           the same, read-only
 *   --close-stdio      fds 0, 1 and 2 closed
 *   --sigchld-ign      SIGCHLD ignored
 *   --nofile N         RLIMIT_NOFILE N
 *   --nproc N          RLIMIT_NPROC N
 *
 * The mount settings use a private mount namespace (and, unless root, a
 * user namespace).  Exit 99 (with a message) when a setting cannot be
 * made here, so that a test can SKIP with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#define SIM_TMP "/mnt"

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		  CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

static void cannot(const char *what)
{
	fprintf(stderr, "sbx-sim: %s: %s\n", what, strerror(errno));
	exit(99);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		cannot(path);
	close(fd);
}

static void enter_userns(void)
{
	char map[64];
	unsigned uid = geteuid(), gid = getegid();

	if (unshare(CLONE_NEWUSER) < 0)
		cannot("unshare(CLONE_NEWUSER)");
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_file("/proc/self/gid_map", map);
}

static void private_mounts(void)
{
	if (geteuid() != 0)
		enter_userns();
	if (unshare(CLONE_NEWNS) < 0)
		cannot("unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		cannot("making / private");
}

/* /dev/null over the first of the files runtimes mask that this kernel has */
static void mask_proc_file(void)
{
	static const char *const files[] = { "/proc/kcore", "/proc/keys", "/proc/timer_list",
		"/proc/sysrq-trigger", NULL };

	for (const char *const *f = files; *f; f++)
		if (access(*f, F_OK) == 0) {
			if (mount("/dev/null", *f, NULL, MS_BIND, NULL) < 0)
				cannot("binding /dev/null over a /proc file");
			return;
		}
	cannot("finding a /proc file to mask");
}

static void fill_tmp(void)
{
	char buf[4096];
	int fd = open(SIM_TMP "/fill", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	memset(buf, 'x', sizeof(buf));
	if (fd < 0)
		cannot(SIM_TMP "/fill");
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void rule(scmp_filter_ctx ctx, int err, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0) < 0)
		cannot(name);
}

/* clone with any namespace flag: one masked rule per flag (rules OR). */
static void clone_ns_rule(scmp_filter_ctx ctx)
{
	for (unsigned bit = 0; bit < 32; bit++)
		if ((NS_FLAGS & (1u << bit)) &&
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, 1u << bit, 1u << bit)) < 0)
			cannot("clone rule");
}

static void install_seccomp(const char *kind)
{
	static const char *const docker[] = { "unshare", "setns", "mount", "umount2",
		"pivot_root", "add_key", "keyctl", "request_key", "bpf", NULL };
	static const char *const newmount[] = { "open_tree", "move_mount", "fsopen",
		"fsconfig", "fsmount", "fspick", "mount_setattr", NULL };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx)
		cannot("seccomp_init");
	if (!strcmp(kind, "docker") || !strcmp(kind, "clone"))
		clone_ns_rule(ctx);
	if (!strcmp(kind, "docker")) {
		for (const char *const *n = docker; *n; n++)
			rule(ctx, EPERM, *n);
		rule(ctx, ENOSYS, "clone3");
	} else if (!strcmp(kind, "unshare")) {
		rule(ctx, EPERM, "unshare");
	} else if (!strcmp(kind, "clone")) {
		rule(ctx, ENOSYS, "clone3"); /* glibc would use clone3 otherwise */
	} else if (!strcmp(kind, "seccomp")) {
		rule(ctx, EPERM, "seccomp");
	} else if (!strcmp(kind, "newmount")) {
		for (const char *const *n = newmount; *n; n++)
			rule(ctx, ENOSYS, *n);
	} else if (!strcmp(kind, "pivot_root") || !strcmp(kind, "open_tree") ||
		   !strcmp(kind, "sethostname")) {
		rule(ctx, EPERM, kind);
	} else {
		fprintf(stderr, "sbx-sim: --seccomp docker|unshare|clone|seccomp|newmount|"
			"pivot_root|open_tree|sethostname\n");
		exit(2);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0)
		cannot("loading the filter");
	seccomp_release(ctx);
}

static void set_limit(int res, const char *value)
{
	struct rlimit rl = { strtoul(value, NULL, 10), strtoul(value, NULL, 10) };

	if (setrlimit(res, &rl) < 0)
		cannot("setrlimit");
}

/* One SETTING at ARGV[I]; returns how many arguments it took. */
static int apply(char **argv, int i, const char **seccomp)
{
	char path[128];
	const char *a = argv[i], *v = argv[i + 1];
	bool has_v = v && strcmp(v, "--") != 0;

	if (!strcmp(a, "--seccomp") && has_v)
		*seccomp = v; /* last: the filter would refuse the other settings */
	else if (!strcmp(a, "--userns"))
		return enter_userns(), 1;
	else if (!strcmp(a, "--no-caps")) {
		enter_userns();
		for (int cap = 0; cap <= 63; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
				cannot("PR_CAPBSET_DROP");
		return 1;
	} else if (!strcmp(a, "--unmapped")) {
		if (unshare(CLONE_NEWUSER) < 0)
			cannot("unshare(CLONE_NEWUSER)");
		return 1;
	} else if (!strcmp(a, "--max") && has_v) {
		enter_userns();
		snprintf(path, sizeof(path), "/proc/sys/user/%s", v);
		write_file(path, "0");
	} else if (!strcmp(a, "--no-proc")) {
		private_mounts();
		if (mount("tmpfs", "/proc", "tmpfs", 0, "size=16k") < 0)
			cannot("tmpfs over /proc");
		return 1;
	} else if (!strcmp(a, "--proc-masked") || !strcmp(a, "--proc-masked-rw")) {
		private_mounts();
		mask_proc_file();
		if (!strcmp(a, "--proc-masked") &&
		    (mount("/proc/sys", "/proc/sys", NULL, MS_BIND | MS_REC, NULL) < 0 ||
		     mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0))
			cannot("binding /proc/sys read-only");
		return 1;
	} else if (!strcmp(a, "--tmp-full") || !strcmp(a, "--tmp-ro")) {
		private_mounts();
		if (mount("tmpfs", SIM_TMP, "tmpfs", 0, "size=64k,mode=1777") < 0)
			cannot("tmpfs on " SIM_TMP);
		if (!strcmp(a, "--tmp-full"))
			fill_tmp();
		else if (mount(NULL, SIM_TMP, NULL, MS_REMOUNT | MS_RDONLY, NULL) < 0)
			cannot("remounting " SIM_TMP " read-only");
		setenv("TMPDIR", SIM_TMP, 1);
		return 1;
	} else if (!strcmp(a, "--close-stdio"))
		return close(0), close(1), close(2), 1;
	else if (!strcmp(a, "--sigchld-ign"))
		return signal(SIGCHLD, SIG_IGN), 1;
	else if (!strcmp(a, "--nofile") && has_v)
		set_limit(RLIMIT_NOFILE, v);
	else if (!strcmp(a, "--nproc") && has_v)
		set_limit(RLIMIT_NPROC, v);
	else {
		fprintf(stderr, "sbx-sim: unknown setting '%s'\n", a);
		exit(2);
	}
	return 2;
}

int main(int argc, char **argv)
{
	const char *seccomp = NULL;
	int i = 1;

	while (i < argc && strcmp(argv[i], "--") != 0)
		i += apply(argv, i, &seccomp);
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: sbx-sim [SETTING...] -- PROGRAM [ARG...]\n");
		return 2;
	}
	if (seccomp)
		install_seccomp(seccomp);
	execv(argv[i + 1], argv + i + 1);
	cannot(argv[i + 1]);
}
