/*
 * test_scnotify.c - the reporting twin of a filter and the answers the
 * supervisor computes for it (jail/scnotify.h), the learning program, and
 * the record's denied_syscalls array (record/denied.h).  Nothing is
 * loaded into the kernel: sc_eval runs the programs (test_seccomp.c checks
 * sc_eval against its own interpreter).
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "jail/scnotify.h"
#include "jail/seccomp.h"
#include "policy/policy.h"
#include "record/denied.h"
#include "record/internal.h" /* denied_json */

#define RET_ERR(e) (SECCOMP_RET_ERRNO | (e))

/* The built-in default policy's program (LEARN: its learning program),
 * with EXTRA_DENY denied and DENY_ACTION. */
static void build(struct sock_fprog *prog, bool learn, const char *extra_deny,
		  enum sc_action deny_action)
{
	struct policy p;
	struct sbx_err err = { 0 };

	cr_assert_eq(policy_load("default", &p, &err), 0, "%s", err.msg);
	if (extra_deny)
		cr_assert_eq(strlist_push(&p.seccomp.deny, extra_deny, NULL), 0);
	p.seccomp.deny_action = deny_action;
	cr_assert_eq((learn ? sc_filter_build_learn : sc_filter_build)(&p.seccomp, prog, &err), 0,
		     "%s", err.msg);
	policy_free(&p);
}

static struct seccomp_data data3(int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct seccomp_data d = { .nr = nr, .arch = SC_AUDIT_ARCH };

	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	return d;
}

static uint32_t call(const struct sock_fprog *p, int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct seccomp_data d = data3(nr, a0, a1, a2);

	return sc_eval(p, &d);
}

static bool refusal(uint32_t ret)
{
	uint32_t a = ret & SECCOMP_RET_ACTION_FULL;

	return a == SECCOMP_RET_ERRNO || a == SECCOMP_RET_KILL_PROCESS;
}

static const uint64_t arg_samples[] = {
	0, 1, AF_PACKET, AF_VSOCK, CLONE_NEWUSER | SIGCHLD, TIOCSTI, 0x400000, 04755, O_EXCL,
	0xffffffff, 0x123456789ull,
};
#define NSAMPLES (sizeof(arg_samples) / sizeof(arg_samples[0]))

/* Every refusal of the policy is a notification in the twin, and nothing
 * else changes; the ABI kills stay in the kernel. */
static void check_twin(enum sc_action deny_action)
{
	struct sock_fprog p, n;

	build(&p, false, NULL, deny_action);
	cr_assert_eq(sc_filter_notify(&p, &n), 0);
	for (int nr = 0; nr < SC_NR_MAX + 64; nr++) {
		for (size_t i = 0; i < NSAMPLES; i++) {
			for (size_t j = 0; j < NSAMPLES; j++) {
				uint64_t a = arg_samples[i], b = arg_samples[j];
				uint32_t want = call(&p, nr, a, b, b), got = call(&n, nr, a, b, b);

				if (refusal(want))
					cr_assert_eq(got, SECCOMP_RET_USER_NOTIF,
						     "nr %d (%#llx, %#llx): %#x not reported", nr,
						     (unsigned long long)a, (unsigned long long)b, want);
				else
					cr_assert_eq(got, want, "nr %d: %#x became %#x", nr, want, got);
			}
		}
	}
	struct seccomp_data i386 = data3(__NR_getpid, 0, 0, 0), x32 = i386;
	i386.arch = AUDIT_ARCH_I386;
	cr_assert_eq(sc_eval(&n, &i386), SECCOMP_RET_KILL_PROCESS);
	i386.arch = AUDIT_ARCH_ARM;
	cr_assert_eq(sc_eval(&n, &i386), SECCOMP_RET_KILL_PROCESS);
#if SC_HAS_X32
	x32.nr |= SC_X32_SYSCALL_BIT;
	cr_assert_eq(sc_eval(&n, &x32), SECCOMP_RET_KILL_PROCESS);
#else
	(void)x32;
#endif
	sc_filter_free(&p);
	sc_filter_free(&n);
}

Test(scnotify, twin_reports_every_errno_refusal)
{
	check_twin(SC_ERRNO);
}

Test(scnotify, twin_reports_every_kill_rule_too)
{
	check_twin(SC_KILL);
}

Test(scnotify, answers_are_the_policys_own)
{
	struct sock_fprog p;

	build(&p, false, NULL, SC_ERRNO);
	cr_assert_eq(call(&p, __NR_unshare, CLONE_NEWUSER, 0, 0), RET_ERR(EPERM));
	cr_assert_eq(call(&p, __NR_keyctl, 0, 0, 0), RET_ERR(EPERM));
	cr_assert_eq(call(&p, __NR_set_mempolicy, 0, 0, 0), RET_ERR(ENOSYS));
	cr_assert_eq(call(&p, __NR_socket, AF_PACKET, SOCK_RAW, 0), RET_ERR(EAFNOSUPPORT));
	cr_assert_eq(call(&p, __NR_clone3, 0, 0, 0), RET_ERR(ENOSYS));
	cr_assert_eq(call(&p, __NR_read, 0, 0, 0), SECCOMP_RET_ALLOW);
	sc_filter_free(&p);
}

