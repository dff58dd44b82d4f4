/*
 * start.c - the first steps of every sbx process, before any subcommand:
 * undo what the caller's process state would bend, and refuse to run
 * setuid or setgid.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/procstate.h"
#include "cmd/commands.h"

/*
 * Installed setuid/setgid, sbx would run a jail builder with privileges the
 * caller does not have (the bug class of setuid bubblewrap); it must not.
 */
static int refuse_setuid(void)
{
	if (geteuid() != getuid() || getegid() != getgid()) {
		fprintf(stderr, "sbx: refusing to run setuid or setgid (euid %u, uid %u); "
			"sbx needs no privileges: remove the setuid bit (chmod u-s,g-s)\n",
			(unsigned)geteuid(), (unsigned)getuid());
		return -1;
	}
	return 0;
}

int cmd_start(int argc, char **argv)
{
	/* First of all: a caller's ignored SIGCHLD, blocked mask, itimer or
	 * persona must neither bend sbx's supervision nor reach the jail. */
	procstate_reset(argc >= 2 && (!strcmp(argv[1], "run") || !strcmp(argv[1], "learn")));
	return refuse_setuid();
}
