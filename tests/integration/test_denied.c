/*
 * test_denied.c - the record says what the seccomp filter refused:
 * denied_syscalls by name, count, errno and the argument that
 * decided; a KILL rule named in the message; null, never [], when there
 * is no report.  Learn mode is test_learn.c.
 */
#include "common.h"
#include "test_probes_common.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

TestSuite(denied, .init = probes_require_jail);

/* The entry of denied_syscalls named NAME (with ARG when not NULL). */
static const cJSON *denied_entry(const struct sbx_result *r, const char *name, const char *arg)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(r->record, "denied_syscalls"), *e;

	cr_assert(cJSON_IsArray(list), "denied_syscalls is not an array:\n%s", r->err);
	cJSON_ArrayForEach(e, list) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "arg");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name) &&
		    (!arg || (cJSON_IsString(a) && !strcmp(a->valuestring, arg))))
			return e;
	}
	cr_assert_fail("no %s%s%s in denied_syscalls: %s", name, arg ? " " : "", arg ? arg : "",
		       cJSON_PrintUnformatted(list));
	return NULL;
}

static void expect_entry(const struct sbx_result *r, const char *name, const char *arg,
			 double count, const char *err)
{
	const cJSON *e = denied_entry(r, name, arg);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "count");
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(e, "errno");

	cr_assert(cJSON_IsNumber(c) && c->valuedouble == count, "%s: count %g, want %g", name,
		  cJSON_IsNumber(c) ? c->valuedouble : -1, count);
	if (err)
		cr_assert(cJSON_IsString(en) && !strcmp(en->valuestring, err), "%s: errno %s, want %s",
			  name, cJSON_IsString(en) ? en->valuestring : "(not a string)", err);
	else
		cr_assert(cJSON_IsNull(en), "%s: errno should be null for a kill", name);
}

/* The question users ask most: `unshare -U true` says EPERM; which call? */
Test(denied, unshare_userns_is_reported_by_name_once)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "--", "unshare", "-U", "true"));
	ASSERT_STATUS(&r, "nonzero-exit");
	expect_entry(&r, "unshare", NULL, 1, "EPERM");
	sbx_result_free(&r);
}

/* One allocation past RLIMIT_DATA (2 x memory_mb): Python's MemoryError
 * ended the run "exited with code 1", and a service could not tell it from
 * a bug.  The refusal is reported with its length, and the message says
 * what it was.  (With a cgroup there is no such bound: not run there.) */
Test(denied, an_allocation_larger_than_a_process_may_hold_is_named)
{
	struct sbx_result r;
	const cJSON *e = NULL, *arr;

	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("SKIP: /usr/bin/python3 is missing (Debian package python3)");
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/usr/bin/python3", "-c", "bytearray(2 << 30)"));
	ASSERT_STATUS(&r, "nonzero-exit");
	arr = cJSON_GetObjectItemCaseSensitive(r.record, "denied_syscalls");
	cJSON_ArrayForEach(e, arr) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "arg");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, "mmap") && cJSON_IsString(a) &&
		    !strncmp(a->valuestring, "length=", 7) && atoll(a->valuestring + 7) >= (2ll << 30))
			break;
	}
	cr_assert_not_null(e, "no mmap refusal with its length: %s", r.err);
	cr_assert(strstr(rec_str(&r, "message"), "more memory at once"), "message: %s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* A probe refused by an argument rule: its entry names the argument. */
static void expect_probe_entry(const char *probe, const char *name, const char *arg,
			       const char *err)
{
	struct sbx_result r;
	const cJSON *e, *c, *en;

	run_probe(&r, NULL, NULL, probe, NULL);
	expect_blocked(&r);
	e = denied_entry(&r, name, arg);
	c = cJSON_GetObjectItemCaseSensitive(e, "count");
	en = cJSON_GetObjectItemCaseSensitive(e, "errno");
	cr_assert(cJSON_IsNumber(c) && c->valuedouble >= 1, "%s %s: no count", name, arg);
	cr_assert(cJSON_IsString(en) && !strcmp(en->valuestring, err), "%s %s: errno %s, want %s",
		  name, arg, cJSON_IsString(en) ? en->valuestring : "(none)", err);
	sbx_result_free(&r);
}

Test(denied, packet_socket_names_the_family)
{
	expect_probe_entry("net_packet_socket", "socket", "family=AF_PACKET", "EAFNOSUPPORT");
}

Test(denied, tiocsti_names_the_request)
{
	expect_probe_entry("priv_tiocsti", "ioctl", "request=TIOCSTI", "EPERM");
}

Test(denied, clone_newuser_names_the_flags)
{
	expect_probe_entry("priv_clone_userns", "clone", "flags=CLONE_NEWUSER", "EPERM");
}

Test(denied, keyctl_and_bpf_are_named)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "priv_keyctl", NULL);
	expect_blocked(&r);
	expect_entry(&r, "keyctl", NULL, 1, "EPERM");
	sbx_result_free(&r);
	run_probe(&r, NULL, NULL, "priv_bpf", NULL);
	expect_blocked(&r);
	expect_entry(&r, "bpf", NULL, 1, "EPERM");
	cr_assert_null(cJSON_GetObjectItemCaseSensitive(denied_entry(&r, "bpf", NULL), "arg"),
		       "bpf is refused as a call, not for an argument");
	sbx_result_free(&r);
}

