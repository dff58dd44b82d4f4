/*
 * proc_kill_all - kill(-1, SIGKILL) must reach only the jail's processes.
 * The probe cannot see what died outside: the test starts a host sentinel
 * of the same uid and checks it is alive afterwards.  NEVER run bare: it
 * would kill every process of the calling user (all of them as root).
 */
#include "probe.h"

#include <signal.h>

int main(void)
{
	if (getenv("SBX_PROBE_BARE"))
		probe_error("proc_kill_all must not run outside a jail");
	int rc = kill(-1, SIGKILL);
	blocked("kill(-1, SIGKILL) returned %d (%s); the test judges what died outside",
		rc, rc ? strerrorname_np(errno) : "ok");
}
