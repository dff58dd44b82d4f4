/*
 * seccomp.c - the filter built from a policy (the @groups: scgroups.c).
 *
 * The filter is one BPF program compiled in the supervisor, before the
 * clone.  libseccomp resolves names; the program itself is generated here
 * (a binary search over runs of syscall numbers with the same action),
 * because libseccomp needs ~2 ms to build and export an allowlist this
 * size, the whole start-up budget, and cannot express "allow ioctl except
 * two requests" under a non-ALLOW default.  Fixed rules, whatever the
 * policy says:
 *   - any ABI but the native one kills the process (on x86_64: i386 int
 *     0x80 and x32; on aarch64: AArch32 compat; scarch.h);
 *   - clone3 -> ENOSYS (glibc falls back to clone);
 *   - clone with a namespace flag -> EPERM;
 *   - ioctl TIOCSTI/TIOCLINUX/TIOCSETD -> EPERM (low 32 bits compared);
 *   - personality other than PER_LINUX (0) or the query 0xffffffff -> EPERM;
 *   - socket() of a family other than unix, inet, inet6, netlink ->
 *     EAFNOSUPPORT (AF_VSOCK reaches the VM's host whatever the netns);
 *     inet types other than stream/dgram/raw -> ESOCKTNOSUPPORT, inet
 *     protocols other than 0/tcp/udp/icmp/icmpv6 and netlink protocols
 *     other than NETLINK_ROUTE -> EPROTONOSUPPORT (module autoload);
 *   - socketpair() of a family other than unix -> EAFNOSUPPORT;
 *   - a set-id mode (S_ISUID or S_ISGID) in chmod/fchmod/fchmodat(2),
 *     creat, mknod(at), and open/openat when they create (O_CREAT or
 *     O_TMPFILE) -> EPERM (an architecture without chmod, creat, mknod or
 *     open, as aarch64, has only the *at forms, which carry the same
 *     checks); mknod(at) of a character or block device
 *     (whiteouts included) and renameat2(RENAME_WHITEOUT) -> EPERM;
 *   - openat2 -> ENOSYS (its mode is in memory; glibc falls back to openat);
 *   - pipe2(O_NOTIFICATION_PIPE) (watch queues) -> EPERM;
 *   - prlimit64 on pid 1 (the jail's init) -> EPERM;
 *   - fcntl(F_SETPIPE_SZ) above the default 64 KiB -> EPERM;
 *   - for a run without a cgroup, mmap of private writable memory longer
 *     than RLIMIT_DATA -> ENOMEM (reported with its length).
 * tests/probes/README.md ("Syscall arguments the filter checks") lists
 * every argument of an allowed syscall that was audited, and why.
 * tests/unit/test_seccomp.c runs the program through a BPF interpreter.
 */
#include "jail/seccomp.h"
#include "jail/seccomp_names.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/* fchmodat2 (Linux 6.6) is missing from older headers. */
#define SC_NR_FCHMODAT2 452
/* open flags that create an inode (O_TMPFILE is __O_TMPFILE|O_DIRECTORY). */
#define SC_O_CREATES (O_CREAT | __O_TMPFILE)
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif
/* pipe2's flag for a watch-queue pipe (linux/watch_queue.h clashes with
 * <fcntl.h>). */
#define SC_O_NOTIFICATION_PIPE O_EXCL
/* A new pipe's buffer (16 pages), the most F_SETPIPE_SZ may ask for. */
#define SC_PIPE_DEFAULT_SIZE (64 * 1024)

/* clone() flags that create namespaces (CLONE_NEWTIME is clone3-only). */
#define SC_CLONE_NS_FLAGS                                                     \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |        \
	 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

static uint32_t ret_of(enum sc_action a, int errno_value)
{
	switch (a) {
	case SC_ALLOW:
		return SECCOMP_RET_ALLOW;
	case SC_KILL:
		return SECCOMP_RET_KILL_PROCESS;
	case SC_ERRNO:
	default:
		/* ERRNO(0) would fake success without running the call. */
		if (errno_value <= 0 || errno_value > 4095)
			errno_value = ENOSYS;
		return SECCOMP_RET_ERRNO | (uint32_t)errno_value;
	}
}

