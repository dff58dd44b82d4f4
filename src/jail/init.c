/*
 * init.c - the jail's pid 1: build the jail, start the target, reap, report.
 *
 * Life: wait for the uid/gid maps -> become the jail user -> tie our life
 * to the supervisor's -> build the root, hostname, lo -> CTL_READY -> wait
 * for CTL_GO -> drop every capability, wipe sbx's argv/environ copy ->
 * fork the target -> CTL_STARTED or CTL_EXEC_FAILED -> reap
 * everything; when the target ends, CTL_EXITED, then SIGTERM the rest,
 * kill_grace, SIGKILL, reap, _exit.  The end of pid 1 ends the namespace.
 *
 * Every signal keeps SIG_DFL: a pid namespace's init ignores signals from
 * inside it that it has no handler for, so the program cannot kill us.
 * Only _exit() is used here (no atexit handlers, no LSan in the child).
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fds.h"
#include "policy/policy.h"
#include "procstate.h"

static void send_msg(int fd, uint32_t type, int32_t value, int32_t sys_errno,
		     const char *text)
{
	struct ctl_msg m = { .type = type, .value = value, .sys_errno = sys_errno };

	if (text)
		snprintf(m.text, sizeof(m.text), "%s", text);
	while (send(fd, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Fail closed: report the step and leave; nothing has run. */
__attribute__((noreturn)) static void setup_failed(const struct jail_plan *plan,
						   const struct sbx_err *err)
{
	jail_log(plan, "setup failed: %s", err->msg);
	send_msg(plan->ctl_fd, CTL_SETUP_FAILED, 0, err->sys_errno, err->msg);
	_exit(1);
}

/*
 * sbx's own 0, 1, 2 (a terminal, a directory, the caller's files) must not
 * stay open in the jail's pid 1: the program could reach them through
 * /proc/1/fd.  They become /dev/null, except the spec's fds and, with -v,
 * fd 2, where the init logs.
 */
static void neutral_stdio(const struct jail_plan *plan)
{
	const struct jail_spec *s = plan->spec;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; null >= 0 && fd <= 2; fd++) {
		if (fd == s->stdin_fd || fd == s->stdout_fd || fd == s->stderr_fd ||
		    fd == plan->ctl_fd || fd == plan->sync_fd || (fd == 2 && s->verbose))
			continue;
		dup2(null, fd);
	}
	if (null > 2)
		close(null);
}

/* The init keeps only what it needs: the supervisor's other fds go.
 * Fail closed: an old kernel without close_range must not keep them. */
static void close_inherited(const struct jail_plan *plan)
{
	const struct jail_spec *s = plan->spec;
	int keep[] = { 0, 1, 2, plan->ctl_fd, plan->sync_fd,
		       s->stdin_fd, s->stdout_fd, s->stderr_fd };
	struct sbx_err err = { 0 };

	if (fds_close_except(keep, sizeof(keep) / sizeof(keep[0])) < 0) {
		err_set(&err, ERR_SETUP, errno, "closing the init's inherited fds "
			"(no close_range, no /proc/self/fd): %s", strerror(errno));
		setup_failed(plan, &err);
	}
	neutral_stdio(plan);
}

static int become_jail_user(const struct jail_plan *plan, struct sbx_err *err)
{
	const struct policy *p = plan->policy;

	if (setresgid(p->gid, p->gid, p->gid) < 0)
		return err_set(err, ERR_SETUP, errno, "setresgid(%u): %s", p->gid,
			       strerror(errno));
	/* Run by root: root's supplementary groups must not follow the jail. */
	if (plan->host_root && setgroups(0, NULL) < 0)
		return err_set(err, ERR_SETUP, errno, "setgroups(0): %s",
			       strerror(errno));
	if (setresuid(p->uid, p->uid, p->uid) < 0)
		return err_set(err, ERR_SETUP, errno, "setresuid(%u): %s", p->uid,
			       strerror(errno));
	return 0;
}

/*
 * If sbx dies, even by SIGKILL, the jail dies: PDEATHSIG (set after the
 * uid change, which clears it), then check the supervisor did not die
 * before that (its end of the control socket would be closed).
 */
static void tie_to_supervisor(const struct jail_plan *plan)
{
	struct pollfd pfd = { .fd = plan->ctl_fd, .events = POLLIN };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(1);
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
		_exit(1);
}

