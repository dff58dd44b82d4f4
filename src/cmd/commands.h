/*
 * commands.h - the subcommands of sbx; cmd/sbx/main.c only dispatches.
 * Each returns the process exit status (spec §3): 125 for sbx's own errors.
 */
#ifndef SBX_COMMANDS_H
#define SBX_COMMANDS_H

int cmd_run(int argc, char **argv);     /* src/run.c */
int cmd_check(int argc, char **argv);   /* src/check.c */
int cmd_explain(int argc, char **argv); /* src/check.c */
int cmd_langs(int argc, char **argv);   /* src/langs.c */
int cmd_doctor(int argc, char **argv);  /* src/doctor.c */

#endif
