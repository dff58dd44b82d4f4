/*
 * scnotify.c - the report twin of a filter program, and the supervisor's
 * side of it: a classic-BPF interpreter for the programs seccomp.c emits,
 * syscall names, and which argument made a fixed rule refuse a call.
 *
 * The answer to a notification is computed, not remembered: the policy's
 * own program runs on the notification's seccomp_data, so the errno (or
 * the kill) is the one the kernel would have given, argument rules
 * included.  Nothing here trusts the data beyond bounds checks: a
 * program never reads outside struct seccomp_data.
 */
#include "jail/scnotify.h"
#include "jail/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define NS_FLAGS                                                              \
	((uint64_t)(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET))
#define NR_FCHMODAT2 452
#define O_NOTIF_PIPE O_EXCL /* pipe2's O_NOTIFICATION_PIPE */

uint32_t sc_eval(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	const unsigned char *data = (const unsigned char *)d;
	uint32_t a = 0;

	for (uint32_t pc = 0; prog->filter && pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k % 4 || f->k > sizeof(*d) - 4)
				return SECCOMP_RET_KILL_PROCESS;
			memcpy(&a, data + f->k, 4);
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			return SECCOMP_RET_KILL_PROCESS;
		}
	}
	return SECCOMP_RET_KILL_PROCESS;
}

/* A refusal the supervisor can answer for: an errno, or a policy's kill. */
static bool reported(uint32_t k)
{
	uint32_t action = k & SECCOMP_RET_ACTION_FULL;

	return action == SECCOMP_RET_ERRNO || action == SECCOMP_RET_KILL_PROCESS ||
	       action == SECCOMP_RET_KILL_THREAD;
}

int sc_filter_notify(const struct sock_fprog *policy, struct sock_fprog *out)
{
	out->filter = malloc(policy->len * sizeof(struct sock_filter));
	out->len = 0;
	if (!out->filter)
		return -1;
	memcpy(out->filter, policy->filter, policy->len * sizeof(struct sock_filter));
	out->len = policy->len;
	/* the prologue's ABI kills stay in the kernel: their numbers are of
	 * another table, and no answer could be more final */
	for (uint32_t i = SC_PROLOGUE_LEN; i < out->len; i++)
		if (out->filter[i].code == (BPF_RET | BPF_K) && reported(out->filter[i].k))
			out->filter[i].k = SECCOMP_RET_USER_NOTIF;
	return 0;
}

static uint32_t eval_call(const struct sock_fprog *p, int nr, uint64_t a0)
{
	struct seccomp_data d = { .nr = nr, .arch = SC_AUDIT_ARCH, .args = { a0 } };

	return sc_eval(p, &d);
}

bool sc_can_pass_listener(const struct sock_fprog *policy)
{
	return eval_call(policy, __NR_sendmsg, 3) == SECCOMP_RET_ALLOW &&
	       eval_call(policy, __NR_write, 3) == SECCOMP_RET_ALLOW;
}

void sc_syscall_name(int nr, char *buf, size_t size)
{
	char *name = nr >= 0 ? seccomp_syscall_resolve_num_arch(SC_SCMP_ARCH, nr) : NULL;

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "syscall_%d", nr);
	free(name);
}

/* The argument that holds the mode of a call the set-id rule checks. */
static int mode_arg(int nr)
{
#ifdef __NR_open
	if (nr == __NR_open)
		return 2;
#endif
	if (nr == __NR_openat)
		return 3;
	return nr == __NR_fchmodat || nr == NR_FCHMODAT2 ? 2 : 1;
}

/* The argument a fixed rule of NR checks for the refusal ERR, a value of
 * it that rule lets pass, and the bits of the actual value that matter. */
static int rule_arg(int nr, int err, const uint64_t *args, uint64_t *neutral,
		    uint64_t *decided)
{
	uint32_t lo0 = (uint32_t)args[0], lo1 = (uint32_t)args[1];

	switch (nr) {
	case __NR_clone:
		*neutral = args[0] & ~NS_FLAGS;
		*decided = args[0] & NS_FLAGS;
		return 0;
	case __NR_ioctl:
		*neutral = TCGETS;
		*decided = lo1;
		return 1;
	case __NR_socket:
		if (err == EAFNOSUPPORT)
			return *neutral = AF_UNIX, *decided = lo0, 0;
		if (err == ESOCKTNOSUPPORT)
			return *neutral = SOCK_STREAM, *decided = lo1 & 0xf, 1;
		*neutral = 0;
		*decided = (uint32_t)args[2];
		return 2;
	case __NR_socketpair:
		return *neutral = AF_UNIX, *decided = lo0, 0;
	case __NR_personality:
		return *neutral = 0, *decided = lo0, 0;
	case __NR_pipe2:
		return *neutral = args[1] & ~(uint64_t)O_NOTIF_PIPE, *decided = lo1 & O_NOTIF_PIPE, 1;
#ifdef __NR_chmod
	case __NR_chmod:
	case __NR_creat:
	case __NR_open:
#endif
	case __NR_fchmod:
	case __NR_fchmodat:
	case NR_FCHMODAT2:
	case __NR_openat: {
		int i = mode_arg(nr);
		*neutral = args[i] & ~(uint64_t)(S_ISUID | S_ISGID);
		*decided = (uint32_t)args[i] & 07777;
		return i;
	}
#ifdef __NR_mknod
	case __NR_mknod:
#endif
	case __NR_mknodat: {
		/* a plain file of the same permissions passes both rules */
		int i = nr == __NR_mknodat ? 2 : 1;
		*neutral = args[i] & 01777;
		*decided = args[i] & 0xffff;
		return i;
	}
	case __NR_mmap:
		return *neutral = 4096, *decided = args[1], 1;
	case __NR_fcntl:
		return *neutral = 4096, *decided = (uint32_t)args[2], 2;
	case __NR_renameat2:
		return *neutral = args[4] & ~(uint64_t)RENAME_WHITEOUT,
		       *decided = args[4] & RENAME_WHITEOUT, 4;
	default:
		return -1;
	}
}

