/*
 * test_doc_examples.c - every example of README.md, man/sbx.1,
 * man/sbx-result.5, man/sbx.policy.5, examples/probing.md and `sbx help`
 * runs as written: a user copies them as they are.
 *
 * The examples are read from the files (doc_extract.c), so an edited
 * example is run as edited.  Each is matched by its first line to an entry
 * of expect[] that says what it must do: its exit status, text its output
 * holds, a host check afterwards.  An example without an entry fails, and
 * so does an entry no example has any more.  Output a page shows under a
 * "$ command" must appear in what the command prints ("..." stands for
 * anything).  Commands run with sh in a fixture directory that holds the
 * files they name, with the sbx under test first in PATH; policies are
 * checked with `sbx check`, Makefiles made, a record compared key by key
 * with a real one.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc_extract.h"

#define FAILS -1 /* any nonzero exit status */

struct expectation {
	const char *first_line; /* the example's first line, exactly */
	int status;             /* its exit status, or FAILS */
	const char *output;     /* text its output must hold, or NULL */
	const char *then;       /* a host command that must succeed after it */
	const char *needs;      /* a host file it needs (else skipped, said) */
	const char *not_run;    /* why the suite does not run it, or NULL */
};

static const struct expectation expect[] = {
	/* README.md */
	{ "make demo     # install deps, build ./sbx, run examples/hello.py in the default jail",
	  .not_run = "installs Debian packages; CI runs it (make deps) before this suite" },
	{ "make check    # build and run every test: unit, integration and isolation probes",
	  .not_run = "it is this suite" },
	{ "sbx run -- /bin/echo hello                 # default jail; one JSON record on stderr at the end", .status = 0, .output = "\"status\":\"ok\"" },
	{ "sbx run -i -t 1h -- bash                   # a shell in the jail, on a pty of its own (job control, vi)", .not_run = "a session typed by hand; test_interactive.c drives one on a real pty" },
	{ "sbx run --lang py file.py arg1             # a language preset: py node sh bash perl c cpp", .status = 0, .output = "file.py got ['arg1']" },
	{ "sbx run --lang auto prog.c                 # compile in one jail, run in another", .status = 0, .output = "hello from prog.c", .needs = "/usr/bin/gcc" },
	{ "sbx run -f prog --time 2s --cpu 1s --memory 256M --pids 32 --output 1M -- ./prog", .status = 0, .output = "hello from prog" },
	{ "sbx run -p host -B . --net none --time 10m -- make test      # a CI step, in the checkout", .status = 0, .output = "tests pass in /" },
	{ "sbx run --json -- python3 -c 'print(1)' | jq .status          # capture mode: one JSON document", .status = 0, .output = "\"ok\"", .needs = "/usr/bin/jq" },
	{ "mkdir -p state; sbx run -w state --lang py step.py   # a persistent workspace between runs", .status = 0, .output = "run 1", .then = "test \"$(cat state/count)\" = 1" },
	{ "sbx run -f data.csv -o out/ --lang py report.py               # inputs in, new files out", .status = 0, .output = NULL, .then = "grep -q 'rows: 2' out/report.txt" },
	{ "sbx explain --lang py                      # the effective policy, each field with its origin", .status = 0, .output = "run: [" },
	{ "sbx check my.policy                        # validate a policy file (exit 0 or 125)", .status = 0, .output = "my.policy: ok" },
	{ "sbx langs                                  # presets, their runtime and version on this host", .status = 0, .output = "py" },
	{ "sbx doctor                                 # what this kernel and user allow, with fixes", .status = 0 },
	/* man/sbx.1 */
	{ "sbx run --lang py hello.py", .status = 0 },
	{ "sbx run -q --time 30s -f input.txt --lang auto solve.py input.txt 42", .status = 0, .output = "solved 3 numbers, 42" },
	{ "rec=$(mktemp)    # outside the checkout, where make test cannot forge it", .status = 0,
	  .output = "tests pass in /", .needs = "/usr/bin/jq" },
	{ "sbx run --json --lang py job.py > record.json", .status = 0, .output = "job done", .needs = "/usr/bin/jq" },
	{ "SBX ?= sbx", .status = 0, .then = "cmp out.txt tests/expected.txt", .needs = "/usr/bin/gcc" },
	{ "sbx run -- sh -c 'id; ls /; cat /proc/self/status | grep -e Cap -e NoNew'", .status = 0, .output = "CapEff:\t0000000000000000" },
	{ "sbx run --net loopback -- sh -c 'cat /proc/net/dev'", .status = 0, .output = "lo:" },
	{ "sbx run --seccomp-deny @debug -- strace true", .status = FAILS, .output = "ptrace",
	  .needs = "/usr/bin/strace" },
	{ "sbx explain --lang py --memory 1G | less", .status = 0, .output = "memory_mb: 1024",
	  .needs = "/usr/bin/less" },
	{ "sbx doctor", .status = 0 },
	/* man/sbx-result.5: the record is compared with this command's */
	{ "{\"sbx_version\":\"0.1.0\",\"schema_version\":1,\"status\":\"timeout\",", .status = 124,
	  .then = "sbx run --time 2s -- sleep 10" },
	{ "rec=$(mktemp)    # not in the checkout: make test could forge it there", .status = 0 },
	/* man/sbx.policy.5: policies pass `sbx check`, the message is check's */
	{ "# comments run to the end of the line", .status = 0 },
	{ "py.policy:12:3: unknown field 'memroy_mb' in 'limits' (did you mean 'memory_mb'?)", .status = 125 },
	{ "name: \"etl\"", .status = 0 },
	{ "name: \"judge\"", .status = 0 },
	{ "include: \"default\"", .status = 0 },
	{ "sbx check ./etl.policy", .status = 0, .output = "./etl.policy: ok" },
	{ "sbx explain -p ./etl.policy", .status = 0, .output = "name: \"etl\"" },
	/* examples/probing.md */
	{ "sbx run -i -t 1h -- bash", .not_run = "a session typed by hand; test_interactive.c drives one on a real pty" },
	{ "sbx run -q -- id", .status = 0 },
	{ "sbx run -q -- grep -E '^(Cap|NoNewPrivs|Seccomp:)' /proc/self/status", .status = 0 },
	{ "sbx run -q -- ls /proc /dev          # only the jail's processes and five devices", .status = 0, .output = "urandom" },
	{ "sbx run -q -- ls /home /root         # not mounted: No such file or directory", .status = FAILS, .output = "No such file or directory" },
	{ "sbx run -q -- touch /usr/x           # Read-only file system", .status = FAILS, .output = "Read-only file system" },
	{ "sbx run -q -- sh -c 'head -c 30M /dev/zero > /tmp/big'   # No space left (20 MiB /tmp)", .status = FAILS, .output = "No space left" },
	{ "sbx run -q -- python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 443), 5)'", .status = FAILS },
	{ "sbx run -q --net loopback -- cat /proc/net/dev   # lo only: the jail's own namespace", .status = 0, .output = "lo:" },
	{ "sbx run --time 1s -- sleep 10         # status \"timeout\", exit 124", .status = 124, .output = "\"status\":\"timeout\"" },
	{ "sbx run --cpu 1s -- sh -c 'while :; do :; done'   # status \"cpu-limit\"", .status = 124, .output = "\"status\":\"cpu-limit\"" },
	{ "sbx run --pids 16 -- sh -c 'for i in $(seq 32); do sleep 3 & done; wait'", .status = 2, .output = "\"status\":\"nonzero-exit\"", .then = NULL },
	{ "sbx run --output 64K -- yes          # status \"output-limit\", one marker, last", .status = 124, .output = "\"status\":\"output-limit\"" },
	{ "sbx run --set seccomp.deny_action=KILL -- python3 -c 'import ctypes; ctypes.CDLL(None).unshare(0x10000000)'", .status = 159, .output = "\"status\":\"seccomp\"" },
	{ "sbx explain | less                    # what the jail above was built from", .status = 0, .output = "name: \"default\"", .needs = "/usr/bin/less" },
	/* sbx help */
	{ "sbx help run", .status = 0, .output = "Usage: sbx run" },
	{ "sbx run --help", .status = 0, .output = "Usage: sbx run" },
	{ "sbx help", .status = 0, .output = "Commands:" },
	{ "sbx run -- /bin/echo hi", .status = 0, .output = "hi\n" },
	{ "sbx explain --set limits.wall_time_ms=2000", .status = 0, .output = "wall_time_ms: 2000" },
	{ "sbx run", .status = 125, .output = "missing COMMAND" },
};

