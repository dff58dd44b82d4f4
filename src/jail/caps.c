/*
 * caps.c - drop every capability a jail process holds in its user namespace
 * (the init at GO, then the target before exec).
 *
 * A fresh user namespace gives its first process every capability inside
 * it.  The target must keep none: effective, permitted, inheritable,
 * bounding and ambient are all cleared, then read back and checked
 * (asserting what the drop changed, not inferring it from "mount fails").
 */
#include "jail/internal.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int verify_dropped(struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return err_set(err, ERR_SETUP, errno, "capget: %s", strerror(errno));
	for (int i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return err_set(err, ERR_SETUP, EPERM,
				       "capabilities still held after the drop");
	/* The ambient set needs no read: the kernel keeps it a subset of
	 * permitted and inheritable, both empty here (one prctl per
	 * capability less at every start). */
	for (int cap = 0; cap < 64; cap++) {
		int in_bound = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in_bound < 0)
			break; /* past the kernel's last capability */
		if (in_bound > 0)
			return err_set(err, ERR_SETUP, EPERM,
				       "capability %d still in the bounding set "
				       "after the drop", cap);
	}
	return 0;
}

/*
 * Bounding set first: PR_CAPBSET_DROP needs CAP_SETPCAP, which the capset
 * after it takes away.  Raw calls, not libcap-ng: its set-up (two reads of
 * /proc/PID/status, cap_last_cap, its own pages faulted in) cost the
 * init about 0.2 ms of every start.
 */
static int drop(struct sbx_err *err)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];

	for (int cap = 0; cap < 64; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			break; /* past the kernel's last capability */
		return err_set(err, ERR_SETUP, errno, "prctl(PR_CAPBSET_DROP, %d): %s",
			       cap, strerror(errno));
	}
	/* EINVAL: a kernel before 4.3 has no ambient set to clear */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return err_set(err, ERR_SETUP, errno, "prctl(PR_CAP_AMBIENT_CLEAR_ALL): %s",
			       strerror(errno));
	memset(none, 0, sizeof(none));
	if (syscall(SYS_capset, &hdr, none) < 0)
		return err_set(err, ERR_SETUP, errno, "capset(none): %s", strerror(errno));
	return 0;
}

int caps_drop_all(struct sbx_err *err)
{
	struct sbx_err held = { 0 };

	/* Already none (the target of an init that dropped its own): without
	 * CAP_SETPCAP even an empty bounding set cannot be rewritten. */
	if (verify_dropped(&held) == 0)
		return 0;
	if (drop(err) < 0)
		return -1;
	return verify_dropped(err);
}