/* Hammering a refused call: every call answered as before, each counted. */
Test(denied, a_100000_call_loop_is_counted_exactly, .timeout = 300)
{
	struct sbx_opts o = { .deadline_s = 240 };
	struct sbx_result r;

	run_probe(&r, &o, SBX_ARGV("--time", "200s", "--cpu", "200s"), "priv_keyctl_loop",
		  SBX_ARGV("100000"));
	expect_blocked(&r);
	expect_entry(&r, "keyctl", NULL, 100000, "EPERM");
	sbx_result_free(&r);
}

/* 1000 distinct refused personas: the table stays bounded (an argument
 * gets an entry of its own only while half the table is free), and the
 * counts still add up. */
Test(denied, distinct_arguments_are_bounded_and_still_counted)
{
	struct sbx_result r;
	const cJSON *list, *e;
	double total = 0;

	run_probe(&r, NULL, NULL, "priv_keyctl_loop", SBX_ARGV("1000", "personality"));
	expect_blocked(&r);
	list = cJSON_GetObjectItemCaseSensitive(r.record, "denied_syscalls");
	cr_assert(cJSON_IsArray(list));
	cr_assert_leq(cJSON_GetArraySize(list), 128, "%d entries", cJSON_GetArraySize(list));
	cJSON_ArrayForEach(e, list)
		total += cJSON_GetObjectItemCaseSensitive(e, "count")->valuedouble;
	cr_assert_eq(total, 1000, "counts add up to %g", total);
	expect_entry(&r, "personality", "persona=0x100", 1, "EPERM");
	sbx_result_free(&r);
}

/* deny_action = KILL: the record names the call that killed. */
Test(denied, kill_rule_names_the_call)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--set", "seccomp.deny_action=KILL"), "priv_keyctl", NULL);
	ASSERT_STATUS(&r, "seccomp");
	cr_assert_eq(r.exit_status, 159, "exit %d", r.exit_status);
	cr_assert(strstr(rec_str(&r, "message"), "keyctl"), "message: %s", rec_str(&r, "message"));
	expect_entry(&r, "keyctl", NULL, 1, NULL);
	cr_assert(strstr(r.out, "ESCAPED") == NULL && strstr(r.out, "BLOCKED") == NULL,
		  "the call returned instead of killing: %s", r.out);
	sbx_result_free(&r);
}