#define NEXPECT (sizeof(expect) / sizeof(expect[0]))

static const struct expectation *expectation_of(const struct example *e)
{
	char *first = ex_first_line(e->text);
	const struct expectation *x = NULL;

	for (size_t i = 0; i < NEXPECT && !x; i++)
		if (strcmp(expect[i].first_line, first) == 0)
			x = &expect[i];
	free(first);
	return x;
}

/* ---- the fixture: the files the examples name ----------------------------- */

static void put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f, "create %s", path);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	free(path);
}

static char *make_fixture(void)
{
	char *dir = make_temp_dir(), *cmd, *out = NULL, *sbx = realpath(sbx_path(), NULL);

	cmd = xasprintf("cd '%s' && mkdir bin tests msgs && "
			"ln -s '%s' bin/sbx", dir, sbx);
	cr_assert_eq(host_sh(cmd, &out), 0, "%s", out);
	free(out);
	free(sbx);
	free(cmd);
	put(dir, "prog", "#!/bin/sh\necho hello from prog\n", 0755);
	put(dir, "hello.py", "print(\"hello\")\n", 0644);
	put(dir, "file.py", "import sys\nprint(\"file.py got\", sys.argv[1:])\n", 0644);
	put(dir, "prog.c", "#include <stdio.h>\nint main(void) { puts(\"hello from prog.c\"); return 0; }\n", 0644);
	put(dir, "step.py", "import os\nn = int(open('count').read()) + 1 if os.path.exists('count') else 1\n"
			    "open('count', 'w').write(str(n))\nprint('run', n)\n", 0644);
	put(dir, "data.csv", "a,b\n1,2\n3,4\n", 0644);
	put(dir, "report.py", "rows = open('data.csv').read().splitlines()[1:]\n"
			      "open('report.txt', 'w').write(f'rows: {len(rows)}\\n')\n", 0644);
	put(dir, "my.policy", "include: \"default\"\nlimits { wall_time_ms: 5000 }\n", 0644);
	put(dir, "solve.py", "import sys\nnums = open(sys.argv[1]).read().split()\n"
			   "print('solved', len(nums), 'numbers,', sys.argv[2])\n", 0644);
	put(dir, "input.txt", "1 2 3\n", 0644);
	put(dir, "job.py", "print('job done')\n", 0644);
	put(dir, "Makefile", "test:\n\t@echo tests pass in $$(pwd)\n", 0644);
	put(dir, "solution.c", "#include <stdio.h>\nint main(void) { int n; if (scanf(\"%d\", &n) != 1) "
			       "return 1; printf(\"%d\\n\", 2 * n); return 0; }\n", 0644);
	put(dir, "tests/input.txt", "21\n", 0644);
	put(dir, "tests/expected.txt", "42\n", 0644);
	return dir;
}

