/*
 * dest.c - where the record goes (--result): opened before the run, so a
 * destination that cannot take it stops the run, and checked after it,
 * so a file the program could reach cannot pass off its forgery.
 */
#include "record/result.h"
#include "base/callerpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "fd:N" -> N, or -1 when DEST is not a well-formed fd spec. */
static int parse_fd_dest(const char *dest)
{
	char *end;
	long n;

	if (strncmp(dest, "fd:", 3) != 0 || dest[3] < '0' || dest[3] > '9')
		return -1;
	errno = 0;
	n = strtol(dest + 3, &end, 10);
	if (errno || *end || n > INT_MAX)
		return -1;
	return (int)n;
}

/* fd:N or "-" must be open for writing: a record sent elsewhere is lost. */
static int check_fd_dest(const char *dest, int fd, struct sbx_err *err)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return err_set(err, ERR_USAGE, errno, "--result %s: fd %d is not open "
			       "(open it for writing, e.g. %d>FILE, or give a path)", dest, fd, fd);
	if ((fl & O_ACCMODE) == O_RDONLY)
		return err_set(err, ERR_USAGE, EBADF, "--result %s: fd %d is open read-only "
			       "(open it for writing, e.g. %d>FILE, or give a path)", dest, fd, fd);
	return fd;
}

int result_open_dest(const char *dest, bool *close_after, struct sbx_err *err)
{
	int fd;

	*close_after = false;
	if (!dest)
		return STDERR_FILENO;
	if (strcmp(dest, "-") == 0)
		return check_fd_dest(dest, STDOUT_FILENO, err);
	fd = parse_fd_dest(dest);
	if (fd >= 0)
		return check_fd_dest(dest, fd, err);
	/* a mistyped fd:N would otherwise be a file of that name, the record lost in it */
	if (strncmp(dest, "fd:", 3) == 0)
		return err_set(err, ERR_USAGE, EINVAL, "--result %s: not a descriptor number "
			       "(give fd:N with N from 0 to %d, or ./%s for a file)", dest,
			       INT_MAX, dest);
	/* /dev/stdout, /dev/fd/N: sbx's own descriptor, not a link to follow */
	fd = caller_path_fd(dest);
	if (fd >= 0)
		return check_fd_dest(dest, fd, err);
	/* never through a link, a planted FIFO or hard link (callerpath.h) */
	fd = caller_open_output("--result", dest, err);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return err_set(err, ERR_SETUP, errno, "--result %s: fcntl: %s", dest, strerror(errno));
	}
	*close_after = true;
	return fd;
}

/* A --result path in a mount the jail could write (-w ., -B) was the
 * program's to forge: replaced, or written past where the record ends.
 * sbx opened FD on DEST empty before the run: it must still be both. */
bool result_file_tampered(int fd, const char *dest)
{
	struct stat a;

	if (fstat(fd, &a) != 0 || !S_ISREG(a.st_mode))
		return false;
	/* by a no-follow walk: a link to the file in its place is a change */
	return !caller_path_is(dest, fd) || a.st_size != 0;
}
