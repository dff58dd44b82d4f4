/*
 * stdin.c - the program's stdin: /dev/null, or a relay of a file or of sbx's.
 *
 * Only a pipe sbx made crosses into the jail (stdin.h says why).  The relay
 * reads its source only when the pipe has room (a bounded 64 KiB buffer),
 * so memory stays constant, and never blocks the event loop on a program
 * that does not read: the pipe's write end is non-blocking.
 */
#include "supervise/stdin.h"
#include "supervise/relay.h"
#include "base/callerpath.h"
#include "base/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device"
	     : S_ISLNK(m) ? "a symbolic link" : "neither a file, a FIFO, a socket nor a device";
}

/*
 * May FD (opened from WHAT) be relayed as the program's stdin?  Only byte
 * streams are: a directory fd would let the jail walk the host fs through
 * /proc/self/fd/0/.. and an O_PATH fd reads nothing.
 */
static int check_source(int fd, const char *what, struct sbx_err *err)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st) != 0)
		return err_set(err, ERR_USAGE, errno, "--stdin %s: %s", what, strerror(errno));
	/* O_PATH: a handle, not an open file; it names a path, reads nothing */
	if (fl & O_PATH)
		return err_set(err, ERR_USAGE, 0, "--stdin %s is an O_PATH descriptor, which "
			       "cannot be read; give a file or a pipe", what);
	/* only byte streams: never a directory or a block device */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode) &&
	    !S_ISCHR(st.st_mode))
		return err_set(err, ERR_USAGE, 0, "--stdin %s is %s; give a regular file, "
			       "a FIFO, a socket or a character device", what,
			       kind_name(st.st_mode));
	if ((fl & O_ACCMODE) == O_WRONLY)
		return err_set(err, ERR_USAGE, 0, "--stdin %s is open for writing only; "
			       "open it for reading (e.g. '< FILE')", what);
	return 0;
}

/* --stdin FILE: a fresh read-only open, never through a link
 * (callerpath.h); O_NONBLOCK so a FIFO does not block sbx. */
static int open_path(const char *path, struct sbx_err *err)
{
	int fd cleanup_fd = caller_open("--stdin", path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, err);
	char what[300];
	struct stat st;

	if (fd < 0)
		return -1;
	snprintf(what, sizeof(what), "'%s'", path);
	if (check_source(fd, what, err) != 0)
		return -1;
	/* a hard link planted to a file the caller may read and the jail may
	 * not (where protected_hardlinks is off) would hand it over */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
		return caller_hard_link_err("--stdin", path, (unsigned long)st.st_nlink, err);
	return steal_fd(&fd);
}

static int open_relay(int src, bool owned, int *jail_fd, struct stdin_relay *r,
		      struct sbx_err *err)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		return err_set(err, ERR_SETUP, errno, "pipe2 for --stdin: %s", strerror(errno));
	int rd cleanup_fd = p[0], wr cleanup_fd = p[1];
	r->buf = malloc(STDIN_BUF_SIZE);
	if (!r->buf || fcntl(wr, F_SETFL, O_NONBLOCK) != 0)
		return err_set(err, ERR_SETUP, errno ? errno : ENOMEM,
			       "preparing the --stdin relay: %s", strerror(errno ? errno : ENOMEM));
	r->src = src;
	r->src_owned = owned;
	r->src_ready = !relay_pollable(src, EPOLLIN);
	/* a source epoll cannot wait on is read blocking, never spun on */
	if (owned && r->src_ready)
		fcntl(src, F_SETFL, fcntl(src, F_GETFL) & ~O_NONBLOCK);
	r->dst = steal_fd(&wr);
	*jail_fd = steal_fd(&rd);
	return 0;
}

static int open_null(int *jail_fd, struct sbx_err *err)
{
	/* fd 0 open at EOF, never closed: the program's next open() would get fd 0 */
	*jail_fd = open("/dev/null", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (*jail_fd < 0)
		return err_set(err, ERR_SETUP, errno, "stdin: cannot open /dev/null: %s",
			       strerror(errno));
	return 0;
}

int stdin_open(const char *spec, int *jail_fd, struct stdin_relay *r, struct sbx_err *err)
{
	int src cleanup_fd = -1, own = spec ? caller_path_fd(spec) : -1;

	memset(r, 0, sizeof(*r));
	r->src = r->dst = -1;
	/* /dev/stdin and /dev/fd/0 are sbx's stdin: "-" */
	if (own == 0)
		spec = "-";
	if (!spec || (strcmp(spec, "-") == 0 && fcntl(STDIN_FILENO, F_GETFD) < 0))
		return open_null(jail_fd, err);
	/* /dev/fd/N: that descriptor, relayed like fd 0, not reopened by a link */
	if (own > 0)
		return check_source(own, spec, err) != 0 ? -1
		       : open_relay(own, false, jail_fd, r, err);
	if (strcmp(spec, "-") == 0) {
		/* relayed, never handed over: sbx's fd 0 may be writable,
		 * share an offset with the caller, or be a terminal */
		if (check_source(STDIN_FILENO, "- (sbx's fd 0)", err) != 0)
			return -1;
		return open_relay(STDIN_FILENO, false, jail_fd, r, err);
	}
	src = open_path(spec, err);
	if (src < 0 || open_relay(src, true, jail_fd, r, err) != 0)
		return -1;
	steal_fd(&src); /* the relay's now */
	return 0;
}

int stdin_want(const struct stdin_relay *r, unsigned *events)
{
	if (r->dst < 0)
		return -1;
	/* pending bytes, or a source that is always readable: wait for room */
	if (r->len > r->off || r->src_ready) {
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
	if (r->src_owned && r->src >= 0)
		close(r->src);
	r->dst = -1;
	r->src = -1;
	r->src_owned = false;
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
