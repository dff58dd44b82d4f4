/*
 * test_seccomp.c - the @groups table and the generated BPF program.
 *
 * No privileges needed.  The supervisor's classic-BPF interpreter
 * (sc_eval) runs the program on made-up seccomp_data, so every rule
 * (allowlist, deny groups, clone flags, TIOCSTI, personality, foreign
 * ABIs) is checked as the kernel would evaluate it; and the last test
 * loads the program in a child and makes the argument-checked calls, so
 * the kernel's own evaluation must agree.  A permissive edit to the table
 * or the generator fails here before any probe runs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>

#include "jail/scnotify.h"
#include "jail/seccomp.h"
#include "jail/seccomp_names.h"

static const char *const deny_groups[] = {
	"@mount", "@debug", "@keyring", "@module", "@reboot", "@swap", "@clock",
	"@obsolete", "@privileged-ns", "@io-uring", "@raw-io", "@cpu-emulation",
};
#define NDENY (sizeof(deny_groups) / sizeof(deny_groups[0]))

/* Names libseccomp knows for x86 but that are not x86_64 syscalls. */
static bool not_on_x86_64(const char *name)
{
	return strcmp(name, "vm86") == 0 || strcmp(name, "vm86old") == 0;
}

/*
 * Run PROG on one syscall, as the kernel's classic BPF would: sc_eval
 * (jail/scnotify.h, the supervisor's answer to a notification), after
 * checking that PROG holds only what sc_eval knows (it fails closed on
 * anything else, which would hide a generator bug as a KILL here).
 */
static uint32_t bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];
		bool known = f->code == (BPF_LD | BPF_W | BPF_ABS) || f->code == (BPF_RET | BPF_K) ||
			     f->code == (BPF_JMP | BPF_JA) || f->code == (BPF_JMP | BPF_JEQ | BPF_K) ||
			     f->code == (BPF_JMP | BPF_JGE | BPF_K) ||
			     f->code == (BPF_JMP | BPF_JSET | BPF_K);

		cr_assert(known, "unexpected BPF opcode 0x%x at %u", f->code, pc);
		cr_assert(f->code != (BPF_LD | BPF_W | BPF_ABS) ||
			  (f->k % 4 == 0 && f->k + 4 <= sizeof(*d)), "load at %u out of seccomp_data", pc);
	}
	cr_assert_eq(prog->filter[prog->len - 1].code, BPF_RET | BPF_K, "program falls off the end");
	return sc_eval(prog, d);
}

static uint32_t run_call3(const struct sock_fprog *p, int nr, uint64_t a0, uint64_t a1,
			  uint64_t a2)
{
	struct seccomp_data d = { .nr = nr, .arch = SC_AUDIT_ARCH };

	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	return bpf_run(p, &d);
}

static uint32_t run_call5(const struct sock_fprog *p, int nr, uint64_t a0, uint64_t a1,
			  uint64_t a2, uint64_t a3, uint64_t a4)
{
	struct seccomp_data d = { .nr = nr, .arch = SC_AUDIT_ARCH,
				  .args = { a0, a1, a2, a3, a4 } };

	return bpf_run(p, &d);
}

static uint32_t run_call(const struct sock_fprog *p, int nr, uint64_t a0, uint64_t a1)
{
	return run_call3(p, nr, a0, a1, 0);
}

static struct strlist list_of(const char *const *names, size_t n)
{
	struct strlist l = { 0 };

	for (size_t i = 0; i < n; i++)
		cr_assert_eq(strlist_push(&l, names[i], NULL), 0);
	return l;
}

/* The policy/default.policy seccomp block. */
static void build_default(struct sock_fprog *prog, enum sc_action deny_action)
{
	const char *allow[] = { "@default" };
	struct seccomp_spec spec = {
		.default_action = SC_ERRNO, .errno_value = ENOSYS,
		.deny_action = deny_action,
	};
	struct sbx_err err = { 0 };

	spec.allow = list_of(allow, 1);
	spec.deny = list_of(deny_groups, NDENY);
	cr_assert_eq(sc_filter_build(&spec, prog, &err), 0, "%s", err.msg);
	strlist_free(&spec.allow);
	strlist_free(&spec.deny);
}

Test(seccomp, every_group_name_resolves_on_x86_64)
{
	for (size_t g = 0; g < sc_groups_count; g++)
		for (const char *const *s = sc_groups[g].syscalls; *s; s++)
			cr_expect(not_on_x86_64(*s) ||
				  seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, *s) >= 0,
				  "%s: '%s' is not an x86_64 syscall", sc_groups[g].name, *s);
}

/* On aarch64 a name of another architecture is no error: each either has
 * a stand-in (checked below) or names an effect aarch64 does not have. */
Test(seccomp, every_group_name_is_known_to_libseccomp)
{
	for (size_t g = 0; g < sc_groups_count; g++)
		for (const char *const *s = sc_groups[g].syscalls; *s; s++)
			cr_expect_neq(seccomp_syscall_resolve_name(*s), __NR_SCMP_ERROR,
				      "%s: '%s' is no syscall anywhere", sc_groups[g].name, *s);
}