/* Learning lets through what no group holds, nothing a group or a rule keeps out. */
Test(scnotify, learning_program_allows_ungrouped_calls_only)
{
	struct sock_fprog l;

	build(&l, true, NULL, SC_ERRNO);
	cr_assert_eq(call(&l, __NR_set_mempolicy, 0, 0, 0), SECCOMP_RET_ALLOW);
	cr_assert_eq(call(&l, __NR_mbind, 0, 0, 0), SECCOMP_RET_ALLOW);
	cr_assert_eq(call(&l, __NR_read, 0, 0, 0), SECCOMP_RET_ALLOW);
	cr_assert_eq(call(&l, __NR_keyctl, 0, 0, 0), RET_ERR(EPERM), "@keyring, denied");
	cr_assert_eq(call(&l, __NR_memfd_create, 0, 0, 0), RET_ERR(ENOSYS), "@shared-memory");
	cr_assert_eq(call(&l, __NR_msgget, 0, 0, 0), RET_ERR(ENOSYS), "@shared-memory");
	cr_assert_eq(call(&l, __NR_socket, AF_PACKET, SOCK_RAW, 0), RET_ERR(EAFNOSUPPORT));
	cr_assert_eq(call(&l, __NR_clone, CLONE_NEWUSER | SIGCHLD, 0, 0), RET_ERR(EPERM));
	cr_assert_eq(call(&l, __NR_clone3, 0, 0, 0), RET_ERR(ENOSYS));
	cr_assert_eq(call(&l, __NR_ioctl, 0, TIOCSTI, 0), RET_ERR(EPERM));
	cr_assert(refusal(call(&l, SC_NR_MAX + 5, 0, 0, 0)), "unknown numbers are not learned");
	sc_filter_free(&l);
	/* an explicit deny of an ungrouped call stands */
	build(&l, true, "set_mempolicy", SC_ERRNO);
	cr_assert_eq(call(&l, __NR_set_mempolicy, 0, 0, 0), RET_ERR(EPERM));
	sc_filter_free(&l);
}

static int deciding(const struct sock_fprog *p, int nr, uint64_t a0, uint64_t a1, uint64_t a2,
		    uint64_t *value)
{
	struct seccomp_data d = data3(nr, a0, a1, a2);

	return sc_deciding_arg(p, &d, sc_eval(p, &d), value);
}

Test(scnotify, the_argument_that_decided)
{
	struct sock_fprog p;
	uint64_t v = 0;
	char text[64];

	build(&p, false, NULL, SC_ERRNO);
	cr_assert_eq(deciding(&p, __NR_socket, AF_PACKET, SOCK_RAW, 0, &v), 0);
	cr_assert_eq(v, AF_PACKET);
	sc_arg_text(__NR_socket, 0, v, text, sizeof(text));
	cr_assert_str_eq(text, "family=AF_PACKET");
	cr_assert_eq(deciding(&p, __NR_socket, AF_INET, 10 /* SOCK_PACKET */, 0, &v), 1);
	cr_assert_eq(v, 10);
	cr_assert_eq(deciding(&p, __NR_socket, AF_INET, SOCK_STREAM, 132, &v), 2);
	cr_assert_eq(deciding(&p, __NR_clone, CLONE_NEWUSER | CLONE_NEWNET | SIGCHLD, 0, 0, &v), 0);
	sc_arg_text(__NR_clone, 0, v, text, sizeof(text));
	cr_assert_str_eq(text, "flags=CLONE_NEWUSER|CLONE_NEWNET");
	cr_assert_eq(deciding(&p, __NR_ioctl, 0, TIOCSTI, 0, &v), 1);
	sc_arg_text(__NR_ioctl, 1, v, text, sizeof(text));
	cr_assert_str_eq(text, "request=TIOCSTI");
	cr_assert_eq(deciding(&p, __NR_pipe2, 0, O_EXCL | O_CLOEXEC, 0, &v), 1);
	cr_assert_eq(deciding(&p, __NR_fchmodat, 3, 0, 04755, &v), 2);
	sc_arg_text(__NR_fchmodat, 2, v, text, sizeof(text));
	cr_assert_str_eq(text, "mode=04755");
	cr_assert_eq(deciding(&p, __NR_personality, 0x400000, 0, 0, &v), 0);
	cr_assert_eq(deciding(&p, __NR_keyctl, 0, 0, 0, &v), -1, "keyctl is refused as a call");
	sc_filter_free(&p);
	/* a deny entry refuses the whole call: not the argument's doing */
	build(&p, false, "fchmodat", SC_ERRNO);
	cr_assert_eq(deciding(&p, __NR_fchmodat, 3, 0, 04755, &v), -1);
	sc_filter_free(&p);
}

/* The creating calls' rules name the mode (or the rename flag) that
 * decided, so the record says why a program's open or mknod failed. */
