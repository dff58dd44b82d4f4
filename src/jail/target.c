/*
 * target.c - the last steps before the program runs, in the forked target.
 *
 * In this order: new session, default signals, umask, persona and
 * priority, stdio (with -i the jail's pty, as the controlling terminal),
 * close every other fd, rlimits, chdir, drop
 * capabilities, no_new_privs, RLIMIT_DATA, seccomp, execve.
 * Any failure is written to the report pipe (CLOEXEC, so a successful exec
 * closes it and the init reads EOF) and nothing runs: fail closed.
 * After the seccomp filter is loaded nothing allocates, and the only calls
 * before execve are the listener's hand-over (sendmsg) and, on failure,
 * the report (write): spawn.c made sure the policy allows both, because
 * a refused one would wait for an answer from a listener still here.
 */
#include "jail/internal.h"
#include "jail/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fds.h"
#include "policy/policy.h"
#include "base/procstate.h"

__attribute__((noreturn)) static void report(int fd, int stage, int e,
					     const char *text, int status)
{
	struct target_report r;

	memset(&r, 0, sizeof(r));
	r.stage = stage;
	r.sys_errno = e;
	text_mark_cut(r.text, sizeof(r.text), snprintf(r.text, sizeof(r.text), "%s", text));
	if (write(fd, &r, sizeof(r)) < 0) {
		/* the init then sees a short report: still a failure */
	}
	_exit(status);
}

__attribute__((noreturn)) static void setup_fail(int fd, const struct sbx_err *err)
{
	report(fd, REPORT_SETUP, err->sys_errno, err->msg, 125);
}

/* ioprio_get/ioprio_set (no glibc wrapper) */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_RT 1

/*
 * A caller's raised priority must not pass to the program: nice < 0,
 * SCHED_FIFO/RR (`chrt -f 99 sbx run`) or the realtime I/O class would
 * let it starve the host.  A lowered one (nice 19, idle I/O) is kept: it
 * only limits the program.  Lowering needs no privilege.
 */
static int drop_raised_priority(struct sbx_err *err)
{
	struct sched_param sp = { .sched_priority = 0 };
	int policy = sched_getscheduler(0);
	long io = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);

	if ((policy == SCHED_FIFO || policy == SCHED_RR) &&
	    sched_setscheduler(0, SCHED_OTHER, &sp) < 0)
		return err_set(err, ERR_SETUP, errno, "sched_setscheduler(SCHED_OTHER): %s",
			       strerror(errno));
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) < 0 && errno == 0 &&
	    setpriority(PRIO_PROCESS, 0, 0) < 0)
		return err_set(err, ERR_SETUP, errno, "setpriority(0): %s", strerror(errno));
	if (io >= 0 && (io >> IOPRIO_CLASS_SHIFT) == IOPRIO_CLASS_RT &&
	    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, 0) < 0)
		return err_set(err, ERR_SETUP, errno, "ioprio_set(none): %s", strerror(errno));
	return 0;
}

/*
 * What the program inherits besides signals: a fixed umask (a caller's
 * umask 0 would make its files in a persistent workspace world-writable),
 * the plain Linux persona (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE; sbx's
 * main() resets it too, and seccomp then allows no other), no raised
 * priority.
 */
static int reset_inherited_state(struct sbx_err *err)
{
	umask(JAIL_UMASK);
	if (personality(PER_LINUX) < 0)
		return err_set(err, ERR_SETUP, errno, "personality(PER_LINUX): %s",
			       strerror(errno));
	return drop_raised_priority(err);
}

/* Put the spec's fds on 0, 1, 2 even when they are already among them;
 * with -i, the jail's pty on all three. */