/* A syscall both allowed by default and in a deny group would make the
 * table say two things; the deny would win, but the table must be clear. */
Test(seccomp, no_syscall_is_in_default_and_a_deny_group)
{
	const struct sc_group *def = sc_group_find("@default");

	cr_assert_not_null(def);
	for (size_t i = 0; i < NDENY; i++) {
		const struct sc_group *g = sc_group_find(deny_groups[i]);

		cr_assert_not_null(g, "%s missing", deny_groups[i]);
		for (const char *const *s = g->syscalls; *s; s++)
			for (const char *const *d = def->syscalls; *d; d++)
				cr_expect_neq(strcmp(*s, *d), 0, "%s in @default and %s",
					      *s, g->name);
	}
}

Test(seccomp, every_group_says_why)
{
	for (size_t g = 0; g < sc_groups_count; g++) {
		cr_expect(sc_groups[g].name[0] == '@');
		cr_expect(sc_groups[g].why && sc_groups[g].why[0]);
	}
}

Test(seccomp, default_filter_builds_and_fits)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect(prog.len > 10 && prog.len < BPF_MAXINSNS);
	sc_filter_free(&prog);
}

/* Each default denial, one assertion per rule: a policy edit that
 * silently permits one is caught by name. */
Test(seccomp, deny_groups_get_eperm_and_default_calls_are_allowed)
{
	const int denied[] = { SYS_mount, SYS_umount2, SYS_pivot_root, SYS_unshare,
			       SYS_setns, SYS_ptrace, SYS_process_vm_readv,
			       SYS_keyctl, SYS_add_key, SYS_bpf, SYS_perf_event_open,
			       SYS_init_module, SYS_finit_module, SYS_kexec_load,
			       SYS_reboot, SYS_swapon, SYS_userfaultfd,
			       SYS_io_uring_setup,
#ifdef SYS_iopl
			       SYS_iopl, SYS_modify_ldt,
#endif
	};
	const int allowed[] = { SYS_read, SYS_write, SYS_openat, SYS_mmap, SYS_futex,
				SYS_execve, SYS_wait4, SYS_rt_sigaction, SYS_getrandom,
				SYS_socket, SYS_statx, SYS_rseq, SYS_clone,
#ifdef SYS_fork
				SYS_fork,
#endif
	};
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		cr_expect_eq(run_call(&prog, denied[i], 0, 0), SECCOMP_RET_ERRNO | EPERM,
			     "syscall %d not denied", denied[i]);
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		/* socket checks its family: ask for an allowed one */
		cr_expect_eq(run_call(&prog, allowed[i], allowed[i] == SYS_socket ? AF_UNIX : 0, 0),
			     SECCOMP_RET_ALLOW, "syscall %d not allowed", allowed[i]);
	/* not in any list: the default action, ENOSYS */
	cr_expect_eq(run_call(&prog, SYS_mbind, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
	cr_expect_eq(run_call(&prog, 999, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
	sc_filter_free(&prog);
}

Test(seccomp, deny_action_kill_kills)
{
	struct sock_fprog prog;

	build_default(&prog, SC_KILL);
	cr_expect_eq(run_call(&prog, SYS_ptrace, 0, 0), SECCOMP_RET_KILL_PROCESS);
	cr_expect_eq(run_call(&prog, SYS_read, 0, 0), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* clone3's flags cannot be inspected: ENOSYS so glibc falls back to clone. */
Test(seccomp, clone3_is_enosys_and_clone_namespaces_are_refused)
{
	const unsigned long ns[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID,
				     CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS,
				     CLONE_NEWCGROUP };
	unsigned long thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			       CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
			       CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call(&prog, SYS_clone3, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
	cr_expect_eq(run_call(&prog, SYS_clone, thread, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_clone, SIGCHLD, 0), SECCOMP_RET_ALLOW);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		cr_expect_eq(run_call(&prog, SYS_clone, ns[i] | SIGCHLD, 0),
			     SECCOMP_RET_ERRNO | EPERM, "clone flag 0x%lx", ns[i]);
	sc_filter_free(&prog);
}

/* CVE-2019-10063: bits above 32 must not slip TIOCSTI past the filter. */
Test(seccomp, tiocsti_and_tioclinux_are_refused_whatever_the_high_bits)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TIOCSTI), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, (1ull << 32) | TIOCSTI),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TIOCLINUX), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TCGETS), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, FIONREAD), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* Switching a tty's line discipline reaches n_gsm/n_hdlc (past root
 * exploits) and, with dev.tty.ldisc_autoload=1, loads their modules. */
Test(seccomp, tiocsetd_is_refused_and_tiocgetd_allowed)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TIOCSETD), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, (1ull << 32) | TIOCSETD),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TIOCGETD), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* AF_VSOCK is not network-namespaced: it reached the VM's host (CID 2)
 * from a --net none jail until socket() families were checked. */
