/*
 * main.c - sbx: the first steps every process takes, then dispatch to a
 * subcommand.  Everything else lives in src/ (commands.h lists the
 * subcommands; README.md "Layout" says where each layer is).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/help.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "learn", cmd_learn },
	{ "check", cmd_check },
	{ "explain", cmd_explain },
	{ "import", cmd_import },
	{ "langs", cmd_langs },
	{ "doctor", cmd_doctor },
	{ "version", cmd_version }, { "--version", cmd_version }, { "-V", cmd_version },
	{ "help", cmd_help }, { "--help", cmd_help }, { "-h", cmd_help },
};

int main(int argc, char **argv)
{
	if (cmd_start(argc, argv) < 0)
		return EXIT_SBX_ERROR;
	if (argc < 2) {
		help_print_short(stderr);
		return EXIT_SBX_ERROR;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return cmd_unknown(argv[1]);
}
