/*
 * main.c - sbx: refuse to run setuid, then dispatch to a subcommand.
 * Everything else lives in src/ (commands.h lists the subcommands).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "base/procstate.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.0.0"
#endif

#define EXIT_SBX_ERROR 125

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

static int print_version(void)
{
	printf("sbx %s\n", SBX_VERSION);
	return fflush(stdout) == 0 ? 0 : EXIT_SBX_ERROR;
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		help_print_main(stdout);
		return 0;
	}
	if (help_print_command(argv[1], stdout) < 0) {
		fprintf(stderr, "sbx: help: unknown command '%s' (try 'sbx help')\n",
			argv[1]);
		return EXIT_SBX_ERROR;
	}
	return 0;
}

static int unknown_command(const char *cmd)
{
	const char *hint = err_suggest(cmd, help_commands, help_ncommands);

	if (hint)
		fprintf(stderr, "sbx: unknown command '%s' (did you mean '%s'?)\n",
			cmd, hint);
	else
		fprintf(stderr, "sbx: unknown command '%s'\n", cmd);
	fprintf(stderr, "Try 'sbx help' for the list of commands.\n");
	return EXIT_SBX_ERROR;
}

/* `sbx CMD --help` for the commands that take no options of their own. */
static bool wants_help(int argc, char **argv)
{
	return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

int main(int argc, char **argv)
{
	const char *cmd;

	/* First of all: a caller's ignored SIGCHLD, blocked mask, itimer or
	 * persona must neither bend sbx's supervision nor reach the jail. */
	procstate_reset(argc >= 2 && !strcmp(argv[1], "run"));
	if (refuse_setuid() < 0)
		return EXIT_SBX_ERROR;
	if (argc < 2) {
		help_print_short(stderr);
		return EXIT_SBX_ERROR;
	}
	cmd = argv[1];
	argc--;
	argv++;
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc, argv);
	if (!strcmp(cmd, "explain"))
		return cmd_explain(argc, argv);
	if (!strcmp(cmd, "langs"))
		return cmd_langs(argc, argv);
	if (!strcmp(cmd, "doctor"))
		return wants_help(argc, argv) ? cmd_help(2, (char *[]){ "help", "doctor", NULL })
					      : cmd_doctor(argc, argv);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-V"))
		return wants_help(argc, argv) ? cmd_help(2, (char *[]){ "help", "version", NULL })
					      : print_version();
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return cmd_help(argc, argv);
	return unknown_command(cmd);
}
