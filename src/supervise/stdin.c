/*
 * stdin.c - the program's stdin: /dev/null, a file, or a relay of sbx's.
 *
 * The relay reads sbx's fd 0 only when the pipe has room (a bounded 64 KiB
 * buffer), so memory stays constant, and never blocks the event loop on a
 * program that does not read: the pipe's write end is non-blocking.
 */
#include "supervise/stdin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_file(const char *path, const char *what, struct sbx_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return err_set(err, ERR_USAGE, errno, "%s: cannot open '%s': %s; "
			       "give a readable file", what, path, strerror(errno));
	return fd;
}

/* sbx's stdin can be handed over as is when it is a regular file. */
static bool stdin_is_file(void)
{
	struct stat st;

	return fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
}

/* epoll refuses regular files and some devices (/dev/null): relay those directly. */
static bool stdin_pollable(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	bool ok;

	if (ep < 0)
		return false;
	ok = epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev) == 0;
	close(ep);
	return ok;
}

static int open_relay(int *jail_fd, struct stdin_relay *r, struct sbx_err *err)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		return err_set(err, ERR_SETUP, errno, "pipe2 for --stdin -: %s", strerror(errno));
	r->buf = malloc(STDIN_BUF_SIZE);
	if (!r->buf || fcntl(p[1], F_SETFL, O_NONBLOCK) != 0) {
		close(p[0]);
		close(p[1]);
		return err_set(err, ERR_SETUP, errno ? errno : ENOMEM,
			       "preparing the --stdin - relay: %s", strerror(errno ? errno : ENOMEM));
	}
	r->src = STDIN_FILENO;
	r->dst = p[1];
	*jail_fd = p[0];
	return 0;
}

int stdin_open(const char *spec, int *jail_fd, struct stdin_relay *r, struct sbx_err *err)
{
	memset(r, 0, sizeof(*r));
	r->src = r->dst = -1;
	if (!spec) {
		/* fd 0 open at EOF, never closed (requirements item 51) */
		*jail_fd = open_file("/dev/null", "stdin", err);
		return *jail_fd < 0 ? -1 : 0;
	}
	if (strcmp(spec, "-") != 0) {
		*jail_fd = open_file(spec, "--stdin", err);
		return *jail_fd < 0 ? -1 : 0;
	}
	if (fcntl(STDIN_FILENO, F_GETFD) < 0) {
		*jail_fd = open_file("/dev/null", "stdin", err);
		return *jail_fd < 0 ? -1 : 0;
	}
	if (stdin_is_file() || !stdin_pollable()) {
		*jail_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (*jail_fd < 0)
			return err_set(err, ERR_SETUP, errno, "--stdin -: dup of fd 0: %s",
				       strerror(errno));
		return 0;
	}
	return open_relay(jail_fd, r, err);
}

int stdin_want(const struct stdin_relay *r, unsigned *events)
{
	if (r->dst < 0)
		return -1;
	if (r->len > r->off) {
		*events = EPOLLOUT;
		return r->dst;
	}
	*events = EPOLLIN;
	return r->src;
}

static void finish(struct stdin_relay *r)
{
	if (r->dst >= 0)
		close(r->dst); /* the program sees EOF */
	r->dst = -1;
	r->src = -1;
	r->off = r->len = 0;
}

void stdin_pump(struct stdin_relay *r)
{
	ssize_t n;

	if (r->dst < 0)
		return;
	if (r->len == r->off) {
		n = read(r->src, r->buf, STDIN_BUF_SIZE);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			finish(r);
			return;
		}
		r->off = 0;
		r->len = (size_t)n;
	}
	n = write(r->dst, r->buf + r->off, r->len - r->off);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		finish(r); /* EPIPE: the program closed its stdin; stop feeding */
		return;
	}
	r->off += (size_t)n;
}

void stdin_close(struct stdin_relay *r)
{
	finish(r);
	free(r->buf);
	r->buf = NULL;
}