#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define INSN(code, k, t, f) ((struct sock_filter){ (code), (t), (f), (k) })
#define RET(v) INSN(BPF_RET | BPF_K, (v), 0, 0)
#define LD(off) INSN(BPF_LD | BPF_W | BPF_ABS, (off), 0, 0)
#define JGE(k, t, f) INSN(BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
#define JA() INSN(BPF_JMP | BPF_JA, 0, 0, 0)

/*
 * The jumps of a check go to labels, resolved when the check ends, never
 * to hand-counted offsets that a line added in the middle would silently
 * retarget.  NEXT falls through; OUT is the instruction after the check
 * (an argument check's leaf emits the syscall's own action there); L1..L4
 * are placed by label() within the check.
 */
enum label { NEXT = -1, OUT, L1, L2, L3, L4, NLABELS };
#define MAX_JUMPS 16 /* in one check */

/* A run of consecutive syscall numbers [lo, next run's lo) with one
 * return value; ARGS marks the few syscalls checked on their arguments. */
struct run {
	uint32_t lo;
	uint32_t ret;
	int args; /* 0, or the syscall number whose arguments are checked */
};

struct gen {
	uint64_t alloc_max; /* mmap's length bound (sc_filter_build_run), 0: none */
	struct sock_filter insn[BPF_MAXINSNS];
	unsigned n;
	bool overflow;              /* or a jump that cannot be resolved */
	int label_at[NLABELS];      /* the current check's, -1: not placed */
	struct { unsigned at; enum label t, f; } jumps[MAX_JUMPS];
	unsigned njumps;
};

static void emit(struct gen *g, struct sock_filter f)
{
	if (g->n < BPF_MAXINSNS)
		g->insn[g->n++] = f;
	else
		g->overflow = true;
}

static void check_begin(struct gen *g)
{
	for (int l = 0; l < NLABELS; l++)
		g->label_at[l] = -1;
	g->njumps = 0;
}

static void label(struct gen *g, enum label l)
{
	g->label_at[l] = (int)g->n;
}

/* A conditional jump OP (BPF_JEQ, BPF_JSET, BPF_JGE) on K to T or F. */
static void jump(struct gen *g, uint16_t op, uint32_t k, enum label t, enum label f)
{
	if (g->njumps == MAX_JUMPS)
		g->overflow = true;
	else
		g->jumps[g->njumps++] = (typeof(g->jumps[0])){ g->n, t, f };
	emit(g, INSN(BPF_JMP | op | BPF_K, k, 0, 0));
}

#define jeq(g, k, t, f) jump((g), BPF_JEQ, (k), (t), (f))
#define jset(g, k, t, f) jump((g), BPF_JSET, (k), (t), (f))
#define jge(g, k, t, f) jump((g), BPF_JGE, (k), (t), (f))

/* The offset from the jump at AT to L: forward only, within 255. */
static uint8_t offset_to(struct gen *g, unsigned at, enum label l)
{
	int to = l == NEXT ? (int)at + 1 : g->label_at[l];

	if (to <= (int)at || to - (int)at - 1 > 255) {
		g->overflow = true;
		return 0;
	}
	return (uint8_t)(to - (int)at - 1);
}

/* OUT is here; every jump of the check gets its offsets. */
static void check_end(struct gen *g)
{
	label(g, OUT);
	for (unsigned i = 0; i < g->njumps && !g->overflow; i++) {
		struct sock_filter *j = &g->insn[g->jumps[i].at];

		j->jt = offset_to(g, g->jumps[i].at, g->jumps[i].t);
		j->jf = offset_to(g, g->jumps[i].at, g->jumps[i].f);
	}
}

/* clone: only the low 32 bits are flags (the low byte is the exit signal,
 * so CLONE_NEWTIME cannot be asked for here; clone3 and unshare can't run).
 * New namespaces are how most user-namespace kernel exploits start. */