static int setup_stdio(const struct jail_plan *plan, struct sbx_err *err)
{
	const struct jail_spec *s = plan->spec;
	int src[3] = { s->stdin_fd, s->stdout_fd, s->stderr_fd };

	if (plan->pty_slave >= 0)
		src[0] = src[1] = src[2] = plan->pty_slave;

	for (int i = 0; i < 3; i++) {
		/* fd 0 is never left closed: the program's next open() would
		 * become its stdin. */
		if (src[i] < 0)
			src[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (src[i] >= 0 && src[i] <= 2 && src[i] != i)
			src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 3);
		if (src[i] < 0)
			return err_set(err, ERR_SETUP, errno, "stdio fd %d: %s", i,
				       strerror(errno));
	}
	for (int i = 0; i < 3; i++) {
		int rc = src[i] == i ? fcntl(i, F_SETFD, 0) : dup2(src[i], i);

		if (rc < 0)
			return err_set(err, ERR_SETUP, errno, "dup2 onto fd %d: %s", i,
				       strerror(errno));
	}
	return 0;
}

/*
 * -i: the pty becomes the controlling terminal of the program's new
 * session, so a shell gets job control and Ctrl-C, Ctrl-Z and Ctrl-\ go
 * from the jail's line discipline to the jail's foreground group.  The
 * pty is the jail's own: no terminal of the caller's is ever one.
 */
static int take_terminal(const struct jail_plan *plan, struct sbx_err *err)
{
	if (plan->pty_slave < 0)
		return 0;
	if (ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0)
		return err_set(err, ERR_SETUP, errno, "-i: TIOCSCTTY on the jail's pty: %s",
			       strerror(errno));
	return 0;
}

/* Only 0, 1, 2 reach the program (make jobserver fds, `3<secret`, ...);
 * KEEP and CTL are CLOEXEC: the report pipe, and the init's control socket
 * that the listener is handed over on (-1: none). */
static int close_other_fds(int keep, int ctl, struct sbx_err *err)
{
	int fds[] = { 0, 1, 2, keep, ctl };

	if (fds_close_except(fds, 5) < 0)
		return err_set(err, ERR_SETUP, errno, "closing inherited fds (no "
			       "close_range, no /proc/self/fd to check): %s",
			       strerror(errno));
	return 0;
}

/* The working directory is never created: a -C typo must not run the
 * program in an empty directory it then writes into. */
static int enter_cwd(const struct policy *p, struct sbx_err *err)
{
	const char *cwd = p->cwd ? p->cwd : p->workspace ? p->workspace : "/mnt/data";
	const struct origin *at = &p->at[F_CWD];
	char where[300];

	if (chdir(cwd) == 0)
		return 0;
	if (!p->cwd)
		return err_set(err, ERR_SETUP, errno, "chdir %s: %s", cwd, strerror(errno));
	if (at->option)
		snprintf(where, sizeof(where), "%s", at->option);
	else
		snprintf(where, sizeof(where), "%s:%d", at->file ? at->file : "cwd", at->line);
	return err_set(err, ERR_SETUP, errno,
		       "%s: working directory %s: %s (it must exist in the jail: name a "
		       "directory that the policy or -b/-B mounts, or one in the workspace)",
		       where, cwd, strerror(errno));
}

static const char *env_path(char *const *envp)
{
	for (; envp && *envp; envp++)
		if (strncmp(*envp, "PATH=", 5) == 0)
			return *envp + 5;
	return NULL;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * argv[0] without '/': search the PATH of the target's environment, in
 * the jail's view, skipping relative entries and directories.  No PATH
 * means not found: there is no default PATH.  Returns the errno to report.
 */
static int exec_on_path(char *const *argv, char *const *envp)
{
	const char *path = env_path(envp), *p;
	size_t nlen = strlen(argv[0]);
	int best = ENOENT;
	char buf[4096];

	for (p = path; p && *p;) {
		const char *end = strchrnul(p, ':');
		size_t dlen = end - p;

		if (dlen > 0 && p[0] == '/' && dlen + nlen + 2 <= sizeof(buf)) {
			memcpy(buf, p, dlen);
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, argv[0], nlen + 1);
			execve(buf, argv, envp);
			if (errno == EACCES && !is_dir(buf))
				best = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR &&
				 errno != EACCES)
				return errno;
		}
		p = *end ? end + 1 : end;
	}
	return best;
}