/* Returns the jail's proc for the supervisor (-1: none). */
static int build_jail(const struct jail_plan *plan)
{
	const struct policy *p = plan->policy;
	const char *host = p->hostname ? p->hostname : "sbx";
	struct sbx_err err = { 0 };
	int proc_fd;

	if (become_jail_user(plan, &err) < 0)
		setup_failed(plan, &err);
	tie_to_supervisor(plan);
	/* Before anything of the program's runs: its share of the caller's
	 * inotify and namespace quotas (ucount.c). */
	if (ucount_limit_jail(&err) < 0)
		setup_failed(plan, &err);
	/* Not dumpable: the target (same uid) cannot open the fds in /proc/1/fd to
	 * reach the control socket, nor ptrace us. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0) {
		err_set(&err, ERR_SETUP, errno, "prctl(PR_SET_DUMPABLE): %s",
			strerror(errno));
		setup_failed(plan, &err);
	}
	/* the proc fd comes from the mount just made, never from a path a
	 * bind could cover (a host /proc would meter every host process) */
	if (mount_build_root(plan, &proc_fd, &err) < 0)
		setup_failed(plan, &err);
	if (sethostname(host, strlen(host)) < 0) {
		err_set(&err, ERR_SETUP, errno, "sethostname(%s): %s", host,
			strerror(errno));
		setup_failed(plan, &err);
	}
	if (p->network == NET_LOOPBACK && net_loopback_up(&err) < 0)
		setup_failed(plan, &err);
	jail_log(plan, "jail ready");
	return proc_fd;
}

/* Block until CTL_GO; CTL_TERM or a vanished supervisor ends us. */
static void wait_for_go(const struct jail_plan *plan)
{
	struct ctl_msg m;

	for (;;) {
		ssize_t n = recv(plan->ctl_fd, &m, sizeof(m), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(m) || m.type == CTL_TERM)
			_exit(0);
		if (m.type == CTL_GO)
			return;
	}
}

static int reap_children(pid_t target, int *status, bool *target_done)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == target) {
			*status = st;
			*target_done = true;
		}
	}
	return pid < 0 && errno == ECHILD ? 0 : 1; /* 1: children remain */
}

static void drain_signalfd(int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
}

/* After the target: SIGTERM, up to kill_grace for them to go, SIGKILL. */
__attribute__((noreturn)) static void teardown(const struct jail_plan *plan, int sfd)
{
	uint64_t grace = policy_kill_grace_ms(plan->policy);
	uint64_t deadline;
	bool unused = false;
	int st;

	deadline = jail_now_ns() + grace * 1000000;
	kill(-1, SIGTERM);
	while (reap_children(-1, &st, &unused)) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		uint64_t now = jail_now_ns();

		if (now >= deadline)
			break;
		poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
		drain_signalfd(sfd);
	}
	kill(-1, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

/* Tell the supervisor whether the target exec'd (EOF) or why it did not. */
static void report_start(const struct jail_plan *plan, int report_fd)
{
	struct target_report r;
	ssize_t n;

	memset(&r, 0, sizeof(r));
	while ((n = read(report_fd, &r, sizeof(r))) < 0 && errno == EINTR)
		;
	close(report_fd);
	if (n == 0) {
		jail_log(plan, "target started");
		send_msg(plan->ctl_fd, CTL_STARTED, 0, 0, NULL);
	} else if (n == (ssize_t)sizeof(r) && r.stage == REPORT_EXEC) {
		r.text[sizeof(r.text) - 1] = '\0';
		send_msg(plan->ctl_fd, CTL_EXEC_FAILED, 0, r.sys_errno, r.text);
	} else {
		/* Fail closed: the target never exec'd; end the jail. */
		r.text[sizeof(r.text) - 1] = '\0';
		jail_log(plan, "target setup failed: %s", r.text);
		send_msg(plan->ctl_fd, CTL_SETUP_FAILED, 0, r.sys_errno,
			 n == (ssize_t)sizeof(r) ? r.text : "target setup: bad report");
		kill(-1, SIGKILL);
		while (wait(NULL) > 0 || errno == EINTR)
			;
		_exit(1);
	}
}

static void ctl_event(const struct jail_plan *plan)
{
	struct ctl_msg m;
	ssize_t n = recv(plan->ctl_fd, &m, sizeof(m), MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n != (ssize_t)sizeof(m)) {
		/* The supervisor is gone: nobody may outlive it. */
		kill(-1, SIGKILL);
		_exit(1);
	}
	if (m.type == CTL_TERM)
		kill(-1, SIGTERM);
}

__attribute__((noreturn)) static void supervise_target(const struct jail_plan *plan,
						       pid_t target, int sfd)
{
	bool done = false;
	int status = 0;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = plan->ctl_fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			_exit(1);
		if (pfd[1].revents) {
			drain_signalfd(sfd);
			reap_children(target, &status, &done);
			if (done) {
				send_msg(plan->ctl_fd, CTL_EXITED, status, 0, NULL);
				teardown(plan, sfd);
			}
		}
		if (pfd[0].revents)
			ctl_event(plan);
	}
}

