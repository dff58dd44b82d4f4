/* proc_signal_host PID - a host process (the test's sentinel, same uid) must be invisible: kill(PID, 0) -> ESRCH. */
#include "probe.h"

#include <signal.h>

int main(int argc, char **argv)
{
	if (argc != 2 || atoi(argv[1]) <= 0)
		probe_error("usage: proc_signal_host PID");
	int pid = atoi(argv[1]);
	if (kill(pid, 0) == 0)
		escaped("kill(%d, 0) found a process to signal", pid);
	blocked("kill(%d, 0) failed: %s", pid, errname(errno));
}
