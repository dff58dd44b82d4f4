/*
 * notify.c - serve the seccomp listener (notify.h).
 *
 * Each notification is answered with what the policy's own program says
 * for its seccomp_data (jail/scnotify.h): an errno, the same the kernel
 * gave before the report existed, or a kill, which sbx carries out with
 * SIGKILL on the calling process while the call is still held (so it
 * never runs).  With `sbx learn`, a call the learning program allows is
 * let through (SECCOMP_USER_NOTIF_FLAG_CONTINUE) and counted instead: the
 * decision reads only the registers the kernel captured, which cannot
 * change while the caller waits, so CONTINUE is safe here.
 *
 * Bookkeeping is one fixed table of DENIED_MAX entries (and 1024 counters
 * in learn mode); a hammered call costs a compare against the last entry.
 */
#include "base/cleanup.h"
#include "supervise/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/scnotify.h"
#include "jail/seccomp.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The serving thread's stack: it only formats names and log lines. */
#define SERVE_STACK (256 * 1024)
/* Its time slice: EEVDF's minimum (0.1 ms) for the quickest pick on wake-up */
#define SERVE_SLICE_NS 100000

static void set_why(struct notifier *n, const char *why)
{
	snprintf(n->why_none, sizeof(n->why_none), "%s", why);
	if (n->learned)
		snprintf(n->learned->why_none, sizeof(n->learned->why_none), "%s", why);
}

static void close_wake(struct notifier *n)
{
	if (n->wake_fd >= 0)
		close(n->wake_fd);
	n->wake_fd = -1;
}

void notify_init(struct notifier *n, const struct vlog *log, struct learned_calls *learned)
{
	memset(n, 0, sizeof(*n));
	n->fd = n->wake_fd = -1;
	n->vlog = (struct vlog){ .on = log->on, .who = "notify ", .t0_ns = log->t0_ns };
	n->learned = learned;
	set_why(n, "the program never started");
}

int notify_adopt(struct notifier *n, int fd, const struct sock_fprog *policy,
		 const struct sock_fprog *learn)
{
	uint64_t id = 0;
	int held cleanup_fd = fd;

	/* only one, and only a seccomp listener (it knows no id 0: ENOENT);
	 * the control socket is the init's, but every fd on it is checked */
	if (n->fd >= 0 || !policy || !policy->filter ||
	    ioctl(held, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 || errno != ENOENT)
		return -1;
	n->report = calloc(1, sizeof(*n->report));
	if (!n->report) {
		set_why(n, "out of memory");
		return -1;
	}
	n->fd = steal_fd(&held);
	n->policy = policy;
	n->learn = learn && learn->filter && n->learned ? learn : NULL;
	if (n->learn)
		n->learned->available = true;
	vlog_line(&n->vlog, "seccomp listener received: refusals are reported%s",
		  n->learn ? ", calls outside the policy are learned" : "");
	return 0;
}

/* sbx itself runs under a seccomp filter: "Seccomp: 2" in its status. */
static bool under_a_filter(void)
{
	FILE *f cleanup_file = fopen("/proc/self/status", "re");
	char line[128];

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			return atoi(line + 8) == 2;
	return false;
}

void notify_none(struct notifier *n, int e, const char *why)
{
	char text[200];

	if (why)
		set_why(n, why);
	else if (e == EBUSY)
		set_why(n, "a seccomp filter above sbx already has a listener (sbx in sbx, "
			   "or another supervisor)");
	else if ((e == EPERM || e == EACCES || e == ENOSYS) && under_a_filter())
		set_why(n, "a seccomp filter above sbx (a container's profile) refuses the "
			   "seccomp() call, so sbx's filter was loaded with prctl, which has "
			   "no listener; allow seccomp in that profile");
	else {
		snprintf(text, sizeof(text), "the kernel gave no seccomp listener (%s; user "
			 "notification needs Linux 5.0)", strerror(e));
		set_why(n, text);
	}
	vlog_line(&n->vlog, "no report of refusals: %s", n->why_none);
}

/* ---- counting ------------------------------------------------------------ */

static struct denied_call *find(struct denied_report *r, int nr, int err, int arg,
				uint64_t value)
{
	for (size_t i = r->n; i-- > 0;) {
		struct denied_call *c = &r->v[i];
		if (c->nr == nr && c->err == err && c->arg == arg && c->arg_value == value)
			return c;
	}
	return NULL;
}

/* The entry of this refusal, made on first sight; NULL when the table is
 * full.  An argument keeps its own entry only while half the table is
 * free: after that it counts with the call itself. */
static struct denied_call *entry_of(struct notifier *n, const struct seccomp_data *d,
				    uint32_t ret, int err)
{
	struct denied_report *r = n->report;
	uint64_t value = 0;
	int arg = sc_deciding_arg(n->policy, d, ret, &value);
	struct denied_call *c;

	if (arg >= 0 && r->n >= DENIED_MAX / 2 && !find(r, (int)d->nr, err, arg, value))
		arg = -1, value = 0;
	c = find(r, (int)d->nr, err, arg, value);
	if (c || r->n == DENIED_MAX)
		return c;
	c = &r->v[r->n++];
	c->nr = (int)d->nr;
	c->err = err;
	c->arg = arg;
	c->arg_value = value;
	sc_syscall_name(c->nr, c->name, sizeof(c->name));
	sc_arg_text(c->nr, arg, value, c->arg_text, sizeof(c->arg_text));
	if (n->vlog.on) {
		char e[32];
		denied_errno_name(err, e, sizeof(e));
		vlog_line(&n->vlog, "refused %s%s%s%s: %s", c->name, arg >= 0 ? " (" : "",
			  c->arg_text, arg >= 0 ? ")" : "", err ? e : "killed (a KILL rule)");
	}
	return c;
}

static void count(struct notifier *n, const struct seccomp_data *d, uint32_t ret, int err)
{
	struct denied_call *c = entry_of(n, d, ret, err);

	if (c)
		c->count++;
	else
		n->report->omitted++;
}

/* ---- answers ------------------------------------------------------------- */

static void respond(struct notifier *n, uint64_t id, int err, bool cont)
{
	struct seccomp_notif_resp resp = {
		.id = id, .error = -err,
		.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	/* ENOENT: the caller died meanwhile, nobody to answer */
	while (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno == EINTR)
		;
}

/* The jail-side tgid of host task PID, from its status: its process's
 * pid in the innermost namespace (NStgid's last field); -1 unknown. */
static int jail_tgid(int pid, int *host_tgid)
{
	char path[64], text[4096];
	const char *p;
	int fd cleanup_fd = -1, last = -1;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, text, sizeof(text) - 1);
	if (len <= 0)
		return -1;
	text[len] = '\0';
	if ((p = strstr(text, "\nTgid:")))
		*host_tgid = atoi(p + 6);
	if (!(p = strstr(text, "\nNStgid:")))
		return -1;
	for (p += 8; *p && *p != '\n';) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		last = (int)v;
		p = end;
	}
	return last;
}