/* ---- running one example ------------------------------------------------------ */

/* CMD run by sh in DIR, with the sbx under test first in PATH. */
static int in_fixture(const char *dir, const char *cmd, char **out)
{
	char *text = xasprintf("%s\n", cmd), *full;
	int rc;

	put(dir, ".cmd.sh", text, 0644);
	/* TMPDIR: what an example's mktemp makes goes with the fixture */
	full = xasprintf("cd '%s' && PATH='%s/bin':\"$PATH\" TMPDIR='%s' timeout 300 sh ./.cmd.sh",
			 dir, dir, dir);
	rc = host_sh(full, out);
	free(full);
	free(text);
	return rc;
}

/* Write TEXT to DIR/NAME; the command is HOW followed by NAME. */
static char *script(const char *dir, const char *name, const char *text, const char *how)
{
	char *with_nl = xasprintf("%s\n", text);

	put(dir, name, with_nl, 0644);
	free(with_nl);
	return xasprintf("%s%s", how, name);
}

/* A policy example under its own name ("etl.policy"), for later examples. */
static char *policy_file(const struct example *e, size_t index)
{
	const char *name = strstr(e->text, "name: \"");

	if (name)
		return xasprintf("%.*s.policy", (int)strcspn(name + 7, "\""), name + 7);
	return xasprintf("example-%zu.policy", index);
}