int sc_deciding_arg(const struct sock_fprog *policy, const struct seccomp_data *d,
		    uint32_t ret, uint64_t *value)
{
	struct seccomp_data n = *d;
	uint64_t neutral, decided, args[6];
	int err = (ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO
			  ? (int)(ret & SECCOMP_RET_DATA) : 0;
	int i;

	for (int k = 0; k < 6; k++)
		args[k] = d->args[k];
	i = rule_arg(d->nr, err, args, &neutral, &decided);

	if (i < 0)
		return -1;
	/* a refusal of the whole call (a deny entry, the default) is not
	 * the argument's doing */
	n.args[i] = neutral;
	if (sc_eval(policy, &n) == ret)
		return -1;
	*value = decided;
	return i;
}

static const struct { uint64_t v; const char *name; } families[] = {
	{ AF_PACKET, "AF_PACKET" }, { AF_VSOCK, "AF_VSOCK" }, { AF_ALG, "AF_ALG" },
	{ AF_BLUETOOTH, "AF_BLUETOOTH" }, { AF_KEY, "AF_KEY" }, { AF_CAN, "AF_CAN" },
	{ AF_TIPC, "AF_TIPC" }, { AF_RDS, "AF_RDS" }, { AF_XDP, "AF_XDP" },
	{ AF_NFC, "AF_NFC" }, { AF_KCM, "AF_KCM" }, { AF_SMC, "AF_SMC" },
	{ AF_QIPCRTR, "AF_QIPCRTR" }, { AF_LLC, "AF_LLC" }, { AF_PPPOX, "AF_PPPOX" },
	{ AF_APPLETALK, "AF_APPLETALK" }, { AF_X25, "AF_X25" }, { AF_AX25, "AF_AX25" },
	{ AF_IPX, "AF_IPX" }, { AF_IEEE802154, "AF_IEEE802154" }, { AF_INET, "AF_INET" },
	{ AF_INET6, "AF_INET6" }, { AF_NETLINK, "AF_NETLINK" }, { AF_UNIX, "AF_UNIX" },
};

static const struct { uint64_t v; const char *name; } ns_flags[] = {
	{ CLONE_NEWUSER, "CLONE_NEWUSER" }, { CLONE_NEWNS, "CLONE_NEWNS" },
	{ CLONE_NEWPID, "CLONE_NEWPID" }, { CLONE_NEWNET, "CLONE_NEWNET" },
	{ CLONE_NEWIPC, "CLONE_NEWIPC" }, { CLONE_NEWUTS, "CLONE_NEWUTS" },
	{ CLONE_NEWCGROUP, "CLONE_NEWCGROUP" },
};

static void flags_text(uint64_t v, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++)
		if ((v & ns_flags[i].v) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "|" : "",
						ns_flags[i].name);
}

static const char *family_name(uint64_t v)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].v == v)
			return families[i].name;
	return NULL;
}

static const char *ioctl_name(uint64_t v)
{
	return v == TIOCSTI ? "TIOCSTI" : v == TIOCLINUX ? "TIOCLINUX"
	       : v == TIOCSETD ? "TIOCSETD" : NULL;
}

void sc_arg_text(int nr, int arg, uint64_t value, char *buf, size_t size)
{
	char flags[160];
	const char *name = NULL;

	if (arg < 0) {
		buf[0] = '\0';
	} else if (nr == __NR_clone) {
		flags_text(value, flags, sizeof(flags));
		snprintf(buf, size, "flags=%s", flags);
	} else if (nr == __NR_ioctl) {
		name = ioctl_name(value);
		if (name)
			snprintf(buf, size, "request=%s", name);
		else
			snprintf(buf, size, "request=0x%llx", (unsigned long long)value);
	} else if ((nr == __NR_socket || nr == __NR_socketpair) && arg == 0) {
		name = family_name(value);
		if (name)
			snprintf(buf, size, "family=%s", name);
		else
			snprintf(buf, size, "family=%llu", (unsigned long long)value);
	} else if (nr == __NR_socket) {
		snprintf(buf, size, "%s=%llu", arg == 1 ? "type" : "protocol",
			 (unsigned long long)value);
	} else if (nr == __NR_personality) {
		snprintf(buf, size, "persona=0x%llx", (unsigned long long)value);
	} else if (nr == __NR_pipe2) {
		snprintf(buf, size, "flags=O_NOTIFICATION_PIPE");
	} else if (nr == __NR_mmap) {
		snprintf(buf, size, "length=%llu", (unsigned long long)value);
	} else if (nr == __NR_fcntl) {
		snprintf(buf, size, "pipe_size=%llu", (unsigned long long)value);
	} else if (nr == __NR_renameat2) {
		snprintf(buf, size, "flags=RENAME_WHITEOUT");
	} else {
		snprintf(buf, size, "mode=0%llo", (unsigned long long)value);
	}
}
