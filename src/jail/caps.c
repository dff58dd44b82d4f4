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

#include <cap-ng.h>
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
	 * capability less at every start, issue 17). */
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

int caps_drop_all(struct sbx_err *err)
{
	struct sbx_err held = { 0 };

	/* Already none (the target of an init that dropped its own): without
	 * CAP_SETPCAP libcap-ng cannot even rewrite an empty bounding set. */
	if (verify_dropped(&held) == 0)
		return 0;
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(CAPNG_SELECT_ALL) < 0)
		return err_set(err, ERR_SETUP, errno ? errno : EPERM,
			       "dropping capabilities (capng_apply): %s",
			       strerror(errno ? errno : EPERM));
	return verify_dropped(err);
}
