/*
 * help.c - usage texts; see help.h.  `sbx run --help` lists every option
 * of `sbx run`, one per line as "  -t, --time DUR", because a test checks
 * each listed option against the man page.  The subcommands that only
 * print (help, version) and the unknown-command message live here too.
 */
#include "cmd/help.h"

#include <string.h>

#include "base/err.h"
#include "cmd/commands.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.0.0"
#endif

const char *const help_commands[] = {
	"run", "learn", "check", "explain", "import", "langs", "doctor", "version", "help",
};
const unsigned help_ncommands = sizeof(help_commands) / sizeof(help_commands[0]);

static const char main_text[] =
	"Usage: sbx COMMAND [ARG...]\n"
	"Run one command in a throw-away, unprivileged jail and report what happened.\n"
	"\n"
	"Commands:\n"
	"  run       run a command (or a --lang FILE) in a jail\n"
	"  learn     run it once and print the policy (syscalls) that run needed\n"
	"  check     validate policy files\n"
	"  explain   print the effective policy, each field with its origin\n"
	"  import    translate an nsjail config into an sbx policy\n"
	"  langs     list the language presets and whether their runtime is here\n"
	"  doctor    report what this kernel and user allow\n"
	"  version   print the version of sbx\n"
	"  help      show help for a command\n"
	"\n"
	"Run 'sbx help COMMAND' or 'sbx COMMAND --help' for the options of a command.\n";

static const char options_text[] =
	"Policy:\n"
	"  -p, --policy FILE|NAME   base policy, a path or a built-in/installed name\n"
	"                           (default: default, or the --lang preset);\n"
	"                           nsjail:FILE translates an nsjail config\n"
	"  -l, --lang LANG          language preset (py, node, sh, bash, perl, ...);\n"
	"                           auto picks one by FILE's extension\n"
	"      --set FIELD=VALUE    override a scalar policy field, e.g.\n"
	"                           --set limits.wall_time_ms=2000\n"
	"\n"
	"Limits (a sealed policy only accepts lower ones; 'unlimited' lifts one up to\n"
	"the policy's max_limits):\n"
	"  -t, --time DUR           wall-clock limit\n"
	"      --cpu DUR            CPU-time limit for the whole process tree\n"
	"                           (default: the wall limit times the CPUs)\n"
	"  -m, --memory SIZE        memory limit (a multiple of 1M)\n"
	"      --pids N             most processes/threads alive at once\n"
	"      --fsize SIZE         largest file the program may write (a multiple of 1M)\n"
	"      --nofile N           most open files per process\n"
	"      --output SIZE        most bytes of stdout+stderr\n"
	"      --cgroup-parent DIR  put the run's cgroup v2 in DIR (default: a delegated\n"
	"                           cgroup of the caller's, where there is one)\n"
	"\n"
	"Isolation:\n"
	"      --net MODE           none (default), loopback, or host\n"
	"  -b, --bind SRC[:DST]     read-only bind mount (DST defaults to SRC)\n"
	"  -B, --bind-rw SRC[:DST]  writable bind mount\n"
	"      --tmpfs DST[:SIZE]   a fresh tmpfs at DST (default SIZE 20M); replaces\n"
	"                           a policy mount at DST\n"
	"      --seccomp-allow NAME allow a syscall or @group\n"
	"      --seccomp-deny NAME  deny a syscall or @group\n"
	"\n"
	"Program:\n"
	"  -w, --workdir DIR        persistent workspace: DIR is mounted writable at\n"
	"                           the workspace path and outlives the run\n"
	"  -f, --file PATH          copy an extra input file into the workspace\n"
	"  -o, --out DIR            copy the files the program created or changed to DIR\n"
	"  -e, --env NAME=VALUE     set a variable in the program's environment\n"
	"      --env-keep NAME      pass the host's value of NAME\n"
	"  -C, --chdir DIR          working directory inside, which must exist\n"
	"                           (relative: to the workspace; default: the caller's\n"
	"                           directory when -b/-B binds it at its own path,\n"
	"                           else the workspace)\n"
	"      --stdin FILE|-       what the program reads (default: empty; - relays\n"
	"                           sbx's stdin)\n"
	"  -i, --interactive        a pty of the jail's own as the program's terminal\n"
	"                           (a shell with job control); stdin not a terminal:\n"
	"                           a warning, and sbx's stdin is relayed as --stdin -\n"
	"\n"
	"Output:\n"
	"      --json               capture mode: stdout is one JSON result record\n"
	"                           that holds the program's stdout and stderr\n"
	"      --stdout FILE        also write the program's stdout to FILE\n"
	"      --stderr FILE        also write the program's stderr to FILE\n"
	"  -r, --result DEST        where the record goes: -, fd:N or a path\n"
	"                           (default: stderr)\n"
	"  -q, --quiet              no record unless --result or --json asks for one\n"
	"      --no-syscall-report  answer refused syscalls in the kernel: faster for a\n"
	"                           program that hammers them, but the record's\n"
	"                           denied_syscalls is null and a KILL is not named\n"
	"  -v, --verbose            log each setup step to stderr\n"
	"  -h, --help               show this help\n"
	"\n"
	"DUR:  250ms, 2s, 1.5s, 3m, 1h; a bare number means seconds.\n"
	"SIZE: 4096, 64K, 512M, 2G, 1T (binary units, optional B or iB);\n"
	"      a bare number means bytes.\n"
	"N:    a positive integer.\n";