static void emit_clone_check(struct gen *g)
{
	emit(g, LD(ARG_LO(0)));
	jset(g, SC_CLONE_NS_FLAGS, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/* ioctl: the tty layer truncates the request to 32 bits, so compare the low
 * word only (CVE-2019-10063). */
static void emit_ioctl_check(struct gen *g)
{
	emit(g, LD(ARG_LO(1)));
	/* TIOCSTI types into the caller's terminal (CVE-2017-5226). */
	jeq(g, TIOCSTI, L1, NEXT);
	/* TIOCLINUX pastes the console selection, the same injection. */
	jeq(g, TIOCLINUX, L1, NEXT);
	/* TIOCSETD swaps the line discipline: n_gsm/n_hdlc races were root
	 * exploits, and with dev.tty.ldisc_autoload=1 it loads their modules. */
	jeq(g, TIOCSETD, L1, OUT);
	label(g, L1);
	emit(g, RET(RET_EPERM));
}

/*
 * socket: only families a network namespace confines.  AF_VSOCK is not
 * namespaced and reaches the hypervisor host (CID 2) even with --net none;
 * AF_ALG, AF_BLUETOOTH & co. are kernel attack surface no ordinary program
 * needs.  Within inet and netlink, only the protocols programs use: any
 * other one makes the kernel autoload its module (sctp, dccp, l2tp,
 * nf_tables through NETLINK_NETFILTER, *_diag through NETLINK_SOCK_DIAG,
 * any genetlink family through NETLINK_GENERIC) with no privilege check.
 */
static void emit_socket_check(struct gen *g)
{
	const enum label NETLINK = L1, INET = L2, NO_PROTOCOL = L3, NO_TYPE = L4;

	emit(g, LD(ARG_LO(0)));
	jeq(g, AF_UNIX, OUT, NEXT);
	jeq(g, AF_INET, INET, NEXT);
	jeq(g, AF_INET6, INET, NEXT);
	jeq(g, AF_NETLINK, NETLINK, NEXT);
	emit(g, RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT));
	/* netlink: NETLINK_ROUTE is what getifaddrs() and ip(8) need. */
	label(g, NETLINK);
	emit(g, LD(ARG_LO(2)));
	jeq(g, NETLINK_ROUTE, OUT, NO_PROTOCOL);
	/* inet: the type (low 4 bits) must be stream, dgram or raw;
	 * (AF_INET, SOCK_PACKET) is turned into an AF_PACKET socket. */
	label(g, INET);
	emit(g, LD(ARG_LO(1)));
	jset(g, 0xc, NO_TYPE, NEXT);
	jset(g, 0x3, NEXT, NO_TYPE);
	/* and the protocol the default, tcp, udp or ping (a raw socket that
	 * passes is then refused by the missing CAP_NET_RAW). */
	emit(g, LD(ARG_LO(2)));
	jeq(g, 0, OUT, NEXT);
	jeq(g, IPPROTO_TCP, OUT, NEXT);
	jeq(g, IPPROTO_UDP, OUT, NEXT);
	jeq(g, IPPROTO_ICMP, OUT, NEXT);
	jeq(g, IPPROTO_ICMPV6, OUT, NEXT);
	label(g, NO_PROTOCOL);
	emit(g, RET(SECCOMP_RET_ERRNO | EPROTONOSUPPORT));
	label(g, NO_TYPE);
	emit(g, RET(SECCOMP_RET_ERRNO | ESOCKTNOSUPPORT));
}

/* socketpair: it creates two sockets of the family with the same create
 * code (and module autoload) as socket(), and only AF_UNIX pairs exist
 * (besides AF_TIPC, already refused by socket()). */
static void emit_socketpair_check(struct gen *g)
{
	emit(g, LD(ARG_LO(0)));
	jeq(g, AF_UNIX, OUT, NEXT);
	emit(g, RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT));
}

/* pipe2: O_NOTIFICATION_PIPE makes a watch-queue pipe, the whole entry to
 * code with past root exploits (CVE-2022-0995, CVE-2022-1882); its only
 * event source in the jail would be keyctl, which is denied. */