/*
 * A KILL rule: end the caller's process while it waits in the call.  The
 * pidfd is checked against the notification (ID_VALID) after it is open,
 * so a pid that was reused can never be signalled.
 */
static void kill_caller(struct notifier *n, const struct seccomp_notif *req)
{
	int host_tgid = -1, tgid, pidfd cleanup_fd = -1;

	pidfd = (int)syscall(SYS_pidfd_open, req->pid, PIDFD_THREAD);
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
	tgid = jail_tgid((int)req->pid, &host_tgid);
	if (pidfd < 0 && host_tgid > 0)
		pidfd = (int)syscall(SYS_pidfd_open, host_tgid, 0);
	if (pidfd < 0 || ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0)
		return; /* gone already: the call never ran */
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 && tgid > 0 &&
	    n->nkills < sizeof(n->kills) / sizeof(n->kills[0])) {
		n->kills[n->nkills].jail_pid = tgid;
		n->kills[n->nkills++].nr = (int)req->data.nr;
	}
}

int notify_target_kill(const struct notifier *n)
{
	for (unsigned i = 0; i < n->nkills; i++)
		if (n->target_pid > 0 && n->kills[i].jail_pid == n->target_pid)
			return n->kills[i].nr;
	return -1;
}

static void answer(struct notifier *n, const struct seccomp_notif *req)
{
	const struct seccomp_data *d = &req->data;
	uint32_t ret = sc_eval(n->policy, d), action = ret & SECCOMP_RET_ACTION_FULL;

	n->served++;
	if (n->learn && ret != SECCOMP_RET_ALLOW && sc_eval(n->learn, d) == SECCOMP_RET_ALLOW) {
		if (d->nr < SC_NR_MAX && n->learned && n->learned->seen[d->nr]++ == 0)
			vlog_line(&n->vlog, "learned syscall %u", d->nr);
		respond(n, req->id, 0, true);
		return;
	}
	if (action == SECCOMP_RET_ERRNO) {
		count(n, d, ret, (int)(ret & SECCOMP_RET_DATA));
		respond(n, req->id, (int)(ret & SECCOMP_RET_DATA), false);
	} else if (action == SECCOMP_RET_ALLOW) {
		respond(n, req->id, 0, true); /* the policy's own word */
	} else {
		count(n, d, ret, 0);
		kill_caller(n, req);
	}
}