static const char run_head[] =
	"Usage: sbx run [OPTIONS] [--] COMMAND [ARG...]\n"
	"       sbx run [OPTIONS] --lang LANG FILE [ARG...]\n"
	"Run COMMAND (or FILE with the LANG preset) in a fresh jail and print one\n"
	"JSON result record on stderr.  Options end at COMMAND or FILE; what\n"
	"follows belongs to the program.\n"
	"\n";

static const char run_tail[] =
	"\n"
	"Exit status: the program's exit code; 128+N if a signal N ended it;\n"
	"124 a limit stopped it; 125 sbx failed (usage, policy, setup);\n"
	"126 cannot execute; 127 not found; 130/143 sbx was interrupted.\n";

static const char learn_head[] =
	"Usage: sbx learn [OPTIONS] [--] COMMAND [ARG...]\n"
	"       sbx learn [OPTIONS] --lang LANG FILE [ARG...]\n"
	"Run COMMAND once, as 'sbx run' would, but let through (and count) every\n"
	"system call outside the policy that no @group keeps apart; then print on\n"
	"stdout the policy that run needed: the effective policy with each learned\n"
	"call added to seccomp.allow and how often it was seen.  Calls refused for\n"
	"a reason (an @group, a deny entry, an argument rule) stay refused and are\n"
	"listed at the end.  A trial run sees only the paths it took.  The\n"
	"program's stdout goes to stderr; the record goes to stderr as usual.\n"
	"Then: sbx run -p FILE [the same options] -- COMMAND\n"
	"\n";

static const char explain_head[] =
	"Usage: sbx explain [OPTIONS] [--lang LANG [FILE]] [-- COMMAND...]\n"
	"Print the effective policy that 'sbx run' with the same options would use,\n"
	"each field followed by where it came from.  Nothing is created or run.\n"
	"Options are those of 'sbx run'; the ones that only affect a run\n"
	"(--json, --stdout, -r, -w, ...) are accepted and ignored.\n"
	"\n";

static const char check_text[] =
	"Usage: sbx check POLICY...\n"
	"Validate each policy file (and what it includes).  Prints 'FILE: ok' or,\n"
	"at the first error of a file, 'FILE:LINE:COL: message' on stderr.\n"
	"\n"
	"Exit status: 0 if every file is valid, 125 otherwise.\n";