/* "FILE:LINE:COL: unknown field 'F' in 'B' ...": make FILE say exactly that. */
static char *message_input(const char *dir, const struct example *e)
{
	char file[128], field[64], block[64];
	int line, col;
	const char *q = strchr(e->text, '\'');

	cr_assert(sscanf(e->text, "%127[^:]:%d:%d:", file, &line, &col) == 3 && q &&
		  sscanf(q, "'%63[^']' in '%63[^']'", field, block) == 2 && line >= 2,
		  "%s: not a message this test can reproduce: %s", e->where, e->text);
	char *text = strdup(""), *next;
	for (int i = 1; i < line - 1; i++, text = next)
		next = xasprintf("%s# line %d\n", text, i), free(text);
	next = xasprintf("%s%s {\n%*s%s: 1\n}\n", text, block, col - 1, "", field);
	free(text);
	char *path = xasprintf("msgs/%s", file);
	put(dir, path, next, 0644);
	free(next);
	free(path);
	return xasprintf("cd msgs && sbx check %s", file);
}

/* Every "key":value of the page's record (strings, literals, string arrays)
 * that is not a measurement must be in the real record as shown. */
static void compare_record(const struct example *e, const char *real)
{
	/* measurements, and the host ids, which depend on who runs sbx */
	static const char *const measured[] = { "\"wall_ms\"", "\"cpu_user_ms\"",
						"\"cpu_sys_ms\"", "\"max_rss_kib\"",
						"\"host_uid\"", "\"host_gid\"" };
	char *flat = strdup(e->text), *o = flat;
	int n = 0;

	for (const char *p = e->text; *p; p++)
		if (*p != '\n' && !(*p == ' ' && (p == e->text || p[-1] == '\n' || p[-1] == ' ')))
			*o++ = *p;
	*o = '\0';
	for (char *p = strstr(flat, "\":"); p; p = strstr(p + 1, "\":")) {
		char *key = p;
		while (key > flat && key[-1] != '"')
			key--;
		key--;
		char *v = p + 2, *end = v;
		if (*v == '{')
			continue;
		if (*v == '"' || *v == '[')
			end = strchr(v + 1, *v == '"' ? '"' : ']') + 1;
		else
			end = v + strcspn(v, ",}");
		char *pair = strndup(key, (size_t)(end - key));
		bool skip = strchr(pair, '.') && strstr(pair, "...");
		for (size_t i = 0; i < sizeof(measured) / sizeof(measured[0]); i++)
			skip |= strncmp(pair, measured[i], strlen(measured[i])) == 0;
		if (!skip) {
			cr_expect(strstr(real, pair), "%s: the record shows %s; sbx printed:\n%s",
				  e->where, pair, real);
			n++;
		}
		free(pair);
	}
	cr_expect_geq(n, 10, "%s: only %d keys compared", e->where, n);
	free(flat);
}