Test(seccomp, socket_allows_only_namespaced_families)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	for (int fam = 0; fam < 46; fam++) {
		bool ok = fam == AF_UNIX || fam == AF_INET || fam == AF_INET6 ||
			  fam == AF_NETLINK;
		cr_expect_eq(run_call(&prog, SYS_socket, (uint64_t)fam, 1),
			     ok ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EAFNOSUPPORT,
			     "family %d", fam);
	}
	/* the family is an int: high bits must not smuggle AF_VSOCK past */
	cr_expect_eq(run_call(&prog, SYS_socket, (1ULL << 32) | AF_VSOCK, 1),
		     SECCOMP_RET_ERRNO | EAFNOSUPPORT);
	sc_filter_free(&prog);
}

#define EAFNO (SECCOMP_RET_ERRNO | EAFNOSUPPORT)
#define EPROTONO (SECCOMP_RET_ERRNO | EPROTONOSUPPORT)
#define ESOCKTNO (SECCOMP_RET_ERRNO | ESOCKTNOSUPPORT)

/* socketpair(AF_VSOCK|AF_PACKET|AF_TIPC|AF_INET, ...) ran those families'
 * create code (and module autoload): only socket() checked the family. */
Test(seccomp, socketpair_allows_only_unix)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	for (int fam = 0; fam < 64; fam++)
		cr_expect_eq(run_call(&prog, SYS_socketpair, (uint64_t)fam, SOCK_STREAM),
			     fam == AF_UNIX ? SECCOMP_RET_ALLOW : EAFNO, "family %d", fam);
	cr_expect_eq(run_call(&prog, SYS_socketpair, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC),
		     SECCOMP_RET_ALLOW);
	/* the family is an int: high bits must not smuggle AF_VSOCK past */
	cr_expect_eq(run_call(&prog, SYS_socketpair, (1ULL << 32) | AF_VSOCK, 1), EAFNO);
	sc_filter_free(&prog);
}

/* (AF_INET, SOCK_PACKET) is turned into an AF_PACKET socket by the kernel,
 * past the family check; other types are only module autoload requests. */
Test(seccomp, inet_sockets_allow_only_stream_dgram_and_raw_types)
{
	const int fams[] = { AF_INET, AF_INET6 };
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	for (size_t f = 0; f < 2; f++)
		for (int type = 0; type < 16; type++) {
			bool ok = type == SOCK_STREAM || type == SOCK_DGRAM || type == SOCK_RAW;

			cr_expect_eq(run_call3(&prog, SYS_socket, fams[f], (uint64_t)type, 0),
				     ok ? SECCOMP_RET_ALLOW : ESOCKTNO, "family %d type %d",
				     fams[f], type);
			cr_expect_eq(run_call3(&prog, SYS_socket, fams[f],
					       (uint64_t)type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0),
				     ok ? SECCOMP_RET_ALLOW : ESOCKTNO, "family %d type %d|flags",
				     fams[f], type);
		}
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET, SOCK_PACKET, 0), ESOCKTNO);
	sc_filter_free(&prog);
}

/* Any other inet protocol makes the kernel load its module (sctp, dccp,
 * l2tp_ip) for an unprivileged caller; the module is then host-wide. */
Test(seccomp, inet_sockets_allow_only_tcp_udp_and_ping_protocols)
{
	const int ok[] = { 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6 };
	const int bad[] = { IPPROTO_SCTP, IPPROTO_DCCP, IPPROTO_UDPLITE, IPPROTO_MPTCP,
			    115 /* IPPROTO_L2TP */, IPPROTO_RAW, IPPROTO_IGMP };
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET, SOCK_STREAM, ok[i]),
			     SECCOMP_RET_ALLOW, "protocol %d", ok[i]);
		cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET6, SOCK_DGRAM, ok[i]),
			     SECCOMP_RET_ALLOW, "protocol %d", ok[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET, SOCK_STREAM, bad[i]),
			     EPROTONO, "protocol %d", bad[i]);
		cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET6, SOCK_DGRAM, bad[i]),
			     EPROTONO, "protocol %d", bad[i]);
	}
	/* the protocol is an int: high bits must not smuggle SCTP past */
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET, SOCK_STREAM, (1ULL << 32) | IPPROTO_SCTP),
		     EPROTONO);
	sc_filter_free(&prog);
}

/* NETLINK_NETFILTER loads nf_tables, NETLINK_SOCK_DIAG the *_diag modules,
 * NETLINK_GENERIC any genetlink family by name; NETLINK_KOBJECT_UEVENT and
 * NETLINK_AUDIT are host daemons' interfaces.  getifaddrs() needs ROUTE. */