static const char import_text[] =
	"Usage: sbx import nsjail FILE [-o OUT]\n"
	"Translate the nsjail config FILE (protobuf text, nsjail.NsJailConfig) into\n"
	"an sbx policy on stdout (or OUT).  Every line names the nsjail field it\n"
	"came from; what sbx cannot express is listed at the end, with what sbx\n"
	"does instead.  run and explain take -p nsjail:FILE: the same translation.\n"
	"See sbx-nsjail(7).\n"
	"\n"
	"  -o, --output OUT   write the policy to OUT instead of stdout\n"
	"\n"
	"Exit status: 0 when FILE was translated, 125 otherwise.\n";

static const char langs_text[] =
	"Usage: sbx langs [--json]\n"
	"List the language presets (built-in, $XDG_CONFIG_HOME/sbx, /etc/sbx): name,\n"
	"file extensions, the runtime binary and whether this host has it.\n"
	"\n"
	"      --json   one JSON array instead of a table\n";

static const char doctor_text[] =
	"Usage: sbx doctor [--json]\n"
	"Report what this kernel and user allow (user namespaces, seccomp, cgroups,\n"
	"...) and how to fix what is missing.\n"
	"\n"
	"      --json   one JSON object instead of text\n";

static const char version_text[] =
	"Usage: sbx version | sbx --version\n"
	"Print the version of sbx.\n";

static const char help_text[] =
	"Usage: sbx help [COMMAND] | sbx COMMAND --help\n"
	"Show the commands of sbx, or the usage of COMMAND.\n";

void help_print_main(FILE *out)
{
	fputs(main_text, out);
}

void help_print_short(FILE *out)
{
	fputs("Usage: sbx COMMAND [ARG...]   (commands: run, learn, check, explain,\n"
	      "       import, langs, doctor, version, help)\n"
	      "Try 'sbx help' for more, or 'sbx run -- /bin/echo hi'.\n", out);
}

int help_print_command(const char *cmd, FILE *out)
{
	if (!strcmp(cmd, "run")) {
		fputs(run_head, out);
		fputs(options_text, out);
		fputs(run_tail, out);
	} else if (!strcmp(cmd, "learn")) {
		fputs(learn_head, out);
		fputs(options_text, out);
		fputs(run_tail, out);
	} else if (!strcmp(cmd, "explain")) {
		fputs(explain_head, out);
		fputs(options_text, out);
	} else if (!strcmp(cmd, "check")) {
		fputs(check_text, out);
	} else if (!strcmp(cmd, "import")) {
		fputs(import_text, out);
	} else if (!strcmp(cmd, "langs")) {
		fputs(langs_text, out);
	} else if (!strcmp(cmd, "doctor")) {
		fputs(doctor_text, out);
	} else if (!strcmp(cmd, "version")) {
		fputs(version_text, out);
	} else if (!strcmp(cmd, "help")) {
		fputs(help_text, out);
	} else {
		return -1;
	}
	return 0;
}

/* ---- the subcommands that only print ----------------------------------- */

bool help_wanted(int argc, char **argv)
{
	return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		help_print_main(stdout);
		return 0;
	}
	/* `sbx help --help` is help about help, like `sbx version --help` */
	if (help_wanted(argc, argv))
		return help_print_command("help", stdout) < 0 ? EXIT_SBX_ERROR : 0;
	if (help_print_command(argv[1], stdout) < 0) {
		fprintf(stderr, "sbx: help: unknown command '%s' (try 'sbx help')\n",
			argv[1]);
		return EXIT_SBX_ERROR;
	}
	return 0;
}

int cmd_version(int argc, char **argv)
{
	if (help_wanted(argc, argv))
		return cmd_help(2, (char *[]){ "help", "version", NULL });
	printf("sbx %s\n", SBX_VERSION);
	return fflush(stdout) == 0 ? 0 : EXIT_SBX_ERROR;
}

int cmd_unknown(const char *cmd)
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
