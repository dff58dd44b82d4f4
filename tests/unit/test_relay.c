/*
 * test_relay.c - relay_pollable(), the one "can epoll wait on this fd"
 * probe of both relays.  A regular file or /dev/null taken for pollable
 * would be registered with epoll and fail (EPERM); a pipe taken for not
 * pollable would be written without waiting and could block the loop.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "supervise/relay.h"

Test(relay_pollable, pipe_ends_are_pollable)
{
	int p[2];

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert(relay_pollable(p[0], EPOLLIN));
	cr_assert(relay_pollable(p[1], EPOLLOUT));
	close(p[0]);
	close(p[1]);
}

Test(relay_pollable, regular_file_and_dev_null_are_not)
{
	char path[] = "/tmp/sbx-test-relay-XXXXXX";
	int fd = mkstemp(path), null = open("/dev/null", O_RDWR | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	unlink(path);
	cr_assert_not(relay_pollable(fd, EPOLLIN));
	cr_assert_not(relay_pollable(fd, EPOLLOUT));
	cr_assert_geq(null, 0);
	cr_assert_not(relay_pollable(null, EPOLLIN));
	cr_assert_not(relay_pollable(null, EPOLLOUT));
	close(fd);
	close(null);
}

Test(relay_pollable, closed_fd_is_not)
{
	cr_assert_not(relay_pollable(-1, EPOLLIN));
}