Test(seccomp, netlink_sockets_allow_only_netlink_route)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			       NETLINK_ROUTE), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE),
		     SECCOMP_RET_ALLOW);
	for (int proto = 1; proto < 64; proto++)
		cr_expect_eq(run_call3(&prog, SYS_socket, AF_NETLINK, SOCK_RAW, (uint64_t)proto),
			     EPROTONO, "netlink protocol %d", proto);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_NETLINK, SOCK_RAW,
			       (1ULL << 32) | NETLINK_GENERIC), EPROTONO);
	sc_filter_free(&prog);
}

/* Unix sockets take any type and protocol: the kernel has no modules there. */
Test(seccomp, unix_sockets_are_not_checked_further)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_UNIX, SOCK_SEQPACKET, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0),
		     SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* A policy that allows everything keeps the socket rules too. */
Test(seccomp, default_allow_keeps_the_socket_rules)
{
	struct seccomp_spec spec = { .default_action = SC_ALLOW };
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	cr_assert_eq(sc_filter_build(&spec, &prog, &err), 0, "%s", err.msg);
	cr_expect_eq(run_call(&prog, SYS_socketpair, AF_VSOCK, SOCK_STREAM), EAFNO);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_INET, SOCK_PACKET, 0), ESOCKTNO);
	cr_expect_eq(run_call3(&prog, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_GENERIC), EPROTONO);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TIOCSETD), SECCOMP_RET_ERRNO | EPERM);
	sc_filter_free(&prog);
}

/* A -w workspace is a host directory and the jail's uid is the caller's:
 * `chmod 4755 sh` there left a setuid-as-the-caller shell on the host. */
Test(seccomp, chmod_family_refuses_setuid_and_setgid_bits)
{
	const struct { int nr; unsigned arg; } calls[] = {
#ifdef SYS_chmod
		{ SYS_chmod, 1 },
#endif
		{ SYS_fchmod, 1 }, { SYS_fchmodat, 2 },
	};
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		uint64_t a[3] = { 0 };

		a[calls[i].arg] = 0755;
		cr_expect_eq(run_call3(&prog, calls[i].nr, a[0], a[1], a[2]),
			     SECCOMP_RET_ALLOW, "syscall %d mode 0755", calls[i].nr);
		a[calls[i].arg] = 01777; /* sticky is harmless */
		cr_expect_eq(run_call3(&prog, calls[i].nr, a[0], a[1], a[2]),
			     SECCOMP_RET_ALLOW, "syscall %d mode 01777", calls[i].nr);
		a[calls[i].arg] = 04755;
		cr_expect_eq(run_call3(&prog, calls[i].nr, a[0], a[1], a[2]),
			     SECCOMP_RET_ERRNO | EPERM, "syscall %d mode 04755", calls[i].nr);
		a[calls[i].arg] = 02755;
		cr_expect_eq(run_call3(&prog, calls[i].nr, a[0], a[1], a[2]),
			     SECCOMP_RET_ERRNO | EPERM, "syscall %d mode 02755", calls[i].nr);
	}
	sc_filter_free(&prog);
}

/* A file created 06755 on a host mount keeps its bits when root later
 * copies a program into it (CAP_FSETID): creating with the bits is the
 * same plant as chmod.  The mode only counts when open creates. */