/* The ABI rule kills in the kernel: seccomp, and the message says which rule. */
Test(denied, abi_kill_says_another_abi)
{
	struct sbx_result r;

	run_probe(&r, NULL, NULL, "priv_int80", NULL);
	ASSERT_STATUS(&r, "seccomp");
	cr_assert(strstr(rec_str(&r, "message"), "another ABI"), "message: %s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* Nothing refused: [], which is not the same as "no report". */
Test(denied, nothing_refused_is_an_empty_list)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/true"));
	ASSERT_STATUS(&r, "ok");
	cr_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r.record, "denied_syscalls")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.record,
									  "denied_syscalls")), 0);
	sbx_result_free(&r);
}

/* A program that refuses nothing pays only the listener's hand-over: its
 * hang-up at the end starts no serving thread (-v says when one starts). */
Test(denied, nothing_refused_starts_no_serving_thread)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "-v", "--", "/bin/true"));
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.err, "seccomp listener received"), "stderr: %.3000s", r.err);
	cr_assert(!strstr(r.err, "serving the listener in a thread"), "stderr: %.3000s", r.err);
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "-v", "--", "unshare", "-U", "true"));
	cr_assert(strstr(r.err, "serving the listener in a thread"), "stderr: %.3000s", r.err);
	sbx_result_free(&r);
}

/* --no-syscall-report: null, and the program still sees the same errno. */
Test(denied, no_report_is_null_and_the_same_errno)
{
	struct sbx_result r;

	run_probe(&r, NULL, SBX_ARGV("--no-syscall-report"), "priv_keyctl", NULL);
	expect_blocked(&r);
	expect_errno(&r, "EPERM", NULL);
	cr_assert(rec_is_null(&r, "denied_syscalls"), "denied_syscalls is not null: %s", r.err);
	sbx_result_free(&r);
}

/* -v logs each first refusal as it happens. */
Test(denied, verbose_logs_the_first_refusal)
{
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "-v", "--", "unshare", "-U", "true"));
	cr_assert(strstr(r.err, "refused unshare: EPERM"), "stderr: %.3000s", r.err);
	sbx_result_free(&r);
}

/* Receive one fd sent with SCM_RIGHTS on SOCK; -1 if none came. */
static int recv_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != 1 || !(c = CMSG_FIRSTHDR(&mh)) ||
	    c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* In a child: install a filter with a listener (for a call nobody makes),
 * hand the listener to the parent, which keeps it open, then exec ARGV. */
static void exec_under_listener(int sock, char *const argv[])
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 183 /* afs_syscall */, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = insns };
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	int fd = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
		 ? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) : -1;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (fd < 0 || sendmsg(sock, &mh, 0) != 1)
		_exit(99);
	close(fd);
	fd = open("/dev/null", O_WRONLY); /* unshare's own complaint */
	dup2(fd, 2);
	execv(argv[0], argv);
	_exit(98);
}

/* A filter with a listener above sbx (sbx in sbx, another supervisor): the
 * kernel allows no second one (EBUSY); the run works as before, and the
 * record says there is no report: null. */
Test(denied, a_listener_above_sbx_gives_null_not_a_failure)
{
	char *dir = make_temp_dir(), *rec = xasprintf("%s/record.json", dir), text[65536];
	char *argv[] = { (char *)sbx_path(), "run", "-q", "-r", rec, "--", "unshare", "-U",
			 "true", NULL };
	int sv[2], status, listener, fd;
	ssize_t n;
	cJSON *o;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	if (pid == 0)
		exec_under_listener(sv[1], argv);
	close(sv[1]);
	listener = recv_fd(sv[0]);
	waitpid(pid, &status, 0);
	close(sv[0]);
	cr_assert_geq(listener, 0, "the child could not install a filter with a listener");
	close(listener);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1,
		  "sbx under a listener: status %#x, want the program's exit 1", status);
	fd = open(rec, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "no record at %s", rec);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	o = cJSON_Parse(text);
	cr_assert_not_null(o, "record: %s", text);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "denied_syscalls")),
		  "denied_syscalls is not null under a listener above sbx: %s", text);
	cJSON_Delete(o);
	rm_tree(dir);
	free(rec);
	free(dir);
}
