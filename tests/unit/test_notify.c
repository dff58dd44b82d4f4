/*
 * test_notify.c - the supervisor's seccomp listener thread (supervise/notify.h)
 * against a real listener: a forked child loads a filter that hands its
 * getppid(2) to the listener and passes the listener back here.
 *
 * The thread's state lives in the notifier, in the caller's frame; a thread
 * that outlived notify_stop() would read that frame after it died.  So
 * notify_stop() must end the thread whatever the filtered tasks do.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/denied.h"
#include "supervise/notify.h"

/* What the child's filter sends to the listener: getppid. */
static struct sock_filter to_listener[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* The answer the supervisor computes for it: EPERM. */
static struct sock_filter answer_eperm[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
static const struct sock_fprog policy = { 4, answer_eperm };

struct filtered {
	pid_t pid;
	int sock;     /* ours: "go" bytes out, the child's errno back */
	int listener; /* -1 when this kernel gives none (then SKIP) */
	int why;      /* its errno then */
};

static void send_fd(int sock, int fd, int why)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &why, sizeof(why) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	(void)sendmsg(sock, &m, 0);
}

static int recv_fd(int sock, int *why)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { why, sizeof(*why) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &m, 0) != sizeof(*why))
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The child: on each "go" byte one getppid, its errno back; EOF ends it. */
static void child(int sock)
{
	struct sock_fprog prog = { 4, to_listener };
	char go;
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(1);
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			  &prog);
	send_fd(sock, fd, fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);
	while (read(sock, &go, 1) == 1) {
		int e = syscall(SYS_getppid) < 0 ? errno : 0;
		if (write(sock, &e, sizeof(e)) != sizeof(e))
			break;
	}
	_exit(0);
}

static void start_filtered(struct filtered *f)
{
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f->pid = fork();
	cr_assert_geq(f->pid, 0);
	if (f->pid == 0) {
		close(sv[0]);
		child(sv[1]);
	}
	close(sv[1]);
	f->sock = sv[0];
	f->listener = recv_fd(f->sock, &f->why);
}

/* One getppid in the child: the errno it got. */
static int child_calls(struct filtered *f)
{
	int e = -1;

	cr_assert_eq(write(f->sock, "g", 1), 1);
	cr_assert_eq(read(f->sock, &e, sizeof(e)), (ssize_t)sizeof(e), "the child died");
	return e;
}

static void end_filtered(struct filtered *f)
{
	int st;

	close(f->sock);
	waitpid(f->pid, &st, 0);
}

/*
 * Serve the child's listener in the thread, answer one call, and stop while
 * the child still lives and waits: its filter holds the listener open, so no
 * hang-up ends the thread.  Bug: the join timed out, the thread was detached
 * with its notifier in this frame, and the report was dropped; the next call
 * was answered (or crashed sbx) from a dead frame.  The report comes back
 * only when the thread was joined.
 */
static struct denied_report *serve_then_stop_with_a_live_task(struct filtered *f)
{
	const struct vlog quiet = { .on = false };
	struct denied_report *report = NULL;
	struct notifier n;

	notify_init(&n, &quiet, NULL);
	cr_assert_eq(notify_adopt(&n, f->listener, &policy, NULL), 0, "not a listener");
	cr_assert_eq(notify_start(&n), 0, "no serving thread");
	cr_assert_eq(child_calls(f), EPERM, "the thread did not answer with the policy's errno");
	notify_stop(&n, &report);
	return report;
}

Test(notify, stopping_with_a_filtered_task_alive_joins_the_thread_and_keeps_the_report)
{
	struct filtered f;
	struct denied_report *report;

	start_filtered(&f);
	if (f.listener < 0)
		cr_skip_test("SKIP: no seccomp listener here (%s; an outer filter with a "
			     "listener gives EBUSY)", strerror(f.why));
	report = serve_then_stop_with_a_live_task(&f);
	cr_assert_not_null(report, "the thread was abandoned: its report was dropped");
	cr_assert_eq(report->n, 1);
	cr_assert_eq(report->v[0].nr, __NR_getppid);
	cr_assert_eq(report->v[0].count, 1);
	free(report);
	/* nobody serves the listener now: the kernel's answer, not a dead frame's */
	cr_assert_eq(child_calls(&f), ENOSYS, "a call after notify_stop was still answered");
	end_filtered(&f);
}
