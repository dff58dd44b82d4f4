/*
 * help.h - the usage texts of sbx and its subcommands (GNU style).
 * `sbx help`, `sbx help CMD` and `sbx CMD --help` print these on stdout.
 */
#ifndef SBX_HELP_H
#define SBX_HELP_H

#include <stdbool.h>
#include <stdio.h>

/* The subcommands, for dispatch and did-you-mean. */
extern const char *const help_commands[];
extern const unsigned help_ncommands;

/* The overview: every subcommand with one line. */
void help_print_main(FILE *out);

/* The short usage printed on stderr when sbx is run with no arguments. */
void help_print_short(FILE *out);

/* Usage of CMD; -1 when CMD is not a subcommand. */
int help_print_command(const char *cmd, FILE *out);

/* `sbx CMD --help` (or -h) and nothing else, for commands whose own
 * options parser would not see it. */
bool help_wanted(int argc, char **argv);

#endif
