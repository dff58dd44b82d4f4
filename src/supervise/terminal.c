/*
 * terminal.c - `sbx run -i`: raw mode on the caller's terminal, its
 * restore, the window size, and the relay between it and the jail's pty
 * (terminal.h).  The relay itself is the loop's: the master is the stdout
 * stream's source, and the stdin relay writes into it.
 */
#include "supervise/terminal.h"
#include "supervise/internal.h"
#include "base/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

void terminal_init(struct terminal *t, bool interactive)
{
	memset(t, 0, sizeof(*t));
	t->fd = interactive ? STDIN_FILENO : -1;
	t->master = -1;
}

int terminal_raw(struct terminal *t)
{
	struct termios raw;

	if (t->fd < 0)
		return 0;
	if (!t->saved) {
		if (tcgetattr(t->fd, &t->caller) != 0)
			return -1;
		t->saved = true;
	}
	raw = t->caller;
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	/* TCSANOW: a drain would wait on a terminal nobody reads */
	if (tcsetattr(t->fd, TCSANOW, &raw) != 0)
		return -1;
	t->raw = true;
	return 0;
}

void terminal_restore(struct terminal *t)
{
	if (!t->raw)
		return;
	/* a hung-up terminal refuses (EIO): nothing is left to restore then */
	while (tcsetattr(t->fd, TCSANOW, &t->caller) != 0 && errno == EINTR)
		;
	t->raw = false;
}

void terminal_copy_size(const struct terminal *t)
{
	struct winsize ws;

	if (t->fd < 0 || t->master < 0 || ioctl(t->fd, TIOCGWINSZ, &ws) != 0)
		return;
	ioctl(t->master, TIOCSWINSZ, &ws);
}

/*
 * The master from CTL_READY: the stdout stream reads it (its output counts
 * against the output limit like any), the stdin relay writes the caller's
 * keys into a second descriptor of it.  The read end closes at the pty's
 * EOF (EIO once no slave is open: the jail is gone); the stdin relay then
 * has nobody to feed.
 */
static int attach_failed(struct sup *s, const char *step)
{
	s->setup_errno = errno;
	snprintf(s->setup_text, sizeof(s->setup_text), "-i: %s: %s", step, strerror(errno));
	return -1;
}

int terminal_attach(struct sup *s, int master)
{
	struct terminal *t = &s->term;
	struct stdin_relay *in = &s->in;
	int held cleanup_fd = master, keys cleanup_fd = fcntl(master, F_DUPFD_CLOEXEC, 3);

	if (keys < 0 || fcntl(master, F_SETFL, O_NONBLOCK) != 0 ||
	    !(in->buf = malloc(STDIN_BUF_SIZE)))
		return attach_failed(s, "taking the jail's pty");
	/* from here the streams own both descriptors (closed at cleanup) */
	t->master = steal_fd(&held);
	s->out[0].src = master;
	s->out[0].splice_ok = false;
	/* a failure here is retried by the loop's next turn (update_out_watch) */
	s->out[0].src_watched = sup_watch(s, master, EPOLLIN, TAG_OUT) == 0;
	in->src = t->fd;
	in->src_owned = false;
	in->src_ready = false;
	in->dst = steal_fd(&keys);
	terminal_copy_size(t);
	if (terminal_raw(t) != 0)
		return attach_failed(s, "raw mode on sbx's terminal (stdin)");
	vlog_line(&s->vlog, "-i: the jail's pty attached, the caller's terminal raw");
	return 0;
}