Test(scnotify, the_mode_that_decided_a_creating_call)
{
	struct sock_fprog p;
	struct seccomp_data d;
	uint64_t v = 0;
	char text[64];

	build(&p, false, NULL, SC_ERRNO);
#ifdef __NR_open
	cr_assert_eq(deciding(&p, __NR_open, 0, O_CREAT | O_WRONLY, 06755, &v), 2);
	sc_arg_text(__NR_open, 2, v, text, sizeof(text));
	cr_assert_str_eq(text, "mode=06755");
	cr_assert_eq(deciding(&p, __NR_creat, 0, 04700, 0, &v), 1);
	cr_assert_eq(deciding(&p, __NR_mknod, 0, S_IFCHR | 0644, 0, &v), 1);
	sc_arg_text(__NR_mknod, 1, v, text, sizeof(text));
	cr_assert_str_eq(text, "mode=020644");
#endif
	cr_assert_eq(deciding(&p, __NR_mknodat, AT_FDCWD, 0, S_IFCHR | 0644, &v), 2);
	sc_arg_text(__NR_mknodat, 2, v, text, sizeof(text));
	cr_assert_str_eq(text, "mode=020644");
	cr_assert_eq(deciding(&p, __NR_mknodat, AT_FDCWD, 0, S_IFREG | 02755, &v), 2);
	d = data3(__NR_openat, (uint64_t)AT_FDCWD, 0, O_CREAT);
	d.args[3] = 04755;
	cr_assert_eq(sc_deciding_arg(&p, &d, sc_eval(&p, &d), &v), 3);
	d = data3(__NR_renameat2, (uint64_t)AT_FDCWD, 0, (uint64_t)AT_FDCWD);
	d.args[4] = RENAME_WHITEOUT;
	cr_assert_eq(sc_deciding_arg(&p, &d, sc_eval(&p, &d), &v), 4);
	sc_arg_text(__NR_renameat2, 4, v, text, sizeof(text));
	cr_assert_str_eq(text, "flags=RENAME_WHITEOUT");
	cr_assert_eq(deciding(&p, __NR_fcntl, 3, F_SETPIPE_SZ, 1 << 20, &v), 2);
	sc_arg_text(__NR_fcntl, 2, v, text, sizeof(text));
	cr_assert_str_eq(text, "pipe_size=1048576");
	cr_assert_eq(deciding(&p, __NR_fcntl, 3, F_GETFL, 1 << 20, &v), -1);
	sc_filter_free(&p);
}

Test(scnotify, eval_fails_closed)
{
	struct sock_filter bad[] = { BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0),
				     BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_filter off_end[] = { BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0) };
	struct sock_filter far_load[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4096),
					  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog p1 = { 2, bad }, p2 = { 1, off_end }, p3 = { 2, far_load }, p4 = { 0, NULL };
	struct seccomp_data d = data3(0, 0, 0, 0);

	cr_assert_eq(sc_eval(&p1, &d), SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(sc_eval(&p2, &d), SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(sc_eval(&p3, &d), SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(sc_eval(&p4, &d), SECCOMP_RET_KILL_PROCESS);
}

Test(scnotify, listener_hand_over_needs_sendmsg_and_write)
{
	struct sock_fprog p;

	build(&p, false, NULL, SC_ERRNO);
	cr_assert(sc_can_pass_listener(&p));
	sc_filter_free(&p);
	build(&p, false, "sendmsg", SC_ERRNO);
	cr_assert_not(sc_can_pass_listener(&p));
	sc_filter_free(&p);
}

Test(scnotify, syscall_names)
{
	char name[32];

	sc_syscall_name(__NR_unshare, name, sizeof(name));
	cr_assert_str_eq(name, "unshare");
	sc_syscall_name(100000, name, sizeof(name));
	cr_assert_str_eq(name, "syscall_100000");
}

/* ---- the record's array ------------------------------------------------ */

Test(denied_record, null_without_a_report_and_sorted_by_count)
{
	struct denied_report *r = calloc(1, sizeof(*r));
	cJSON *j = denied_json(NULL);
	char *text;

	cr_assert(cJSON_IsNull(j));
	cJSON_Delete(j);
	r->n = 2;
	r->v[0] = (struct denied_call){ .nr = 1, .err = EPERM, .arg = -1, .count = 2, .name = "a" };
	r->v[1] = (struct denied_call){ .nr = 2, .err = 0, .arg = 0, .count = 7, .name = "b",
					.arg_text = "flags=X" };
	r->omitted = 3;
	j = denied_json(r);
	text = cJSON_PrintUnformatted(j);
	cr_assert_str_eq(text, "[{\"name\":\"b\",\"count\":7,\"action\":\"kill\",\"errno\":null,"
			       "\"arg\":\"flags=X\"},{\"name\":\"a\",\"count\":2,\"action\":\"errno\","
			       "\"errno\":\"EPERM\"},{\"name\":\"(more)\",\"count\":3,\"errno\":null}]");
	free(text);
	cJSON_Delete(j);
	free(r);
}