static void emit_pipe2_check(struct gen *g)
{
	emit(g, LD(ARG_LO(1)));
	jset(g, SC_O_NOTIFICATION_PIPE, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/* personality: READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE weaken the target,
 * PER_LINUX32/UNAME26 change what it sees of the kernel; only the default
 * persona and the query pass. */
static void emit_personality_check(struct gen *g)
{
	emit(g, LD(ARG_LO(0)));
	jeq(g, 0x0, OUT, NEXT);
	jeq(g, 0xffffffff, OUT, NEXT);
	emit(g, RET(RET_EPERM));
}

/* prlimit64: the kernel lets a process of the same uid set another's
 * limits, dumpable or not, so the program could lower the init's hard
 * RLIMIT_CPU, burn it with orphans to reap and have it killed mid-run (sbx
 * then said setup-error, "nothing ran").  Low 32 bits: pid_t. */
static void emit_prlimit_check(struct gen *g)
{
	emit(g, LD(ARG_LO(0)));
	jeq(g, 1, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/* fcntl: the jail's pipe buffers are charged to the caller's per-user
 * quota (fs.pipe-user-pages-soft): 64 pipes raised to 1 MiB used it up,
 * and every new pipe of the caller on the host got 8 KiB until the jail
 * ended.  Nothing above the default size; EPERM, as the kernel answers an
 * unprivileged size past pipe-max-size.  Low 32 bits: the kernel takes
 * cmd and the size as unsigned int. */
static void emit_fcntl_check(struct gen *g)
{
	emit(g, LD(ARG_LO(1)));
	jeq(g, F_SETPIPE_SZ, NEXT, OUT);
	emit(g, LD(ARG_LO(2)));
	jge(g, SC_PIPE_DEFAULT_SIZE + 1, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/*
 * Set-id modes.  The jail's files in a -w workspace or a -B bind are the
 * caller's on the host (the caller's uid, or for a root caller the
 * directory's owner through the idmap: root), so a setuid or setgid bit
 * there is a setuid-as-the-caller (or as-root) program for anyone who can
 * reach the directory.  Every call that takes a file mode is checked, not
 * only chmod: a file created 06755 keeps its bits when root later writes
 * into it (root has CAP_FSETID, so its write does not clear them).  mkdir
 * and mkdirat are not checked: the kernel drops both bits from their mode.
 */
static void emit_setid_check(struct gen *g, unsigned mode_arg)
{
	emit(g, LD(ARG_LO(mode_arg)));
	jset(g, S_ISUID | S_ISGID, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/* open/openat: the mode only counts when the call creates an inode. */
static void emit_open_check(struct gen *g, unsigned flags_arg, unsigned mode_arg)
{
	emit(g, LD(ARG_LO(flags_arg)));
	jset(g, SC_O_CREATES, NEXT, OUT);
	emit(g, LD(ARG_LO(mode_arg)));
	jset(g, S_ISUID | S_ISGID, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/*
 * mknod/mknodat: no set-id bit, and no character or block device.  The
 * jail has no CAP_MKNOD, but the kernel lets anyone make a whiteout (c 0 0),
 * and on a host mount that is a root-owned device node for a root caller.
 * The kernel truncates the mode to 16 bits, so only bits the filter can
 * test in the low word decide: a type with bit 13 (S_IFCHR, S_IFBLK) and
 * without bit 15 (regular, symlink, socket) is a device; the other types
 * bit 13 could make are invalid, and the kernel refuses them.
 */
static void emit_mknod_check(struct gen *g, unsigned mode_arg)
{
	emit(g, LD(ARG_LO(mode_arg)));
	jset(g, S_ISUID | S_ISGID, L1, NEXT);
	jset(g, 0100000, OUT, NEXT);
	jset(g, 0020000, L1, OUT);
	label(g, L1);
	emit(g, RET(RET_EPERM));
}

#define ARG_HI(i) (ARG_LO(i) + 4)

/*
 * mmap of private writable memory longer than ALLOC_MAX: ENOMEM, as
 * RLIMIT_DATA would answer it, but here the refusal is reported with its
 * length, so the record shows that the program asked for more memory than
 * it may hold (Python's MemoryError otherwise ended "exited with code 1").
 * Only what RLIMIT_DATA counts: PROT_WRITE with MAP_PRIVATE.  The length
 * is 64 bits: the high word first.
 */
static void emit_mmap_check(struct gen *g)
{
	uint32_t hi = (uint32_t)(g->alloc_max >> 32), lo = (uint32_t)g->alloc_max;

	emit(g, LD(ARG_LO(2)));
	jset(g, PROT_WRITE, NEXT, OUT);
	/* MAP_SHARED_VALIDATE is 3: private means the shared bit clear */
	emit(g, LD(ARG_LO(3)));
	jset(g, MAP_SHARED, OUT, NEXT);
	jset(g, MAP_PRIVATE, NEXT, OUT);
	emit(g, LD(ARG_HI(1)));
	jge(g, hi + 1, L1, NEXT);
	jeq(g, hi, NEXT, OUT);
	emit(g, LD(ARG_LO(1)));
	jge(g, lo + 1, L1, OUT);
	label(g, L1);
	emit(g, RET(SECCOMP_RET_ERRNO | ENOMEM));
}

/* renameat2: RENAME_WHITEOUT leaves a whiteout device at the old name,
 * unprivileged, the same node mknod is refused above. */
static void emit_rename_check(struct gen *g)
{
	emit(g, LD(ARG_LO(4)));
	jset(g, RENAME_WHITEOUT, NEXT, OUT);
	emit(g, RET(RET_EPERM));
}

/* The argument checks the filter makes; syscalls with the same check and
 * adjacent numbers share one leaf (chmod and fchmod). */
enum arg_check {
	CHECK_NONE,
	CHECK_CLONE,
	CHECK_IOCTL,
	CHECK_SOCKET,
	CHECK_SOCKETPAIR,
	CHECK_PERSONALITY,
	CHECK_PIPE2,
	CHECK_PRLIMIT,
	CHECK_FCNTL,
	CHECK_SETID_1,	/* mode in argument 1 */
	CHECK_SETID_2,	/* mode in argument 2 */
	CHECK_OPEN_1_2,	/* flags in 1, mode in 2 */
	CHECK_OPEN_2_3,	/* flags in 2, mode in 3 */
	CHECK_MKNOD_1,
	CHECK_MKNOD_2,
	CHECK_RENAME,
	CHECK_MMAP,
};

static enum arg_check check_of(int nr)
{
	switch (nr) {
	case __NR_clone: return CHECK_CLONE;
	case __NR_ioctl: return CHECK_IOCTL;
	case __NR_socket: return CHECK_SOCKET;
	case __NR_socketpair: return CHECK_SOCKETPAIR;
	case __NR_personality: return CHECK_PERSONALITY;
	case __NR_pipe2: return CHECK_PIPE2;
	case __NR_prlimit64: return CHECK_PRLIMIT;
	case __NR_fcntl: return CHECK_FCNTL;
	/* The legacy calls exist on x86_64 only; each effect has its *at
	 * form too, checked the same way on every architecture. */
#ifdef __NR_chmod
	case __NR_chmod: return CHECK_SETID_1;
#endif
#ifdef __NR_creat
	case __NR_creat: return CHECK_SETID_1;
#endif
	case __NR_fchmod: return CHECK_SETID_1;
	case __NR_fchmodat: case SC_NR_FCHMODAT2: return CHECK_SETID_2;
#ifdef __NR_open
	case __NR_open: return CHECK_OPEN_1_2;
#endif
	case __NR_openat: return CHECK_OPEN_2_3;
#ifdef __NR_mknod
	case __NR_mknod: return CHECK_MKNOD_1;
#endif
	case __NR_mknodat: return CHECK_MKNOD_2;
	case __NR_renameat2: return CHECK_RENAME;
	case __NR_mmap: return CHECK_MMAP;
	default: return CHECK_NONE;
	}
}

/* Whether NR's arguments are checked when it is allowed (mmap's only with
 * a length bound, ALLOC_MAX). */
static bool has_arg_check(int nr, uint64_t alloc_max)
{
	if (check_of(nr) == CHECK_MMAP)
		return alloc_max > 0;
	return check_of(nr) != CHECK_NONE;
}

/* The argument checks of NR, falling through to RET when they pass. */
static void emit_arg_leaf(struct gen *g, int nr, uint32_t ret)
{
	check_begin(g);
	switch (check_of(nr)) {
	case CHECK_CLONE: emit_clone_check(g); break;
	case CHECK_IOCTL: emit_ioctl_check(g); break;
	case CHECK_SOCKET: emit_socket_check(g); break;
	case CHECK_SOCKETPAIR: emit_socketpair_check(g); break;
	case CHECK_PERSONALITY: emit_personality_check(g); break;
	case CHECK_PIPE2: emit_pipe2_check(g); break;
	case CHECK_PRLIMIT: emit_prlimit_check(g); break;
	case CHECK_FCNTL: emit_fcntl_check(g); break;
	case CHECK_SETID_1: emit_setid_check(g, 1); break;
	case CHECK_SETID_2: emit_setid_check(g, 2); break;
	case CHECK_OPEN_1_2: emit_open_check(g, 1, 2); break;
	case CHECK_OPEN_2_3: emit_open_check(g, 2, 3); break;
	case CHECK_MKNOD_1: emit_mknod_check(g, 1); break;
	case CHECK_MKNOD_2: emit_mknod_check(g, 2); break;
	case CHECK_RENAME: emit_rename_check(g); break;
	case CHECK_MMAP: emit_mmap_check(g); break;
	case CHECK_NONE: break;
	}
	check_end(g);
	emit(g, RET(ret));
}

/* Emit a binary search over RUNS[lo..hi): A holds the syscall number. */
static void emit_tree(struct gen *g, const struct run *runs, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;
	unsigned at, right;

	if (hi - lo == 1) {
		if (runs[lo].args)
			emit_arg_leaf(g, runs[lo].args, runs[lo].ret);
		else
			emit(g, RET(runs[lo].ret));
		return;
	}
	/* if (nr >= runs[mid].lo) goto right; else fall into left */
	at = g->n;
	emit(g, JGE(runs[mid].lo, 0, 1));
	emit(g, JA()); /* patched below: a far jump to the right half */
	emit_tree(g, runs, lo, mid);
	right = g->n;
	if (!g->overflow)
		g->insn[at + 1].k = right - (at + 2);
	emit_tree(g, runs, mid, hi);
}

/* Whether syscalls A and B (0: none) get the same argument checks. */
static bool same_check(int a, int b)
{
	if (!a || !b)
		return a == b;
	return check_of(a) == check_of(b);
}

/* The action of each syscall number, as runs.  Returns the run count. */
static size_t build_runs(const struct seccomp_spec *spec, uint64_t alloc_max,
			 const bool *allow, const bool *deny, struct run *runs)
{
	uint32_t def = ret_of(spec->default_action, spec->errno_value);
	uint32_t deny_ret = spec->deny_action == SC_KILL ? SECCOMP_RET_KILL_PROCESS
							  : RET_EPERM;
	size_t n = 0;

	for (int nr = 0; nr <= SC_NR_MAX; nr++) {
		uint32_t ret = nr == SC_NR_MAX ? def
			     : deny[nr] ? deny_ret : allow[nr] ? SECCOMP_RET_ALLOW : def;
		int args = 0;

		/* clone3's flags and openat2's mode live in memory seccomp
		 * cannot read; both have an older call libraries fall back to. */
		if (nr == __NR_clone3 || (nr == __NR_openat2 && ret == SECCOMP_RET_ALLOW))
			ret = RET_ENOSYS;
		if (has_arg_check(nr, alloc_max) && ret == SECCOMP_RET_ALLOW)
			args = nr;
		/* Namespace flags are refused even if clone is otherwise
		 * denied with ERRNO or left to the default. */
		if (nr == __NR_clone && ret != SECCOMP_RET_KILL_PROCESS)
			args = nr;
		if (n && runs[n - 1].ret == ret && same_check(runs[n - 1].args, args))
			continue;
		runs[n++] = (struct run){ .lo = (uint32_t)nr, .ret = ret, .args = args };
	}
	return n;
}

static void emit_prologue(struct gen *g)
{
	/* Foreign ABIs (i386 int 0x80, AArch32) carry another arch value and
	 * other numbers: kill. */
	check_begin(g);
	emit(g, LD(offsetof(struct seccomp_data, arch)));
	jeq(g, SC_AUDIT_ARCH, L1, NEXT);
	emit(g, RET(SECCOMP_RET_KILL_PROCESS));
	/* the search below starts from the number in A */
	label(g, L1);
	emit(g, LD(offsetof(struct seccomp_data, nr)));
#if SC_HAS_X32
	/* x32 calls use x86_64's arch value with bit 30 set in the number. */
	jset(g, SC_X32_SYSCALL_BIT, NEXT, OUT);
	emit(g, RET(SECCOMP_RET_KILL_PROCESS));
#endif
	check_end(g);
	/* scnotify.c keeps these kills in the kernel by their position */
	if (g->n != SC_PROLOGUE_LEN)
		g->overflow = true;
}

/*
 * Learning: allow every syscall the policy neither allows nor denies and
 * no @group but @default names; what a group holds is kept apart for a
 * reason the trial run cannot judge (scgroups.c says which).
 */
static void mark_learnable(bool *allow, const bool *deny)
{
	bool grouped[SC_NR_MAX] = { false };

	for (size_t i = 0; i < sc_groups_count; i++)
		if (strcmp(sc_groups[i].name, "@default") != 0)
			for (const char *const *s = sc_groups[i].syscalls; *s; s++)
				(void)sc_mark_syscall(grouped, *s);
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		char *name;

		if (allow[nr] || deny[nr] || grouped[nr])
			continue;
		/* only what a policy can name: the learned policy lists names */
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		allow[nr] = name != NULL;
		free(name);
	}
}

static int build(const struct seccomp_spec *spec, bool learn, uint64_t alloc_max,
		 struct sock_fprog *out, struct sbx_err *err)
{
	bool allow[SC_NR_MAX] = { false }, deny[SC_NR_MAX] = { false };
	struct run runs[SC_NR_MAX + 1];
	struct gen *g;
	size_t nruns;

	if (sc_expand(&spec->allow, allow, "allow", err) < 0 ||
	    sc_expand(&spec->deny, deny, "deny", err) < 0 || sc_spec_rules(spec, err) < 0 ||
	    sc_lift_cmdline_allows(spec, deny, err) < 0)
		return -1;
	if (learn)
		mark_learnable(allow, deny);
	g = malloc(sizeof(*g));
	if (!g)
		return err_set(err, ERR_INTERNAL, ENOMEM, "seccomp: out of memory");
	g->n = 0;
	g->overflow = false;
	/* a bound at 2^47 or more (the whole user address space) is none */
	g->alloc_max = alloc_max < (1ull << 47) ? alloc_max : 0;
	nruns = build_runs(spec, g->alloc_max, allow, deny, runs);
	emit_prologue(g);
	emit_tree(g, runs, 0, nruns);
	if (g->overflow) {
		free(g);
		return err_set(err, ERR_SETUP, E2BIG, "seccomp: the filter is "
			       "larger than %d instructions", BPF_MAXINSNS);
	}
	out->filter = malloc(g->n * sizeof(struct sock_filter));
	if (!out->filter) {
		free(g);
		return err_set(err, ERR_SETUP, ENOMEM, "seccomp: out of memory");
	}
	memcpy(out->filter, g->insn, g->n * sizeof(struct sock_filter));
	out->len = g->n;
	free(g);
	return 0;
}

int sc_filter_build(const struct seccomp_spec *spec, struct sock_fprog *out,
		    struct sbx_err *err)
{
	return build(spec, false, 0, out, err);
}

int sc_filter_build_run(const struct seccomp_spec *spec, uint64_t alloc_max,
			struct sock_fprog *out, struct sbx_err *err)
{
	return build(spec, false, alloc_max, out, err);
}

int sc_filter_build_learn(const struct seccomp_spec *spec, struct sock_fprog *out,
			  struct sbx_err *err)
{
	return build(spec, true, 0, out, err);
}

void sc_filter_free(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}

int sc_filter_load(const struct sock_fprog *prog)
{
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog);
}
