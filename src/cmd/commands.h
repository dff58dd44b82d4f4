/*
 * commands.h - the subcommands of sbx; cmd/sbx/main.c only dispatches.
 * Each returns the process exit status (sbx(1)): 125 for sbx's own errors.
 * ARGV[0] is the subcommand's name ("run"), as main passes it.
 *
 * Besides one file per subcommand (below): start.c (the first steps of
 * every sbx process), effective.c (options -> the one effective policy,
 * for run, learn and explain), env.c (the program's environment), run.c's
 * run_main (run.h, shared by run and learn), and doctor.c with
 * doctor_probes.c and doctor_trial.c (doctor.h).
 */
#ifndef SBX_COMMANDS_H
#define SBX_COMMANDS_H

#define EXIT_SBX_ERROR 125

int cmd_run(int argc, char **argv);     /* src/cmd/run.c */
int cmd_learn(int argc, char **argv);   /* src/cmd/learn.c */
int cmd_check(int argc, char **argv);   /* src/cmd/check.c */
int cmd_explain(int argc, char **argv); /* src/cmd/check.c */
int cmd_import(int argc, char **argv);  /* src/cmd/import.c */
int cmd_langs(int argc, char **argv);   /* src/cmd/langs.c */
int cmd_doctor(int argc, char **argv);  /* src/cmd/doctor.c */
int cmd_version(int argc, char **argv); /* src/cmd/help.c */
int cmd_help(int argc, char **argv);    /* src/cmd/help.c */

/* No such subcommand: say so (with a did-you-mean) and return 125. */
int cmd_unknown(const char *cmd);       /* src/cmd/help.c */

/*
 * Before any subcommand (src/cmd/start.c): reset the process state a
 * caller left behind (procstate.h) and refuse to run setuid or setgid.
 * -1 means exit 125 (the message is printed).
 */
int cmd_start(int argc, char **argv);

#endif