__attribute__((noreturn)) static void exec_program(const struct jail_spec *s,
						   int report_fd)
{
	char text[300];
	int e;

	if (!s->argv || !s->argv[0] || !s->argv[0][0])
		report(report_fd, REPORT_EXEC, ENOENT, "empty command", 127);
	if (strchr(s->argv[0], '/')) {
		execve(s->argv[0], s->argv, s->envp);
		e = errno;
	} else {
		e = exec_on_path(s->argv, s->envp);
	}
	snprintf(text, sizeof(text), "%s: %s", s->argv[0], strerror(e));
	report(report_fd, REPORT_EXEC, e, text, e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* CTL_LISTENER on the init's end of the control socket: the listener
 * (FD >= 0) or why there is none (E). */
static int send_listener(int ctl_fd, int fd, int e)
{
	struct ctl_msg m = { .type = CTL_LISTENER, .value = fd >= 0, .sys_errno = e };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	while ((n = sendmsg(ctl_fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(m) ? 0 : -1;
}

/*
 * The filter, with a listener when the plan has the reporting twin.  The
 * kernel refuses one (EBUSY) under a filter that has a listener already,
 * as in sbx in sbx, or has no user notification (EINVAL, Linux < 5.0):
 * then the policy's own program answers in the kernel, as it did before
 * the report existed.  The listener is CLOEXEC: exec closes our copy.
 */
static int load_filter(const struct jail_plan *plan, struct sbx_err *err)
{
	int fd, e;

	if (plan->notify.filter) {
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &plan->notify);
		if (fd >= 0 && send_listener(plan->ctl_fd, fd, 0) == 0)
			return 0;
		if (fd >= 0)
			return err_set(err, ERR_SETUP, errno, "handing the seccomp listener "
				       "to sbx: %s", strerror(errno));
		e = errno;
		if (send_listener(plan->ctl_fd, -1, e) < 0)
			return err_set(err, ERR_SETUP, errno, "telling sbx the filter has no "
				       "listener: %s", strerror(errno));
	}
	if (sc_filter_load(&plan->prog) < 0)
		return err_set(err, ERR_SETUP, errno, "loading the seccomp filter: %s",
			       strerror(errno));
	return 0;
}

void target_main(const struct jail_plan *plan, int report_fd)
{
	const struct jail_spec *s = plan->spec;
	struct sbx_err err = { 0 };

	/* New session, no controlling tty of the caller's: TIOCSTI cannot
	 * push input into the caller's terminal (CVE-2017-5226). */
	if (setsid() < 0) {
		err_set(&err, ERR_SETUP, errno, "setsid: %s", strerror(errno));
		setup_fail(report_fd, &err);
	}
	/* An inherited `trap '' XCPU` or a blocked SIGTERM must not weaken
	 * limits; the init's own SIGPIPE=SIG_IGN must not reach the program. */
	procstate_default_signals();
	if (reset_inherited_state(&err) < 0 || setup_stdio(plan, &err) < 0 ||
	    take_terminal(plan, &err) < 0)
		setup_fail(report_fd, &err);
	if (close_other_fds(report_fd, plan->notify.filter ? plan->ctl_fd : -1, &err) < 0)
		setup_fail(report_fd, &err);
	if (rlimit_apply(plan->policy, plan->spec->cgroup_fd >= 0, &err) < 0 || enter_cwd(plan->policy, &err) < 0 ||
	    caps_drop_all(&err) < 0)
		setup_fail(report_fd, &err);
	/* no_new_privs: setuid/file-capability binaries cannot raise
	 * privileges, and seccomp needs it without CAP_SYS_ADMIN. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		err_set(&err, ERR_SETUP, errno, "prctl(PR_SET_NO_NEW_PRIVS): %s",
			strerror(errno));
		setup_fail(report_fd, &err);
	}
	if (rlimit_apply_memory(plan->policy, plan->spec->cgroup_fd >= 0, &err) < 0)
		setup_fail(report_fd, &err);
	if (load_filter(plan, &err) < 0)
		setup_fail(report_fd, &err);
	exec_program(s, report_fd);
}
