/*
 * supervise.c - supervise_run(): spawn the jail and stay in control of it.
 *
 * Here: setup (signals, the output pipes and copies, the stdin relay, the
 * epoll set, the cgroup), the spawn, and teardown, which a cleanup
 * attribute runs on every way out.  The running jail is loop.c's: one
 * epoll loop over the output pipes, the control socket, the init's pidfd,
 * a signalfd and one timerfd armed at the earliest absolute
 * CLOCK_MONOTONIC deadline.  Stages (supervise.h): prepare, spawn, wait
 * for CTL_READY (bounded), send CTL_GO, run under the wall/CPU/output
 * limits, settle when the init is reaped and the pipes are drained, then
 * classify (classify.c).  The jail is only ever
 * signalled through the init's pidfd, never by pid, and never after the
 * init was reaped (its pid may be another's by then).  The seccomp
 * listener the target hands over is served by notify.c.
 */
#include "supervise/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "base/callerpath.h"
#include "base/fds.h"
#include "base/procstate.h"
#include "jail/jail.h"
#include "supervise/internal.h"

#define SETUP_TIMEOUT_NS (10000 * MS)
/* capture mode with an unlimited output limit still keeps memory bounded */
#define CAPTURE_CEILING (UINT64_C(64) << 20)

/* ---- setup and teardown -------------------------------------------------- */

/* Block the signals the loop reads; SIGPIPE from a closed sbx stdout is an
 * EPIPE to handle, not a death that would lose the record. */
static int block_signals(struct sup *s)
{
	sigset_t set;

	procstate_abort_set(&set);
	/* job control: a stop of sbx must stop the jail too (loop.c) */
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGTTIN);
	sigaddset(&set, SIGTTOU);
	sigaddset(&set, SIGCONT);
	/* -i: the caller's window changed size; the jail's pty follows */
	if (s->req->interactive)
		sigaddset(&set, SIGWINCH);
	signal(SIGPIPE, SIG_IGN);
	/* SIGCHLD stays blocked and out of the signalfd: the pidfd says when */
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return err_set(s->err, ERR_SETUP, errno, "sigprocmask: %s", strerror(errno));
	sigdelset(&set, SIGCHLD);
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0)
		return err_set(s->err, ERR_SETUP, errno, "signalfd: %s", strerror(errno));
	return 0;
}

/* --stdout/--stderr FILE: never through a link or a planted FIFO or hard
 * link (callerpath.h); /dev/stdout, /dev/fd/N: that descriptor itself. */
static int open_copy(const char *path, const char *option, struct sbx_err *err)
{
	int own = caller_path_fd(path), fl, fd;

	if (own < 0)
		return caller_open_output(option, path, err);
	/* shared with the caller: the relay copes with a blocking one */
	fl = fcntl(own, F_GETFL);
	if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY)
		return err_set(err, ERR_USAGE, fl < 0 ? errno : EBADF, "%s %s: fd %d is %s "
			       "(open it for writing, e.g. %d>FILE, or give a path)", option, path,
			       own, fl < 0 ? "not open" : "not open for writing", own);
	fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "%s %s: dup: %s", option, path,
			       strerror(errno));
	return fd;
}