/* One notification that poll() said is waiting (RECV then takes it at once,
 * or fails with ENOENT when its caller died meanwhile: it never blocks). */
static void serve_one(struct notifier *n)
{
	struct seccomp_notif req;

	/* the kernel wants a zeroed buffer */
	memset(&req, 0, sizeof(req));
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0)
		answer(n, &req);
}

/*
 * Ask for the shortest time slice EEVDF gives a normal thread (Linux 6.12+;
 * earlier kernels ignore it): the woken server then comes first among the
 * runnable tasks of a loaded CPU instead of waiting its turn, which is most
 * of a round trip there (bench: 43 -> 30 us at load 30 on 2 cores).  No
 * privilege and no more CPU share: the policy and nice stay as they are.
 */
static bool short_slice(void)
{
	/* linux/sched/types.h's struct sched_attr, which clashes with sched.h */
	struct {
		uint32_t size, sched_policy;
		uint64_t sched_flags;
		int32_t sched_nice;
		uint32_t sched_priority;
		uint64_t sched_runtime, sched_deadline, sched_period;
		uint32_t sched_util_min, sched_util_max;
	} a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) != 0 ||
	    (a.sched_policy != SCHED_OTHER && a.sched_policy != SCHED_BATCH))
		return false;
	a.size = sizeof(a);
	a.sched_flags = 0;
	a.sched_runtime = SERVE_SLICE_NS;
	return syscall(SYS_sched_setattr, 0, &a, 0) == 0;
}

/*
 * The thread waits in poll(), never in RECV: a RECV with no notification
 * blocks for as long as a filtered task lives (and on kernels before 6.6
 * even after the last is gone), so a join could hang or time out and leave
 * the thread reading its notifier in a dead frame.  The wake eventfd ends
 * the wait whatever the tasks do, so notify_stop() always joins it.
 */
static void *serve(void *arg)
{
	struct notifier *n = arg;

	n->short_slice = short_slice();
	for (;;) {
		struct pollfd pfd[2] = { { .fd = n->fd, .events = POLLIN },
					 { .fd = n->wake_fd, .events = POLLIN } };
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break; /* notify_stop: the jail is gone, nothing is left to answer */
		if (pfd[0].revents & POLLIN)
			serve_one(n);
		else if (pfd[0].revents)
			break; /* POLLHUP: the last filtered task is gone */
	}
	return NULL;
}

int notify_start(struct notifier *n)
{
	uint64_t flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	pthread_attr_t attr;
	int rc;

	if (n->threaded || n->fd < 0)
		return n->threaded ? 0 : -1;
	/* Linux 6.6+: the answer runs the caller on this CPU at once */
	n->sync_wake = ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) == 0;
	/* without a sure way to stop it, no thread: the loop serves instead */
	n->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (n->wake_fd < 0 || pthread_attr_init(&attr) != 0) {
		close_wake(n);
		return -1;
	}
	pthread_attr_setstacksize(&attr, SERVE_STACK);
	rc = pthread_create(&n->thread, &attr, serve, n);
	pthread_attr_destroy(&attr);
	n->threaded = rc == 0;
	if (!n->threaded)
		close_wake(n);
	vlog_line(&n->vlog, "serving the listener in a thread%s%s",
		  n->sync_wake ? " (sync wake-up)" : "",
		  n->threaded ? "" : ": failed, serving from the loop");
	return n->threaded ? 0 : -1;
}

bool notify_pending(const struct notifier *n)
{
	struct pollfd pfd = { .fd = n->fd, .events = POLLIN };

	return n->fd >= 0 && poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

void notify_serve_one(struct notifier *n)
{
	/* from the loop: only what is there, never a blocking wait */
	if (notify_pending(n))
		serve_one(n);
}

void notify_stop(struct notifier *n, struct denied_report **out)
{
	uint64_t one = 1;

	if (n->threaded) {
		/* its state is in the caller's frame: it must end before that
		 * does, so wake its poll and join it, never detach it (a write
		 * to an eventfd below its maximum count cannot fail) */
		while (write(n->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(n->thread, NULL);
		n->threaded = false;
	}
	close_wake(n);
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	vlog_line(&n->vlog, "%" PRIu64 " notifications answered%s", n->served,
		  n->short_slice ? " (short time slice)" : "");
	if (out)
		*out = n->report;
	else
		free(n->report);
	n->report = NULL;
}