__attribute__((noreturn)) static void start_target(const struct jail_plan *plan)
{
	const struct jail_spec *s = plan->spec;
	struct sbx_err err = { 0 };
	int report[2], sfd;
	sigset_t chld;
	pid_t pid;

	/* SIGCHLD stays SIG_DFL; blocked, it is read from a signalfd. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || pipe2(report, O_CLOEXEC) < 0) {
		err_set(&err, ERR_SETUP, errno, "signalfd/pipe in the jail init: %s",
			strerror(errno));
		setup_failed(plan, &err);
	}
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		target_main(plan, report[1]);
	}
	if (pid < 0) {
		err_set(&err, ERR_SETUP, errno, "fork of the target: %s", strerror(errno));
		setup_failed(plan, &err);
	}
	close(report[1]);
	/* The init must not hold the program's pipes open after it. */
	for (int i = 0; i < 3; i++) {
		int fd = i == 0 ? s->stdin_fd : i == 1 ? s->stdout_fd : s->stderr_fd;

		if (fd > 2)
			close(fd);
	}
	report_start(plan, report[0]);
	supervise_target(plan, pid, sfd);
}

/* CTL_READY, with the jail's /proc attached (SCM_RIGHTS) when there is one. */
static void send_ready(const struct jail_plan *plan, int fd)
{
	struct ctl_msg m = { .type = CTL_READY };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

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
	while (sendmsg(plan->ctl_fd, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	if (fd >= 0)
		close(fd);
}

/*
 * The init is a memory copy of sbx: its /proc/1/cmdline and environ are
 * sbx's host command line (bind sources, -e values, the policy path) and
 * environment (the caller's tokens), readable by the program.  Nothing
 * after GO may point into them (the target's argv and env, the policy's
 * strings are heap copies), so they go.
 */
static void wipe_host_args(const struct jail_plan *plan)
{
	static const char name[] = "sbx-init";
	char *args = (char *)plan->arg_start;
	size_t len = plan->arg_end - plan->arg_start;

	if (len > 0) {
		memset(args, 0, len);
		memcpy(args, name, len - 1 < sizeof(name) - 1 ? len - 1 : sizeof(name) - 1);
	}
	if (plan->env_end > plan->env_start)
		memset((char *)plan->env_start, 0, plan->env_end - plan->env_start);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

/*
 * At GO, after every setup step that needs a capability, before the
 * target: the init keeps nothing the program could take over.  What it
 * still does (fork, reap, kill(-1) of processes with its own uid, the
 * control socket) needs no capability.
 */
static void init_drop_privileges(const struct jail_plan *plan)
{
	struct sbx_err err = { 0 };

	wipe_host_args(plan);
	if (caps_drop_all(&err) < 0) {
		err_prefix(&err, "the jail init: ");
		setup_failed(plan, &err);
	}
	/* Nothing the init might exec could raise its privileges again. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		err_set(&err, ERR_SETUP, errno, "prctl(PR_SET_NO_NEW_PRIVS) in the "
			"jail init: %s", strerror(errno));
		setup_failed(plan, &err);
	}
	jail_log(plan, "init: capabilities dropped, host argv/environ wiped");
}

void init_main(struct jail_plan *plan)
{
	char go;

	/* The jail's tree is built with a known umask, not the caller's. */
	umask(JAIL_UMASK);
	close_inherited(plan);
	/* No byte means the supervisor failed the maps or died: leave. */
	if (read(plan->sync_fd, &go, 1) != 1)
		_exit(1);
	close(plan->sync_fd);
	plan->sync_fd = -1;
	send_ready(plan, build_jail(plan));
	wait_for_go(plan);
	init_drop_privileges(plan);
	start_target(plan);
}