Test(seccomp, creating_calls_refuse_setuid_and_setgid_modes)
{
	const uint32_t eperm = SECCOMP_RET_ERRNO | EPERM;
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
#ifdef SYS_creat
	cr_expect_eq(run_call3(&prog, SYS_creat, 0, 04755, 0), eperm);
	cr_expect_eq(run_call3(&prog, SYS_creat, 0, 0755, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_open, 0, O_CREAT | O_WRONLY, 06755), eperm);
	cr_expect_eq(run_call3(&prog, SYS_open, 0, O_TMPFILE | O_WRONLY, 02755), eperm);
	cr_expect_eq(run_call3(&prog, SYS_open, 0, O_CREAT | O_WRONLY, 0755), SECCOMP_RET_ALLOW);
	/* without O_CREAT the kernel ignores the mode */
	cr_expect_eq(run_call3(&prog, SYS_open, 0, O_RDONLY, 06755), SECCOMP_RET_ALLOW);
#endif
	cr_expect_eq(run_call5(&prog, SYS_openat, AT_FDCWD, 0, O_CREAT | O_EXCL, 04700, 0), eperm);
	cr_expect_eq(run_call5(&prog, SYS_openat, AT_FDCWD, 0, O_TMPFILE | O_RDWR, 06700, 0), eperm);
	cr_expect_eq(run_call5(&prog, SYS_openat, AT_FDCWD, 0, O_CREAT, 01777, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call5(&prog, SYS_openat, AT_FDCWD, 0, O_RDONLY, 06755, 0), SECCOMP_RET_ALLOW);
	/* mkdir's set-id bits are dropped by the kernel itself */
#ifdef SYS_mkdir
	cr_expect_eq(run_call3(&prog, SYS_mkdir, 0, 02775, 0), SECCOMP_RET_ALLOW);
#endif
	cr_expect_eq(run_call3(&prog, SYS_mkdirat, AT_FDCWD, 0, 02775), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* openat2's mode is in a struct the filter cannot read: ENOSYS, so glibc
 * and other libraries fall back to openat, which is checked. */
Test(seccomp, openat2_is_enosys)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call3(&prog, SYS_openat2, AT_FDCWD, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
	sc_filter_free(&prog);
}

/* mknod makes regular files too (with any mode), and whiteouts (c 0 0)
 * need no capability: root-owned device nodes on a root caller's mount. */
Test(seccomp, mknod_refuses_setid_modes_and_devices)
{
	const uint32_t eperm = SECCOMP_RET_ERRNO | EPERM;
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
#ifdef SYS_mknod
	for (int at = 0; at < 2; at++) {
		int nr = at ? SYS_mknodat : SYS_mknod;
#else
	for (int at = 1; at < 2; at++) {
		int nr = SYS_mknodat;
#endif
		const struct { uint64_t mode; uint32_t want; } cases[] = {
			{ S_IFREG | 06755, eperm }, { 04755, eperm },
			{ S_IFCHR | 0644, eperm }, { S_IFBLK | 0600, eperm },
			/* the kernel keeps only the low 16 bits */
			{ 0x10000 | S_IFCHR | 0644, eperm },
			{ 0xffff0000u | S_IFBLK, eperm },
			{ S_IFREG | 0644, SECCOMP_RET_ALLOW }, { 0644, SECCOMP_RET_ALLOW },
			{ S_IFIFO | 0600, SECCOMP_RET_ALLOW }, { S_IFSOCK | 0755, SECCOMP_RET_ALLOW },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			uint64_t m = cases[i].mode;

			cr_expect_eq(at ? run_call3(&prog, nr, (uint64_t)AT_FDCWD, 0, m)
					: run_call3(&prog, nr, 0, m, 0),
				     cases[i].want, "%s mode %llo", at ? "mknodat" : "mknod",
				     (unsigned long long)cases[i].mode);
		}
	}
	sc_filter_free(&prog);
}

/* RENAME_WHITEOUT leaves a whiteout device at the old name, unprivileged. */
Test(seccomp, renameat2_refuses_whiteouts_only)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call5(&prog, SYS_renameat2, AT_FDCWD, 0, AT_FDCWD, 0, 1 << 2),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call5(&prog, SYS_renameat2, AT_FDCWD, 0, AT_FDCWD, 0, RENAME_NOREPLACE),
		     SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call5(&prog, SYS_renameat2, AT_FDCWD, 0, AT_FDCWD, 0, RENAME_EXCHANGE),
		     SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* One mmap longer than RLIMIT_DATA can never succeed: the filter answers
 * ENOMEM itself, so the report names it.  Only private writable memory,
 * what RLIMIT_DATA counts; reservations and shared maps pass. */
Test(seccomp, mmap_past_the_data_limit_is_enomem)
{
	const char *allow[] = { "@default" };
	struct seccomp_spec spec = { .default_action = SC_ERRNO, .errno_value = ENOSYS };
	const uint64_t max = 1ull << 30, rw = PROT_READ | PROT_WRITE;
	const uint32_t enomem = SECCOMP_RET_ERRNO | ENOMEM;
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	spec.allow = list_of(allow, 1);
	cr_assert_eq(sc_filter_build_run(&spec, max, &prog, &err), 0, "%s", err.msg);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, 2ull << 30, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1),
		     enomem);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, max + 1, rw, MAP_PRIVATE, 3), enomem);
	/* the high word alone, and a length whose low word is small */
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, (1ull << 32) + 4096, rw, MAP_PRIVATE, -1), enomem);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, max, rw, MAP_PRIVATE, -1), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, 4096, rw, MAP_PRIVATE, -1), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, 64ull << 30, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, 4ull << 30, rw, MAP_SHARED, 3), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, 4ull << 30, rw, MAP_SHARED_VALIDATE, 3),
		     SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
	/* no bound (a cgroup run, or memory unlimited): not checked */
	cr_assert_eq(sc_filter_build(&spec, &prog, &err), 0, "%s", err.msg);
	cr_expect_eq(run_call5(&prog, SYS_mmap, 0, 8ull << 30, rw, MAP_PRIVATE, -1), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
	strlist_free(&spec.allow);
}

/* fchmodat2 is outside @default, but a policy that allows it (or allows
 * everything) must not reopen the setuid bit. */
Test(seccomp, fchmodat2_is_checked_when_a_policy_allows_it)
{
	struct seccomp_spec spec = { .default_action = SC_ALLOW };
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	cr_assert_eq(sc_filter_build(&spec, &prog, &err), 0, "%s", err.msg);
	cr_expect_eq(run_call3(&prog, 452, AT_FDCWD, 0, 04755), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call3(&prog, 452, AT_FDCWD, 0, 0644), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_fchmodat, AT_FDCWD, 0, 06755), SECCOMP_RET_ERRNO | EPERM);
