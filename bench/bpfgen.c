/*
 * bpfgen.c - write a compiled seccomp BPF program for `bwrap --seccomp FD`.
 *
 * The benchmark compares sbx with bwrap "with the same isolation", and
 * bwrap does not build a filter itself: it loads raw BPF from an fd.  This
 * builds a deny-list close to sbx's default (default allow; the mount,
 * namespace, keyring, bpf, perf, userfaultfd, io_uring, kexec, reboot,
 * swap, module and ptrace families fail with EPERM; TIOCSTI/TIOCLINUX
 * ioctls fail; non-native ABIs are killed by libseccomp's bad-arch action)
 * and exports it with seccomp_export_bpf().
 *
 * usage: bpfgen OUTFILE        (exit 0, or 1 with a message on stderr)
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const denied[] = {
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
	"fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"unshare", "setns", "add_key", "keyctl", "request_key", "bpf",
	"perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "kexec_load", "kexec_file_load", "reboot",
	"swapon", "swapoff", "init_module", "finit_module", "delete_module",
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"pidfd_getfd", "open_by_handle_at", "acct", "quotactl", "syslog",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"iopl", "ioperm", "lookup_dcookie", "fanotify_init", "vhangup",
	"personality", "uselib", "ustat", "sysfs", "_sysctl",
};

/* Deny the named syscalls with EPERM; unknown names on this arch are skipped. */
static int add_denials(scmp_filter_ctx ctx)
{
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		int nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) < 0) {
			fprintf(stderr, "bpfgen: seccomp_rule_add(%s) failed\n", denied[i]);
			return -1;
		}
	}
	return 0;
}

/* TIOCSTI/TIOCLINUX inject terminal input (CVE-2017-5226); compare the low 32 bits. */
static int add_ioctl_denials(scmp_filter_ctx ctx)
{
	const unsigned long reqs[] = { TIOCSTI, TIOCLINUX };
	for (size_t i = 0; i < 2; i++) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, reqs[i])) < 0) {
			fprintf(stderr, "bpfgen: ioctl rule failed\n");
			return -1;
		}
	}
	return 0;
}

/* Nested namespaces widen the kernel attack surface; clone3 hides its flags in memory. */
static int add_clone_denials(scmp_filter_ctx ctx)
{
	const unsigned long ns_flags[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID,
		CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP };
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i])) < 0) {
			fprintf(stderr, "bpfgen: clone rule failed\n");
			return -1;
		}
	}
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0) {
		fprintf(stderr, "bpfgen: clone3 rule failed\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bpfgen OUTFILE\n");
		return 1;
	}
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "bpfgen: seccomp_init failed\n");
		return 1;
	}
	int rc = 1;
	int fd = -1;
	if (add_denials(ctx) < 0 || add_ioctl_denials(ctx) < 0 || add_clone_denials(ctx) < 0)
		goto out;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "bpfgen: open %s: %s\n", argv[1], strerror(errno));
		goto out;
	}
	if (seccomp_export_bpf(ctx, fd) < 0) {
		fprintf(stderr, "bpfgen: seccomp_export_bpf failed\n");
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0 && close(fd) < 0 && rc == 0) {
		fprintf(stderr, "bpfgen: close %s: %s\n", argv[1], strerror(errno));
		rc = 1;
	}
	seccomp_release(ctx);
	return rc;
}