/* Each piece of SHOWN between "..." appears in OUT, in order. */
static void expect_shown(const struct example *e, const char *out)
{
	char *shown = strdup(e->shown), *save = NULL;
	const char *at = out;

	for (char *line = strtok_r(shown, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (char *piece = line, *dots; piece; piece = dots ? dots + 3 : NULL) {
			dots = strstr(piece, "...");
			if (dots)
				*dots = '\0';
			if (!*piece)
				continue;
			const char *found = strstr(at, piece);
			cr_expect(found, "%s: the page shows \"%s\"; the command printed:\n%s",
				  e->where, piece, out);
			if (found)
				at = found + strlen(piece);
		}
	}
	free(shown);
}

static char *command_of(const char *dir, const struct example *e, size_t index)
{
	char *file, *cmd;

	switch (e->kind) {
	case EX_SHELL:
		return script(dir, ".example.sh", e->text, "sh ./");
	case EX_POLICY:
		file = policy_file(e, index);
		cmd = script(dir, file, e->text, "sbx check ./");
		free(file);
		return cmd;
	case EX_MAKEFILE:
		return script(dir, "example.mk", e->text, "make -s -f ");
	case EX_MESSAGE:
		return message_input(dir, e);
	case EX_RECORD:
		return strdup(expectation_of(e)->then);
	}
	return NULL;
}

static void check_output(const struct example *e, const struct expectation *x,
			 int rc, const char *out, const char *dir)
{
	if (x->status == FAILS)
		cr_expect_neq(rc, 0, "%s: `%s` should fail; it exited 0:\n%s", e->where,
			      e->text, out);
	else
		cr_expect_eq(rc, x->status, "%s: `%s` exited %d, not %d:\n%s", e->where,
			     e->text, rc, x->status, out);
	if (x->output)
		cr_expect(strstr(out, x->output), "%s: `%s` did not print \"%s\":\n%s",
			  e->where, e->text, x->output, out);
	if (e->shown)
		expect_shown(e, out);
	if (e->kind == EX_MESSAGE)
		cr_expect(strstr(out, e->text), "%s: sbx check said:\n%s", e->where, out);
	if (e->kind == EX_RECORD)
		compare_record(e, out);
	else if (x->then) {
		char *then_out = NULL;
		cr_expect_eq(in_fixture(dir, x->then, &then_out), 0, "%s: after `%s`, `%s` "
			     "failed:\n%s", e->where, e->text, x->then, then_out);
		free(then_out);
	}
}

static void run_example(const char *dir, const struct example *e, size_t index)
{
	const struct expectation *x = expectation_of(e);
	char *cmd, *out = NULL;
	int rc;

	if (!x) {
		cr_expect_fail("%s: an example without an entry in expect[] of %s "
			       "(say what it must do):\n%s", e->where, __FILE__, e->text);
		return;
	}
	if (x->not_run)
		return;
	if (x->needs && access(x->needs, X_OK) != 0) {
		cr_log_warn("SKIP: %s needs %s, which is not installed (make deps)", e->where,
			    x->needs);
		return;
	}
	cmd = command_of(dir, e, index);
	rc = in_fixture(dir, cmd, &out);
	check_output(e, x, rc, out, dir);
	free(out);
	free(cmd);
}

static void run_all(const struct ex_list *l, size_t min)
{
	char *dir, *real;

	REQUIRE_USERNS();
	cr_assert_geq(l->n, min, "only %zu examples found", l->n);
	real = realpath(sbx_path(), NULL);
	cr_assert_not_null(real, "no sbx at %s", sbx_path());
	free(real);
	dir = make_fixture();
	for (size_t i = 0; i < l->n; i++)
		run_example(dir, &l->v[i], i);
	rm_tree(dir);
	free(dir);
}

Test(doc_examples, readme, .timeout = 600)
{
	struct ex_list l = { 0 };

	ex_from_markdown(&l, "README.md");
	run_all(&l, 14);
	ex_list_free(&l);
}

Test(doc_examples, sbx_1, .timeout = 600)
{
	struct ex_list l = { 0 };

	ex_from_roff(&l, "man/sbx.1");
	run_all(&l, 10);
	ex_list_free(&l);
}

Test(doc_examples, sbx_result_5, .timeout = 600)
{
	struct ex_list l = { 0 };

	ex_from_roff(&l, "man/sbx-result.5");
	run_all(&l, 2);
	ex_list_free(&l);
}

Test(doc_examples, sbx_policy_5, .timeout = 600)
{
	struct ex_list l = { 0 };

	ex_from_roff(&l, "man/sbx.policy.5");
	run_all(&l, 7);
	ex_list_free(&l);
}

Test(doc_examples, examples_probing_md, .timeout = 600)
{
	struct ex_list l = { 0 };

	ex_from_markdown(&l, "examples/probing.md");
	run_all(&l, 14);
	ex_list_free(&l);
}

Test(doc_examples, sbx_help, .timeout = 600)
{
	struct ex_list l = { 0 };

	ex_from_help(&l, sbx_path());
	run_all(&l, 5);
	ex_list_free(&l);
}

/* An entry no page has any more is an example that changed or went. */
Test(doc_examples, every_expectation_is_still_an_example)
{
	struct ex_list l = { 0 };
	const char *md[] = { "README.md", "examples/probing.md" };
	const char *roff[] = { "man/sbx.1", "man/sbx-result.5", "man/sbx.policy.5" };

	for (size_t i = 0; i < 2; i++)
		ex_from_markdown(&l, md[i]);
	for (size_t i = 0; i < 3; i++)
		ex_from_roff(&l, roff[i]);
	ex_from_help(&l, sbx_path());
	for (size_t i = 0; i < NEXPECT; i++) {
		bool used = false;
		for (size_t k = 0; k < l.n && !used; k++)
			used = expectation_of(&l.v[k]) == &expect[i];
		cr_expect(used, "expect[] has \"%s\", which no page shows any more",
			  expect[i].first_line);
	}
	ex_list_free(&l);
}