#ifdef SYS_chmod
	cr_expect_eq(run_call3(&prog, SYS_chmod, 0, 06755, 0), SECCOMP_RET_ERRNO | EPERM);
#endif
	sc_filter_free(&prog);
}

/* A watch-queue pipe is the entry to CVE-2022-0995 (an out-of-bounds
 * write, public root exploit); ordinary pipe2 flags must still pass. */
Test(seccomp, pipe2_refuses_notification_pipes_only)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call(&prog, SYS_pipe2, 0, O_EXCL /* O_NOTIFICATION_PIPE */),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_pipe2, 0, O_EXCL | O_CLOEXEC), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_pipe2, 0, O_CLOEXEC | O_NONBLOCK | O_DIRECT),
		     SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_pipe2, 0, 0), SECCOMP_RET_ALLOW);
#ifdef SYS_pipe
	cr_expect_eq(run_call(&prog, SYS_pipe, 0, 0), SECCOMP_RET_ALLOW);
#endif
	sc_filter_free(&prog);
}

/* The init shares the program's uid, so the kernel lets the program set
 * its limits: prlimit64 on pid 1 (any high bits) is refused; on itself
 * (0), its children or a sibling it passes. */
Test(seccomp, prlimit_refuses_pid_1_only)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call(&prog, SYS_prlimit64, 1, 0), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_prlimit64, 0x100000001ULL, 0),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_prlimit64, 0, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_prlimit64, 2, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_setrlimit, 0, 0), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/* The jail's pipe buffers count against the caller's per-user pipe quota:
 * F_SETPIPE_SZ past the default 64 KiB is refused (any high bits of the
 * size ignored, as the kernel ignores them); smaller sizes, F_GETPIPE_SZ
 * and other commands pass. */
Test(seccomp, fcntl_refuses_pipe_sizes_above_64_kib)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETPIPE_SZ, 1 << 20), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETPIPE_SZ, 65537), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETPIPE_SZ | 0x100000000ULL, 1 << 20),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETPIPE_SZ, 65536), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETPIPE_SZ, 4096), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETPIPE_SZ, 0x100000000ULL | 4096),
		     SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_GETPIPE_SZ, 1 << 20), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call3(&prog, SYS_fcntl, 3, F_SETFL, 1 << 20), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

Test(seccomp, personality_allows_only_harmless_values)
{
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(run_call(&prog, SYS_personality, 0xffffffff, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_personality, 0, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_personality, 0x0040000 /* ADDR_NO_RANDOMIZE */, 0),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_personality, 0x0400000 /* READ_IMPLIES_EXEC */, 0),
		     SECCOMP_RET_ERRNO | EPERM);
	/* found by probes_priv: PER_LINUX32 used to pass */
	cr_expect_eq(run_call(&prog, SYS_personality, 0x0008 /* PER_LINUX32 */, 0),
		     SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_personality, 0x0020000 /* UNAME26 */, 0),
		     SECCOMP_RET_ERRNO | EPERM);
	sc_filter_free(&prog);
}

/* i386 int 0x80 and x32 calls would otherwise bypass an x86_64 filter,
 * AArch32 compat calls an aarch64 one: each foreign ABI is killed. */
Test(seccomp, foreign_abis_are_killed)
{
	struct seccomp_data i386 = { .nr = 1, .arch = AUDIT_ARCH_I386 },
			    arm = { .nr = 1, .arch = AUDIT_ARCH_ARM },
			    other = { .nr = SYS_getpid, .arch = SC_AUDIT_ARCH == AUDIT_ARCH_X86_64
								 ? AUDIT_ARCH_AARCH64
								 : AUDIT_ARCH_X86_64 };
	struct sock_fprog prog;

	build_default(&prog, SC_ERRNO);
	cr_expect_eq(bpf_run(&prog, &i386), SECCOMP_RET_KILL_PROCESS);
	cr_expect_eq(bpf_run(&prog, &arm), SECCOMP_RET_KILL_PROCESS);
	cr_expect_eq(bpf_run(&prog, &other), SECCOMP_RET_KILL_PROCESS);
#if SC_HAS_X32
	cr_expect_eq(run_call(&prog, SC_X32_SYSCALL_BIT | SYS_getpid, 0, 0),
		     SECCOMP_RET_KILL_PROCESS);
#endif
	cr_expect_eq(run_call(&prog, SYS_getpid, 0, 0), SECCOMP_RET_ALLOW);
	sc_filter_free(&prog);
}

/*
 * aarch64 has no mkdir, open, chmod, creat, mknod: libseccomp resolves
 * those names to negative pseudo-numbers without an error, so a deny of
 * mkdir alone guarded nothing there (glibc's mkdir() is mkdirat).  A deny
 * of an effect holds through the call this architecture makes it with.
 */
