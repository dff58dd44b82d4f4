/*
 * net.c - bring up lo in the jail's own network namespace (NET_LOOPBACK).
 *
 * A fresh network namespace has only lo, and it is down.  One ioctl on an
 * AF_INET socket is enough; no netlink dependency.  The jail's lo is its
 * own: the host's 127.0.0.1 services stay unreachable.
 */
#include "jail/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int net_loopback_up(struct sbx_err *err)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = -1;

	if (fd < 0)
		return err_set(err, ERR_SETUP, errno, "network lo: socket: %s",
			       strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name) - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		err_set(err, ERR_SETUP, errno, "network lo: SIOCGIFFLAGS: %s",
			strerror(errno));
	} else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
		if (rc < 0)
			err_set(err, ERR_SETUP, errno, "network lo: SIOCSIFFLAGS: %s",
				strerror(errno));
	}
	close(fd);
	return rc < 0 ? -1 : 0;
}

/*
 * A datagram socket's queue from senders it is not connected to holds at
 * most max_dgram_qlen + 1 datagrams of up to twice wmem_max each, charged
 * to the senders; once they are closed no sock_diag dump shows them (20
 * sockets held 762 MiB under --memory 64M).  With 0, one datagram: the
 * memory meter counts it from the receiver's queue length (sockmem.c).
 */
int net_limit_dgram_queue(struct sbx_err *err)
{
	int fd = open("/proc/sys/net/unix/max_dgram_qlen", O_WRONLY | O_CLOEXEC);
	const char *why;
	int e = 0;

	if (fd < 0 || write(fd, "0", 1) != 1)
		e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (e && (why = jail_proc_refusal(e)))
		return err_set(err, ERR_SETUP, e, "writing net.unix.max_dgram_qlen = 0 in the "
			       "jail's network namespace: %s: %s", strerror(e), why);
	if (e)
		return err_set(err, ERR_SETUP, e, "writing net.unix.max_dgram_qlen = 0 in the "
			       "jail's network namespace: %s (sbx needs /proc/sys writable to "
			       "bound what unix datagram queues hold)", strerror(e));
	return 0;
}
