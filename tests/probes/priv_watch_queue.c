/*
 * priv_watch_queue - pipe2(O_NOTIFICATION_PIPE) (a watch-queue pipe, the
 * entry to CVE-2022-0995's out-of-bounds write and CVE-2022-1882) must be
 * filtered.  A kernel without watch queues answers ENOPKG anyway, so only
 * EPERM (the filter) is BLOCKED; anything else reached the kernel's code.
 * Ordinary pipe2 flags must still work.
 */
#include "probe.h"

#include <fcntl.h>

#define O_NOTIFICATION_PIPE O_EXCL /* linux/watch_queue.h clashes with fcntl.h */

int main(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		probe_error("pipe2(O_CLOEXEC | O_NONBLOCK) failed: %s", errname(errno));
	close(p[0]);
	close(p[1]);
	if (pipe2(p, O_NOTIFICATION_PIPE) == 0)
		escaped("pipe2(O_NOTIFICATION_PIPE) made a watch-queue pipe");
	if (errno != EPERM)
		escaped("pipe2(O_NOTIFICATION_PIPE) reached the kernel: %s", errname(errno));
	blocked("pipe2(O_NOTIFICATION_PIPE) filtered: %s", errname(errno));
}