Test(seccomp, a_deny_of_mkdir_refuses_the_call_libc_makes_here)
{
	const char *allow[] = { "@default" }, *deny[] = { "mkdir" };
	struct seccomp_spec spec = { .default_action = SC_ERRNO, .errno_value = ENOSYS };
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	spec.allow = list_of(allow, 1);
	spec.deny = list_of(deny, 1);
	cr_assert_eq(sc_filter_build(&spec, &prog, &err), 0, "%s", err.msg);
#ifdef SYS_mkdir
	cr_expect_eq(run_call(&prog, SYS_mkdir, 0, 0755), SECCOMP_RET_ERRNO | EPERM);
	/* x86_64 is unchanged: its libc calls mkdir, and mkdirat stays allowed */
	cr_expect_eq(run_call3(&prog, SYS_mkdirat, AT_FDCWD, 0, 0755), SECCOMP_RET_ALLOW);
#else
	cr_expect_eq(run_call3(&prog, SYS_mkdirat, AT_FDCWD, 0, 0755), SECCOMP_RET_ERRNO | EPERM);
#endif
	strlist_free(&spec.allow);
	strlist_free(&spec.deny);
	sc_filter_free(&prog);
}

/* Every legacy call the native table lacks that a group names has its
 * stand-in in the same group, so a group means the same effects on each
 * architecture; and every argument-checked effect has a native call. */
Test(seccomp, every_missing_group_member_has_its_stand_in_in_the_group)
{
	for (size_t g = 0; g < sc_groups_count; g++)
		for (const char *const *s = sc_groups[g].syscalls; *s; s++) {
			const char *in = sc_native_stand_in(*s);
			bool found = false;

			if (!in)
				continue;
			for (const char *const *t = sc_groups[g].syscalls; *t; t++)
				found |= strcmp(*t, in) == 0;
			cr_expect(found, "%s: '%s' stands for '%s' here, which is not in the group",
				  sc_groups[g].name, *s, in);
		}
	cr_expect_geq(seccomp_syscall_resolve_name("openat"), 0);
	cr_expect_geq(seccomp_syscall_resolve_name("fchmodat"), 0);
	cr_expect_geq(seccomp_syscall_resolve_name("mknodat"), 0);
	cr_expect_geq(seccomp_syscall_resolve_name("mkdirat"), 0);
}

Test(seccomp, unknown_names_are_config_errors_naming_the_entry)
{
	const char *bad[] = { "@nosuchgroup" };
	const char *typo[] = { "opne" };
	struct seccomp_spec spec = { .default_action = SC_ERRNO };
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	spec.allow = list_of(bad, 1);
	cr_expect_eq(sc_filter_build(&spec, &prog, &err), -1);
	cr_expect_eq(err.kind, ERR_CONFIG);
	cr_expect(strstr(err.msg, "@nosuchgroup") != NULL, "%s", err.msg);
	strlist_free(&spec.allow);
	spec.deny = list_of(typo, 1);
	cr_expect_eq(sc_filter_build(&spec, &prog, &err), -1);
	cr_expect(strstr(err.msg, "opne") != NULL, "%s", err.msg);
	strlist_free(&spec.deny);
}

