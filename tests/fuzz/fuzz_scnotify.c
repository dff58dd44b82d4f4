/*
 * fuzz_scnotify.c - libFuzzer target over what the supervisor does with a
 * seccomp notification (jail/scnotify.h): the input is one struct
 * seccomp_data, the part of a notification the jail controls.  The
 * default policy's program and its reporting twin run on it; the twin
 * must report exactly the policy's refusals, the learning program must
 * never allow what a fixed rule refuses, and the deciding argument and its
 * text must stay in bounds.  Nothing is loaded into the kernel.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jail/scnotify.h"
#include "jail/seccomp.h"
#include "policy/policy.h"

static struct sock_fprog policy, twin, learn;

static void setup(void)
{
	struct policy p;
	struct sbx_err err = { 0 };

	if (policy_load("default", &p, &err) < 0 || sc_filter_build(&p.seccomp, &policy, &err) < 0 ||
	    sc_filter_build_learn(&p.seccomp, &learn, &err) < 0 || sc_filter_notify(&policy, &twin) < 0)
		abort();
	policy_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seccomp_data d;
	uint32_t ret, t, l, action;
	uint64_t value = 0;
	char text[64];
	int arg;

	if (!policy.filter)
		setup();
	memset(&d, 0, sizeof(d));
	memcpy(&d, data, size < sizeof(d) ? size : sizeof(d));
	ret = sc_eval(&policy, &d);
	t = sc_eval(&twin, &d);
	l = sc_eval(&learn, &d);
	action = ret & SECCOMP_RET_ACTION_FULL;
	if ((action == SECCOMP_RET_ERRNO || action == SECCOMP_RET_KILL_PROCESS) &&
	    t != SECCOMP_RET_USER_NOTIF && t != SECCOMP_RET_KILL_PROCESS)
		abort(); /* a refusal the twin neither reports nor kills */
	if (action == SECCOMP_RET_ALLOW && (t != ret || l != ret))
		abort(); /* the twin or the learner changed an allowed call */
	/* a fixed argument rule refuses under learning too */
	arg = sc_deciding_arg(&policy, &d, ret, &value);
	if (arg >= 0 && (l & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW)
		abort();
	if (arg < -1 || arg > 5)
		abort();
	sc_arg_text((int)d.nr, arg, value, text, sizeof(text));
	if (memchr(text, '\0', sizeof(text)) == NULL)
		abort();
	sc_syscall_name((int)d.nr, text, sizeof(text));
	return 0;
}
