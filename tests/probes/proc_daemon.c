/*
 * proc_daemon MARKER - a double-forked setsid daemon (ignoring SIGHUP and
 * SIGTERM, stdio on /dev/null so nothing holds sbx's pipes) must not
 * outlive the run.  The daemon keeps our argv, so MARKER is in its
 * /proc/PID/cmdline: the test scans the host for it after sbx returns.
 */
#include "probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

static void daemonize(void)
{
	int null = open("/dev/null", O_RDWR);

	setsid();
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (fork() != 0)
		_exit(0);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	for (int i = 0; i < 60; i++)
		sleep(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		probe_error("usage: proc_daemon MARKER");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		daemonize();
	waitpid(pid, NULL, 0);
	blocked("daemon with marker %s started; the test judges whether it survived", argv[1]);
}