/* A policy that allows everything still keeps the fixed rules. */
Test(seccomp, default_allow_keeps_the_fixed_rules)
{
	struct seccomp_spec spec = { .default_action = SC_ALLOW };
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	cr_assert_eq(sc_filter_build(&spec, &prog, &err), 0, "%s", err.msg);
	cr_expect_eq(run_call(&prog, SYS_mount, 0, 0), SECCOMP_RET_ALLOW);
	cr_expect_eq(run_call(&prog, SYS_ioctl, 0, TIOCSTI), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_clone, CLONE_NEWUSER, 0), SECCOMP_RET_ERRNO | EPERM);
	cr_expect_eq(run_call(&prog, SYS_clone3, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
	sc_filter_free(&prog);
}

/* ---- the generated program in the kernel ------------------------------- */

/* One argument-checked call, made in a child under the loaded filter: the
 * kernel's answer (0 or an errno) must be the filter's, and differ from
 * what the same call gets without the filter, so a rule the kernel never
 * applies cannot pass. */
struct kcall {
	const char *what;
	int want;   /* the errno the filter answers, 0: allowed */
};

static const struct kcall kcalls[] = {
	{ "ioctl TIOCSTI on /dev/null", EPERM },
	{ "personality READ_IMPLIES_EXEC", EPERM },
	{ "pipe2 O_NOTIFICATION_PIPE", EPERM },
	{ "fcntl F_SETPIPE_SZ 1 MiB", EPERM },
	{ "clone CLONE_NEWUSER", EPERM },
	{ "socket AF_INET SOCK_PACKET", ESOCKTNOSUPPORT },
	{ "socket AF_NETLINK NETLINK_SOCK_DIAG", EPROTONOSUPPORT },
	{ "socketpair AF_INET", EAFNOSUPPORT },
	{ "openat O_CREAT 04755", EPERM },
	{ "fchmodat 02755", EPERM },
	{ "mknodat a whiteout (c 0 0)", EPERM },
	{ "mmap 65 MiB private writable", ENOMEM },
	{ "socket AF_UNIX", 0 },
	{ "socket AF_NETLINK NETLINK_ROUTE", 0 },
	{ "openat O_CREAT 0644", 0 },
};
#define NKCALLS (sizeof(kcalls) / sizeof(kcalls[0]))

/* Call I with DIR (an fd of an empty directory of ours): 0 or the errno. */
static int kcall_make(size_t i, int dir)
{
	int fds[2], fd = -1;
	long rc = -1;
	char c = 'x';

	errno = 0;
	switch (i) {
	case 0: fd = open("/dev/null", O_RDONLY); rc = ioctl(fd, TIOCSTI, &c); break;
	case 1: rc = syscall(SYS_personality, 0x0400000UL); break;
	case 2: rc = pipe2(fds, O_EXCL /* O_NOTIFICATION_PIPE */); break;
	case 3: rc = pipe(fds) == 0 ? fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) : -1; break;
	case 4: rc = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (rc == 0)
			_exit(0);
		break;
	case 5: rc = socket(AF_INET, SOCK_PACKET, 0); break;
	case 6: rc = socket(AF_NETLINK, SOCK_RAW, 4 /* NETLINK_SOCK_DIAG */); break;
	case 7: rc = socketpair(AF_INET, SOCK_STREAM, 0, fds); break;
	case 8: rc = openat(dir, "setid", O_CREAT | O_WRONLY, 04755); break;
	case 9: rc = openat(dir, "plain", O_CREAT | O_WRONLY, 0644) < 0 ? -1 :
		     fchmodat(dir, "plain", 02755, 0);
		break;
	case 10: rc = mknodat(dir, "whiteout", S_IFCHR | 0600, 0); break;
	case 11: rc = (long)mmap(NULL, 65ul << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		 rc = (void *)rc == MAP_FAILED ? -1 : 0;
		 break;
	case 12: rc = socket(AF_UNIX, SOCK_STREAM, 0); break;
	case 13: rc = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); break;
	default: rc = openat(dir, "allowed", O_CREAT | O_WRONLY, 0644); break;
	}
	(void)fd;
	return rc < 0 ? (errno ? errno : EIO) : 0;
}

/* Every call's answer in a child, under PROG when it is not NULL. */
static void kcalls_answers(const struct sock_fprog *prog, int *answers)
{
	char dir[] = "/tmp/sbx-seccomp-XXXXXX", cmd[64];
	int p[2], status;
	pid_t pid;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int d = open(dir, O_RDONLY | O_DIRECTORY), got[NKCALLS];

		if (prog && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sc_filter_load(prog) < 0))
			_exit(2);
		for (size_t i = 0; i < NKCALLS; i++)
			got[i] = kcall_make(i, d);
		_exit(write(p[1], got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 3);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], answers, NKCALLS * sizeof(int)), (ssize_t)(NKCALLS * sizeof(int)),
		     "the child under the filter reported nothing");
	close(p[0]);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Whether this process already runs under a seccomp filter (the suite in
 * an sbx jail, as a CI step): the bare calls then get its answers. */
static bool under_a_filter(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	if (f)
		fclose(f);
	return mode == 2;
}

Test(seccomp, the_argument_checks_hold_in_the_kernel)
{
	bool filtered_already = under_a_filter();
	const char *allow[] = { "@default" };
	struct seccomp_spec spec = {
		.default_action = SC_ERRNO, .errno_value = ENOSYS, .deny_action = SC_ERRNO,
	};
	int bare[NKCALLS], filtered[NKCALLS];
	struct sock_fprog prog;
	struct sbx_err err = { 0 };

	spec.allow = list_of(allow, 1);
	spec.deny = list_of(deny_groups, NDENY);
	cr_assert_eq(sc_filter_build_run(&spec, 64ull << 20, &prog, &err), 0, "%s", err.msg);
	kcalls_answers(NULL, bare);
	kcalls_answers(&prog, filtered);
	for (size_t i = 0; i < NKCALLS; i++) {
		cr_expect_eq(filtered[i], kcalls[i].want, "%s: the kernel with the filter answered "
			     "%s, the filter's rule is %s", kcalls[i].what, strerror(filtered[i]),
			     strerror(kcalls[i].want));
		/* a refusal this host's kernel would give anyway proves nothing;
		 * under another filter the bare calls get that filter's answers */
		if (kcalls[i].want && !filtered_already)
			cr_expect_neq(bare[i], kcalls[i].want, "%s: %s without the filter too: "
				      "the test cannot tell the rule works", kcalls[i].what,
				      strerror(bare[i]));
	}
	sc_filter_free(&prog);
	strlist_free(&spec.allow);
	strlist_free(&spec.deny);
}