/* One output pipe: our read end (CLOEXEC, non-blocking), the jail's write end. */
static int make_output(struct sup *s, int i, int *jail_fd)
{
	static const char *const names[2] = { "stdout", "stderr" };
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		return err_set(s->err, ERR_SETUP, errno, "pipe2 for the program's %s: %s",
			       names[i], strerror(errno));
	relay_grow_pipe(p[0]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	out_stream_init(&s->out[i], names[i], p[0]);
	*jail_fd = p[1];
	s->out[i].capture = s->req->capture;
	if (!s->req->capture &&
	    relay_set_dest(&s->out[i], i == 0 && !s->req->stdout_to_stderr ? STDOUT_FILENO
									    : STDERR_FILENO,
			   s->err) != 0)
		return -1;
	/* the record follows the last byte on fd 2 (on 2>&1, fd 1's too; on
	 * --result -, fd 1's), and a splice never shows it: those streams are
	 * read, so the record starts a line of its own without an empty one
	 * before it (fill_open_lines) */
	if (s->out[i].dest.fd == STDERR_FILENO || fds_same_file(STDOUT_FILENO, STDERR_FILENO) ||
	    (s->out[i].dest.fd == STDOUT_FILENO && s->req->record_on_stdout))
		s->out[i].splice_ok = false;
	return 0;
}

static int prepare_copies(struct sup *s)
{
	const char *const paths[2] = { s->req->stdout_copy, s->req->stderr_copy };
	const char *const options[2] = { "--stdout", "--stderr" };

	struct stat st[2] = { { 0 } };

	for (int i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		int fd = open_copy(paths[i], options[i], s->err);
		if (fd < 0 || relay_set_copy(&s->out[i], fd, s->err) != 0)
			return -1;
		/* --json: sbx's stdout is the one JSON document, nothing else */
		if (s->req->capture && fds_same_file(fd, STDOUT_FILENO))
			return err_set(s->err, ERR_USAGE, 0, "%s %s is sbx's stdout, which "
				       "--json keeps for the record alone; give a file",
				       options[i], paths[i]);
		/* two descriptions of one regular file each write from offset 0:
		 * stdout's bytes were overwritten by stderr's, silently */
		if (fstat(fd, &st[i]) == 0 && i == 1 && paths[0] && S_ISREG(st[1].st_mode) &&
		    st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino)
			return err_set(s->err, ERR_USAGE, 0, "--stderr %s is the same file as "
				       "--stdout %s: the copies would overwrite each other; "
				       "give two files", paths[1], paths[0]);
	}
	return 0;
}

static int make_loop_fds(struct sup *s)
{
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return err_set(s->err, ERR_SETUP, errno, "epoll_create1: %s", strerror(errno));
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->tfd < 0)
		return err_set(s->err, ERR_SETUP, errno, "timerfd_create: %s", strerror(errno));
	if (sup_watch(s, s->tfd, EPOLLIN, TAG_TIMER) != 0 ||
	    sup_watch(s, s->sigfd, EPOLLIN, TAG_SIGNAL) != 0)
		return err_set(s->err, ERR_SETUP, errno, "epoll_ctl: %s", strerror(errno));
	/* -i: no pipes; the pty's master comes with CTL_READY (terminal.c) */
	for (int i = 0; i < 2; i++) {
		if (s->out[i].src < 0)
			continue;
		if (sup_watch(s, s->out[i].src, EPOLLIN, TAG_OUT + i) != 0)
			return err_set(s->err, ERR_SETUP, errno, "epoll_ctl: %s", strerror(errno));
		s->out[i].src_watched = true;
	}
	return 0;
}

static int watch_jail(struct sup *s)
{
	s->ctl_fd = s->jail.ctl_fd;
	if (sup_watch(s, s->ctl_fd, EPOLLIN, TAG_CTL) != 0 ||
	    sup_watch(s, s->jail.pidfd, EPOLLIN, TAG_PIDFD) != 0)
		return err_set(s->err, ERR_SETUP, errno, "epoll_ctl on the jail's fds: %s",
			       strerror(errno));
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The jail is gone: a stop of sbx is again sbx's alone (a Ctrl-Z held
 * meanwhile takes effect now). */
