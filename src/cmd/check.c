/*
 * check.c - `sbx check POLICY...` and `sbx explain [OPTIONS]`.
 *
 * check validates files without running anything (for CI and Makefiles);
 * explain builds the effective policy exactly as `sbx run` would (same
 * effective.c path, so the two cannot drift) and prints it with its origins.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/commands.h"
#include "cmd/effective.h"
#include "cmd/help.h"
#include "jail/seccomp.h"
#include "lang/lang.h"
#include "policy/policy.h"

static int check_one(const char *file)
{
	struct policy p;
	struct sbx_err err = { 0 };
	int rc;

	if (policy_load(file, &p, &err) < 0) {
		err_print(stderr, "", err.msg);
		return -1;
	}
	/* everything run refuses before a jail exists: seccomp names too */
	rc = sc_spec_check(&p.seccomp, &err);
	policy_free(&p);
	if (rc < 0) {
		/* a rule of the whole block has no line: name the file */
		fprintf(stderr, "%s%s%s\n", strncmp(err.msg, file, strlen(file)) ? file : "",
			strncmp(err.msg, file, strlen(file)) ? ": " : "", err.msg);
		return -1;
	}
	fprintf(stderr, "%s: ok\n", file);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	int first = 1, failed = 0;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help_print_command("check", stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--"))
		first = 2;
	else if (argc > 1 && argv[1][0] == '-' && argv[1][1]) {
		fprintf(stderr, "sbx: check: unknown option '%s' (usage: sbx check POLICY...)\n",
			argv[1]);
		return 125;
	}
	if (first >= argc) {
		fprintf(stderr, "sbx: check: no policy file given (usage: sbx check POLICY...)\n");
		return 125;
	}
	for (int i = first; i < argc; i++)
		if (check_one(argv[i]) < 0)
			failed++;
	return failed ? 125 : 0;
}

/* Print S so that a shell reads it back as one word. */
static void put_shell_word(const char *s, FILE *out)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_@%+=:,./-") == strlen(s)) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else if (*s == '\n')
			fputs("'$'\\n''", out); /* keep the comment on one line */
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* What run would start: COMMAND, or with --lang the preset's template. */
static int command_argv(const struct cli_options *o, const struct policy *p, char ***argv,
			struct sbx_err *err)
{
	if (!o->lang)
		return cli_command_argv(o, p, argv, err);
	if (lang_check_operands(o->command, o->ncommand, err) < 0)
		return -1;
	return lang_expand(p, &p->lang.run, "lang.run", o->command[0], o->command + 1,
			   o->ncommand - 1, argv, err);
}

static int print_command(const struct cli_options *o, const struct policy *p,
			 struct sbx_err *err)
{
	char **argv;

	if (command_argv(o, p, &argv, err) < 0)
		return -1;
	fputs("# command:", stdout);
	for (char **a = argv; *a; a++) {
		fputc(' ', stdout);
		put_shell_word(*a, stdout);
	}
	fputc('\n', stdout);
	argv_free(argv);
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	struct cli_options o;
	struct policy p;
	struct sbx_err err = { 0 };
	int rc = 0;

	if (cli_parse(argc, argv, &o, &err) < 0)
		goto fail;
	if (o.help) {
		help_print_command("explain", stdout);
		cli_options_free(&o);
		return 0;
	}
	if (effective_policy(&o, &p, &err) < 0)
		goto fail;
	if (sc_spec_check(&p.seccomp, &err) < 0) {
		policy_free(&p);
		goto fail;
	}
	if (policy_write_text(&p, stdout) < 0)
		rc = err_set(&err, ERR_INTERNAL, 0, "writing the policy failed");
	if (rc == 0 && o.ncommand > 0)
		rc = print_command(&o, &p, &err);
	policy_free(&p);
	if (fflush(stdout) != 0 && rc == 0)
		rc = err_set(&err, ERR_INTERNAL, 0, "writing to stdout failed");
	if (rc < 0)
		goto fail;
	cli_options_free(&o);
	return 0;
fail:
	err_print(stderr, "sbx: ", err.msg);
	cli_options_free(&o);
	return 125;
}
