/*
 * proc_term_ignorer MARKER - a child that ignores SIGTERM, stays in our
 * session and holds no pipe must not outlive the run (the test scans host
 * /proc/PID/cmdline for MARKER, which the child inherits with our argv).
 */
#include "probe.h"

#include <fcntl.h>
#include <signal.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		probe_error("usage: proc_term_ignorer MARKER");
	fflush(stdout);
	if (fork() == 0) {
		int null = open("/dev/null", O_RDWR);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		for (int i = 0; i < 60; i++)
			sleep(1);
		_exit(0);
	}
	blocked("SIGTERM-ignoring child with marker %s started; the test judges whether it survived",
		argv[1]);
}