static void release_job_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGTTIN);
	sigaddset(&set, SIGTTOU);
	sigaddset(&set, SIGCONT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Everything supervise_run holds, on every way out of it. */
static void sup_cleanup(struct sup *s)
{
	/* first: whatever ended the run, the caller gets its terminal back
	 * before the record or any message is written */
	terminal_restore(&s->term);
	jail_release(&s->jail);
	release_job_signals();
	for (int i = 0; i < 2; i++)
		out_stream_close(&s->out[i]); /* closes the --stdout/--stderr copies */
	stdin_close(&s->in);
	cputree_free(&s->cpu);
	cgroup_close(&s->cg);
	close_fd(&s->epfd);
	close_fd(&s->tfd);
	close_fd(&s->sigfd);
	close_fd(&s->ws_fd);
	free(s->buf);
	s->buf = NULL;
}


static int spawn(struct sup *s, int fds[3])
{
	struct jail_spec spec = {
		.policy = s->pol,
		.argv = s->req->argv,
		.envp = s->req->envp,
		.workspace_host = s->req->workspace_host,
		.workspace_tmpfs = s->req->workspace_tmpfs,
		.workspace_mb = s->req->workspace_mb,
		.workspace_fd = s->req->workspace_fd,
		.workdir_fd = s->req->workdir_fd,
		.host_uid = s->req->host_uid,
		.host_gid = s->req->host_gid,
		.stdin_fd = fds[0],
		.stdout_fd = fds[1],
		.stderr_fd = fds[2],
		.verbose = s->req->verbose,
		.interactive = s->req->interactive,
		.cgroup_fd = s->cg.active ? s->cg.dir_fd : -1,
		.learn = s->req->learn != NULL,
		.no_report = s->req->no_report,
	};
	int rc = jail_spawn(&spec, &s->jail, s->err);

	/* the jail has its copies now; ours would keep the pipes from EOF */
	for (int i = 0; i < 3; i++)
		close_fd(&fds[i]);
	if (rc != 0)
		return -1;
	s->jail_up = true;
	s->res->jail_started = true;
	if (s->jail.no_report)
		notify_none(&s->notify, 0, s->jail.no_report);
	s->dl_setup = monotonic_ns() + SETUP_TIMEOUT_NS;
	vlog_line(&s->vlog, "jail spawned (init pid %d)", (int)s->jail.init_pid);
	return 0;
}

/* The program's 0, 1, 2: pipes (and /dev/null or a stdin relay), or with
 * -i nothing yet: the jail's pty, whose master the loop relays as stdout
 * to sbx's fd 1 once the init sends it. */
static int prepare_stdio(struct sup *s, int fds[3])
{
	if (!s->req->interactive)
		return stdin_open(s->req->stdin_spec, &fds[0], &s->in, s->err) != 0 ||
		       make_output(s, 0, &fds[1]) != 0 || make_output(s, 1, &fds[2]) != 0 ? -1 : 0;
	if (relay_set_dest(&s->out[0], s->req->stdout_to_stderr ? STDERR_FILENO : STDOUT_FILENO,
			   s->err) != 0)
		return -1;
	s->out[0].splice_ok = false;
	return 0;
}

static int prepare(struct sup *s, int fds[3])
{
	uint64_t limit = policy_limit(s->pol, LIM_OUTPUT_BYTES);

	s->budget.limit = limit;
	if (s->req->capture && limit == LIMIT_UNLIMITED)
		s->budget.limit = CAPTURE_CEILING;
	s->buf = malloc(RELAY_BUF_SIZE);
	if (!s->buf)
		return err_set(s->err, ERR_INTERNAL, ENOMEM, "out of memory");
	if (block_signals(s) != 0 || prepare_stdio(s, fds) != 0 ||
	    prepare_copies(s) != 0 || make_loop_fds(s) != 0 ||
	    cgroup_open(&s->cg, s->pol, s->req->cgroup_parent, s->err) != 0)
		return -1;
	vlog_line(&s->vlog, "%s %s", s->cg.active ? "cgroup" : "no cgroup:",
		  s->cg.active ? s->cg.path : s->cg.why);
	return 0;
}

static void sup_init(struct sup *s, const struct run_request *req, struct result *res,
		     struct sbx_err *err)
{
	memset(s, 0, sizeof(*s));
	s->req = req;
	s->pol = req->policy;
	s->res = res;
	s->err = err;
	s->epfd = s->tfd = s->sigfd = s->ctl_fd = s->in_fd = s->ws_fd = -1;
	s->jail.ctl_fd = s->jail.pidfd = s->jail.init_pid = -1;
	s->in.src = s->in.dst = -1;
	out_stream_init(&s->out[0], "stdout", -1);
	out_stream_init(&s->out[1], "stderr", -1);
	cputree_init(&s->cpu, 0);
	terminal_init(&s->term, req->interactive);
	s->cg.dir_fd = -1;
	s->timer_armed = -1;
	s->vlog = (struct vlog){ .on = req->verbose, .who = "supervise ",
				 .t0_ns = monotonic_ns() };
	notify_init(&s->notify, &s->vlog, req->learn);
	/* the init's grace too (policy.h): the same value on both sides */
	s->grace_ns = (int64_t)policy_kill_grace_ms(s->pol) * MS;
}

/* The program's ends of its stdio pipes, until the jail has its copies. */
static void close_stdio(int (*fds)[3])
{
	for (int i = 0; i < 3; i++)
		close_fd(&(*fds)[i]);
}

int supervise_run(const struct run_request *req, struct result *res, struct sbx_err *err)
{
	struct sup s __attribute__((cleanup(sup_cleanup)));
	int fds[3] __attribute__((cleanup(close_stdio))) = { -1, -1, -1 };

	sup_init(&s, req, res, err);
	res->policy = req->policy;
	res->command = req->argv;
	res->capture = req->capture;
	if (prepare(&s, fds) != 0 || spawn(&s, fds) != 0) {
		notify_stop(&s.notify, NULL);
		result_set_error(res, err);
		return -1;
	}
	if (watch_jail(&s) != 0 || sup_event_loop(&s) != 0) {
		sup_reap_blocking(&s);
		notify_stop(&s.notify, &res->denied);
		result_set_error(res, err);
		return -1;
	}
	/* every jail task is gone: the thread has ended or is ending */
	notify_stop(&s.notify, &res->denied);
	sup_classify(&s);
	return 0;
}
