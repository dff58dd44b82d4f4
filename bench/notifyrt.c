/*
 * notifyrt.c - the kernel's cost of a refused syscall, answered three ways
 * (for `make bench`): in the kernel by the filter (ERRNO), by a
 * supervisor through seccomp user notification, and the same with
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6+), and that with the
 * server on EEVDF's shortest time slice (Linux 6.12+), as sbx's serving
 * thread runs.  A child makes N keyctl() calls under a 4-instruction
 * filter; the parent answers them with blocking NOTIF_RECV/NOTIF_SEND.
 * Besides the wall time per call, the CPU both sides spent per call: that
 * is what a round trip costs even on an idle machine, the bound of any
 * design that sees every refused call.
 *
 *   notifyrt N     prints one JSON object: ns per call for each way
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#define SYNC_WAKE_UP 1UL

enum way { IN_KERNEL, NOTIFY, NOTIFY_SYNC, NOTIFY_SLICE, NWAYS };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void send_fd(int sock, int fd)
{
	char b = 0;
	struct iovec io = { &b, 1 };
	union { struct cmsghdr h; char c[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.c,
			    .msg_controllen = sizeof(u.c) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &m, 0) != 1)
		_exit(3);
}

static int recv_fd(int sock)
{
	char b;
	struct iovec io = { &b, 1 };
	union { struct cmsghdr h; char c[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.c,
			    .msg_controllen = sizeof(u.c) };
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !CMSG_FIRSTHDR(&m))
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd;
}

/* The child: filter, then N refused calls; writes its loop time on OUT. */
static void child(enum way w, long n, int sock, int out)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, w == IN_KERNEL ? SECCOMP_RET_ERRNO | EPERM
							  : SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 4, f };
	double t0, dt;
	int fd;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  w == IN_KERNEL ? 0 : SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		_exit(2);
	if (w != IN_KERNEL) {
		send_fd(sock, fd);
		close(fd);
	}
	t0 = now_s();
	for (long i = 0; i < n; i++)
		if (syscall(SYS_keyctl, 0, 0, 0) != -1 || errno != EPERM)
			_exit(4);
	dt = now_s() - t0;
	if (write(out, &dt, sizeof(dt)) != sizeof(dt))
		_exit(5);
	_exit(0);
}

/* What notify.c does with RUNTIME 100000: that slice, policy and nice as
 * they are; 0 is the default slice again. */
static int set_slice(uint64_t runtime)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t prio;
		uint64_t runtime, deadline, period;
		uint32_t umin, umax;
	} a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) != 0)
		return -1;
	a.size = sizeof(a);
	a.flags = 0;
	a.runtime = runtime;
	return (int)syscall(SYS_sched_setattr, 0, &a, 0);
}

static double cpu_s(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec + c.ru_stime.tv_sec +
	       (s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec + c.ru_stime.tv_usec) / 1e6;
}

static void serve(int fd)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			if (errno == EINTR)
				continue;
			return; /* ENOENT: the child is gone */
		}
		resp = (struct seccomp_notif_resp){ .id = req.id, .error = -EPERM };
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/* ns per call, or -1 (-2: sync wake-up refused by this kernel); *CPU:
 * the CPU both processes spent, ns per call. */
static double measure(enum way w, long n, double *cpu)
{
	double c0 = cpu_s();
	int sv[2], pp[2], st, fd;
	double dt = -1;
	int sync_refused = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) || pipe(pp))
		return -1;
	pid = fork();
	if (pid == 0)
		child(w, n, sv[1], pp[1]);
	close(sv[1]);
	close(pp[1]);
	if (w != IN_KERNEL) {
		uint64_t flags = SYNC_WAKE_UP;
		fd = recv_fd(sv[0]);
		if (fd < 0)
			return -1;
		sync_refused = w >= NOTIFY_SYNC && ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) != 0;
		if (w == NOTIFY_SLICE && set_slice(100000) != 0)
			sync_refused = 1;
		serve(fd);
		close(fd);
	}
	if (read(pp[0], &dt, sizeof(dt)) != sizeof(dt))
		dt = -1;
	waitpid(pid, &st, 0);
	*cpu = (cpu_s() - c0) / n * 1e9;
	close(pp[0]);
	close(sv[0]);
	if (w == NOTIFY_SLICE)
		(void)set_slice(0);
	if (sync_refused)
		return -2;
	return dt < 0 || !WIFEXITED(st) || WEXITSTATUS(st) ? -1 : dt / n * 1e9;
}

int main(int argc, char **argv)
{
	static const char *const names[NWAYS] = { "in_kernel", "notify", "notify_sync_wake",
						  "notify_sync_wake_short_slice" };
	long n = argc > 1 ? atol(argv[1]) : 100000;
	double ns[NWAYS], cpu[NWAYS];

	if (n <= 0)
		return 2;
	for (int w = 0; w < NWAYS; w++)
		ns[w] = measure((enum way)w, n, &cpu[w]);
	printf("{\"calls\": %ld", n);
	for (int w = 0; w < NWAYS; w++)
		printf(", \"%s_ns\": %.1f, \"%s_cpu_ns\": %.1f", names[w], ns[w], names[w], cpu[w]);
	printf("}\n");
	return 0;
}
