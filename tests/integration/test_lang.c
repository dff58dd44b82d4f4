/*
 * test_lang.c - `sbx run --lang LANG FILE` for every preset this host has,
 * the compile stage of c/cpp, `sbx langs`, and user presets.  A preset
 * whose runtime is missing is skipped with
 * a reason, never passed.
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void require_runtime(const char *bin)
{
	if (access(bin, X_OK) != 0)
		cr_skip_test("SKIP: %s is not installed on this host", bin);
}

/* Run SOURCE as NAME with --lang LANG plus EXTRA options (NULL-ended). */
static void run_lang(struct sbx_result *r, const char *lang, const char *name,
		     const char *source, const char *const *extra)
{
	char *dir = make_temp_dir();
	char *file = put_test_file(dir, name, source);
	const char *argv[32];
	size_t n = 0;

	argv[n++] = "run";
	argv[n++] = "--lang";
	argv[n++] = lang;
	for (size_t i = 0; extra && extra[i] && n < 28; i++)
		argv[n++] = extra[i];
	argv[n++] = "--";
	argv[n++] = file;
	argv[n] = NULL;
	/* a bound for a hang, not a timing: two g++ stages under emulation
	 * (make vmcheck, TCG, beside another test) took over the default 20 s */
	sbx_run(r, &(struct sbx_opts){ .deadline_s = 90 }, argv);
	rm_tree(dir);
	free(file);
	free(dir);
}

#define NO_EXTRA ((const char *const *)NULL)

/* ---- python ------------------------------------------------------------ */

Test(lang, py_sum_of_range_prints_45)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	run_lang(&r, "py", "sum.py", "print(sum(range(10)))\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "45\n");
	cr_assert_eq(r.exit_status, 0);
	sbx_result_free(&r);
}

/*
 * A code upload is several files: a module copied in beside the script
 * with -f imports, a package in a -w workspace imports, and an explicit
 * -e PYTHONPATH is honoured.  What isolated mode was for stays: the
 * caller's own PYTHON* variables do not reach the jail, and the user site
 * (which a run could fill for the next one under a kept HOME) is off.
 */
Test(lang, py_imports_its_siblings_and_honours_an_explicit_pythonpath)
{
	struct sbx_result r;
	char *dir = make_temp_dir(), *pkg = xasprintf("%s/pkg", dir);
	char *lib = xasprintf("%s/lib", dir);
	const char *env[] = { "PYTHONPATH=/nonexistent-host-path", "PYTHONSTARTUP=/etc/passwd",
			      NULL };

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	cr_assert_eq(mkdir(pkg, 0755), 0);
	cr_assert_eq(mkdir(lib, 0755), 0);
	free(put_test_file(dir, "utils.py", "X = 1\n"));
	free(put_test_file(pkg, "__init__.py", ""));
	free(put_test_file(pkg, "mod.py", "Y = 2\n"));
	free(put_test_file(lib, "helper.py", "Z = 3\n"));
	char *one = put_test_file(dir, "one.py", "import utils\nprint(utils.X)\n");
	char *utils = xasprintf("%s/utils.py", dir);
	sbx_run(&r, &(struct sbx_opts){ .env = env }, SBX_ARGV("run", "-f", utils, "--lang", "py", one));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "1\n", "stderr: %s", r.err);
	sbx_result_free(&r);

	char *all = put_test_file(dir, "all.py",
				  "import os, sys, utils, pkg.mod, helper\n"
				  "print(utils.X, pkg.mod.Y, helper.Z)\n"
				  "print(os.environ['PYTHONPATH'], os.environ.get('PYTHONSTARTUP'))\n"
				  "print(sys.flags.no_user_site)\n");
	sbx_run(&r, &(struct sbx_opts){ .env = env, .cwd = dir },
		SBX_ARGV("run", "-w", ".", "-e", "PYTHONPATH=lib", "--lang", "py", "all.py"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "1 2 3\nlib None\n1\n", "stderr: %s", r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(one);
	free(all);
	free(utils);
	free(pkg);
	free(lib);
	free(dir);
}

/* Arguments reach the program one element each, never through a shell. */
Test(lang, py_arguments_pass_verbatim)
{
	struct sbx_result r;
	char *dir = make_temp_dir();
	char *file = put_test_file(dir, "args.py", "import sys\nfor a in sys.argv[1:]: print(repr(a))\n");

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	sbx_run(&r, NULL, SBX_ARGV("run", "--lang", "py", file, "a b", "", "$HOME",
				    "*", "'q'", "--json", "{args}"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "'a b'\n''\n'$HOME'\n'*'\n\"'q'\"\n'--json'\n'{args}'\n");
	sbx_result_free(&r);
	rm_tree(dir);
	free(file);
	free(dir);
}

/* A language-level error is the program failing, not sbx. */
Test(lang, py_syntax_error_is_nonzero_exit_with_traceback)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	run_lang(&r, "py", "bad.py", "def f(:\n", NO_EXTRA);
	ASSERT_STATUS(&r, "nonzero-exit");
	cr_assert_eq(r.exit_status, 1);
	cr_assert(strstr(r.err, "SyntaxError") != NULL, "stderr: %s", r.err);
	sbx_result_free(&r);
}

Test(lang, py_busy_loop_times_out)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	run_lang(&r, "py", "loop.py", "while True: pass\n",
		 SBX_ARGV("--time", "1s", "--cpu", "10s"));
	ASSERT_STATUS(&r, "timeout");
	cr_assert_eq(r.exit_status, 124);
	sbx_result_free(&r);
}

Test(lang, auto_picks_the_preset_by_extension)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	run_lang(&r, "auto", "hello.py", "print('hi')\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(rec_str(&r, "policy"), "py");
	cr_assert_str_eq(r.out, "hi\n");
	sbx_result_free(&r);
}

Test(lang, unknown_language_is_config_error_listing_presets)
{
	struct sbx_result r;

	run_lang(&r, "cobol", "x.cob", "DISPLAY 'HI'.\n", NO_EXTRA);
	ASSERT_STATUS(&r, "config-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(rec_str(&r, "message"), "available: ") &&
		  strstr(rec_str(&r, "message"), "py"), "message: %s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
}

/* ---- the other interpreters ------------------------------------------------ */

Test(lang, node_hello_and_timeout)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/node");
	run_lang(&r, "node", "hello.js", "console.log('hello ' + (6 * 7))\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "hello 42\n");
	sbx_result_free(&r);
	run_lang(&r, "node", "loop.js", "for (;;) {}\n", SBX_ARGV("--time", "2s"));
	ASSERT_STATUS(&r, "timeout");
	sbx_result_free(&r);
}

Test(lang, sh_hello_and_output_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	run_lang(&r, "sh", "hello.sh", "echo \"hello $1\"\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "hello \n");
	sbx_result_free(&r);
	run_lang(&r, "sh", "flood.sh", "exec /usr/bin/yes\n", SBX_ARGV("--output", "64K"));
	ASSERT_STATUS(&r, "output-limit");
	cr_assert_leq(r.out_len, 65536 + 200); /* + the truncation marker */
	sbx_result_free(&r);
}

Test(lang, bash_hello_and_cpu_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/bin/bash");
	run_lang(&r, "bash", "hello.bash", "a=(x y); echo \"${#a[@]}\"\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "2\n");
	sbx_result_free(&r);
	run_lang(&r, "bash", "spin.bash", "while :; do :; done\n",
		 SBX_ARGV("--cpu", "1s", "--time", "20s"));
	ASSERT_STATUS(&r, "cpu-limit");
	sbx_result_free(&r);
}

Test(lang, perl_hello_and_timeout)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/perl");
	run_lang(&r, "perl", "hello.pl", "print 6*7, \"\\n\";\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "42\n");
	sbx_result_free(&r);
	run_lang(&r, "perl", "sleep.pl", "sleep 30;\n", SBX_ARGV("--time", "500ms"));
	ASSERT_STATUS(&r, "timeout");
	sbx_result_free(&r);
}

/* ---- compiled languages ------------------------------------------------------ */

Test(lang, c_hello_has_a_compile_section)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/gcc");
	run_lang(&r, "c", "hello.c",
		 "#include <stdio.h>\nint main(void){puts(\"hello c\");return 0;}\n", NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "hello c\n");
	cr_assert_str_eq(rec_str(&r, "stage"), "run");
	cJSON *c = cJSON_GetObjectItem(r.record, "compile");
	cr_assert(cJSON_IsObject(c));
	cr_assert_str_eq(cJSON_GetObjectItem(c, "status")->valuestring, "ok");
	/* the build output is sbx's, not one of the program's files */
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r.record, "files")), 0);
	sbx_result_free(&r);
}

/* A compile error ends the run with the compiler's record; nothing runs. */
Test(lang, c_compile_error_stops_before_the_run)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/gcc");
	run_lang(&r, "c", "bad.c",
		 "#include <stdio.h>\nint main(void){puts(\"RAN\"); return nope;}\n", NO_EXTRA);
	/* told from a program that ran and failed by status, not only by the
	 * nested record */
	ASSERT_STATUS(&r, "compile-error");
	cr_assert_str_eq(rec_str(&r, "stage"), "compile");
	cr_assert_eq(r.exit_status, 1);
	cr_assert(strstr(r.out, "RAN") == NULL);
	cr_assert(strstr(r.err, "nope") != NULL, "compiler output on stderr: %s", r.err);
	cJSON *c = cJSON_GetObjectItem(r.record, "compile");
	cr_assert(cJSON_IsObject(c));
	cr_assert(strstr(cJSON_GetObjectItem(c, "stderr")->valuestring, "undeclared"));
	cr_assert_str_eq(cJSON_GetObjectItem(c, "status")->valuestring, "nonzero-exit");
	sbx_result_free(&r);
}

Test(lang, c_runtime_crash_is_signaled_in_the_run_stage)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/gcc");
	run_lang(&r, "c", "crash.c",
		 "int main(void){ volatile int *p = 0; return *p; }\n", NO_EXTRA);
	ASSERT_STATUS(&r, "signaled");
	cr_assert_str_eq(rec_str(&r, "signal"), "SIGSEGV");
	cr_assert_str_eq(rec_str(&r, "stage"), "run");
	cr_assert_eq(r.exit_status, 128 + 11);
	sbx_result_free(&r);
}

Test(lang, c_fork_bomb_is_contained)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/gcc");
	run_lang(&r, "c", "bomb.c",
		 "#include <unistd.h>\nint main(void){ for (;;) fork(); }\n",
		 SBX_ARGV("--time", "2s"));
	ASSERT_STATUS(&r, "timeout");
	cr_assert_lt(r.elapsed_s, 15.0);
	sbx_result_free(&r);
}

Test(lang, cpp_hello_and_memory_limit)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	require_runtime("/usr/bin/g++");
	run_lang(&r, "cpp", "hello.cpp",
		 "#include <iostream>\nint main(int c, char **v){ std::cout << \"hi \" << c << std::endl; }\n",
		 NO_EXTRA);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "hi 1\n");
	sbx_result_free(&r);
	/* the RLIMIT_DATA backstop: the 2 GiB allocation fails, the uncaught bad_alloc aborts */
	run_lang(&r, "cpp", "hog.cpp",
		 "#include <vector>\nint main(){ std::vector<char> v(1UL << 31, 1); return v[5]; }\n",
		 SBX_ARGV("--memory", "256M"));
	cr_assert_neq(r.exit_status, 0);
	cr_assert_str_eq(rec_str(&r, "stage"), "run");
	sbx_result_free(&r);
}

/* ---- sbx langs and user presets ----------------------------------------------- */

Test(langs, json_lists_every_builtin_with_its_version)
{
	struct sbx_result r;
	static const char *const names[] = { "py", "node", "sh", "bash", "perl", "c", "cpp" };

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .no_record = true, .deadline_s = 60 },
		SBX_ARGV("langs", "--json"));
	cr_assert_eq(r.exit_status, 0, "stderr: %s", r.err);
	cJSON *list = cJSON_Parse(r.out);
	cr_assert(cJSON_IsArray(list), "stdout: %s", r.out);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cJSON *row = NULL, *it;
		cJSON_ArrayForEach(it, list)
			if (!strcmp(cJSON_GetObjectItem(it, "name")->valuestring, names[i]))
				row = it;
		cr_assert_not_null(row, "%s missing", names[i]);
		bool here = cJSON_IsTrue(cJSON_GetObjectItem(row, "available"));
		cJSON *v = cJSON_GetObjectItem(row, "version");
		cr_assert(here ? cJSON_IsString(v) : cJSON_IsNull(v), "%s version", names[i]);
		cr_assert_str_eq(cJSON_GetObjectItem(row, "origin")->valuestring, "builtin");
	}
	cJSON *py = NULL, *it;
	cJSON_ArrayForEach(it, list)
		if (!strcmp(cJSON_GetObjectItem(it, "name")->valuestring, "py"))
			py = it;
	if (access("/usr/bin/python3", X_OK) == 0)
		cr_assert(!strncmp(cJSON_GetObjectItem(py, "version")->valuestring, "Python 3", 8));
	cJSON_Delete(list);
	sbx_result_free(&r);
}

/* A NAME.policy in $XDG_CONFIG_HOME/sbx adds a preset; langs names its file. */
Test(langs, user_preset_is_listed_and_runs)
{
	struct sbx_result r;
	char *home = make_temp_dir(), *conf = xasprintf("%s/sbx", home);
	char *env0 = xasprintf("XDG_CONFIG_HOME=%s", home);
	const char *env[] = { env0, NULL };

	REQUIRE_USERNS();
	cr_assert_eq(mkdir(conf, 0755), 0);
	free(put_test_file(conf, "shout.policy",
		      "include: \"default\"\nname: \"shout\"\n"
		      "lang { extensions: [\".shout\"] run: [\"/bin/sh\", \"{file}\", \"{args}\"]"
		      " version: [\"/bin/echo\", \"shout 1.0\"] }\n"));
	free(put_test_file(conf, "ghost.policy",
		      "include: \"default\"\nname: \"ghost\"\n"
		      "lang { run: [\"/usr/bin/no-such-runtime\", \"{file}\"] }\n"));
	sbx_run(&r, &(struct sbx_opts){ .no_record = true, .env = env, .deadline_s = 60 },
		SBX_ARGV("langs"));
	cr_assert_eq(r.exit_status, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "shout 1.0") && strstr(r.out, "shout.policy"), "%s", r.out);
	cr_assert(strstr(r.out, "not installed"), "%s", r.out);
	sbx_result_free(&r);

	char *file = put_test_file(home, "x.shout", "echo shouted \"$1\"\n");
	sbx_run(&r, &(struct sbx_opts){ .env = env }, SBX_ARGV("run", "--lang", "shout", file, "A"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "shouted A\n");
	sbx_result_free(&r);

	/* a preset whose runtime is missing: a config error naming it */
	sbx_run(&r, &(struct sbx_opts){ .env = env }, SBX_ARGV("run", "--lang", "ghost", file));
	ASSERT_STATUS(&r, "config-error");
	cr_assert(strstr(rec_str(&r, "message"), "/usr/bin/no-such-runtime"), "%s",
		  rec_str(&r, "message"));
	sbx_result_free(&r);
	rm_tree(home);
	free(file);
	free(env0);
	free(conf);
	free(home);
}

/*
 * `--lang py -` reads the program from sbx's stdin, as `python3 -` does
 * (it was refused: /dev/stdin is a symbolic link).  The program is whole
 * or refused: one larger than the file-size limit is an error, never a
 * program cut short and run.
 */
Test(lang, py_program_from_stdin_runs_whole_or_not_at_all)
{
	struct sbx_result r;
	const char *prog = "import sys\nprint(__file__, repr(sys.stdin.read()), sys.argv[1:])\n";

	REQUIRE_USERNS();
	require_runtime("/usr/bin/python3");
	sbx_run(&r, &(struct sbx_opts){ .stdin_data = prog, .stdin_len = strlen(prog) },
		SBX_ARGV("run", "--lang", "py", "-", "a b"));
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.out, "/stdin.py '' ['a b']\n"), "out: %s err: %s", r.out, r.err);
	sbx_result_free(&r);

	/* 2 MiB of comment lines under a 1 MiB file-size limit, from a file
	 * (more than a pipe holds before sbx starts reading) */
	size_t big = 2u << 20;
	char *text = malloc(big), *dir = make_temp_dir(), *path;
	cr_assert_not_null(text);
	for (size_t i = 0; i < big; i++)
		text[i] = i % 64 == 63 ? '\n' : (i % 64 == 0 ? '#' : 'x');
	text[big - 1] = '\0';
	path = put_test_file(dir, "big.py", text);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd > 0);
	sbx_run(&r, &(struct sbx_opts){ .stdin_from_fd = fd },
		SBX_ARGV("run", "--fsize", "1M", "--lang", "py", "-"));
	cr_assert_eq(r.exit_status, 125, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "--lang py -: the program on stdin is larger than the "
			 "file-size limit (1 MiB)"), "stderr: %s", r.err);
	sbx_result_free(&r);
	close(fd);
	rm_tree(dir);
	free(path);
	free(dir);
	free(text);

	/* stdin cannot be both the program and its input, nor pick a preset */
	sbx_run(&r, &(struct sbx_opts){ .stdin_data = prog, .stdin_len = strlen(prog) },
		SBX_ARGV("run", "--stdin", "-", "--lang", "py", "-"));
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "--stdin - cannot be its input too"), "stderr: %s", r.err);
	sbx_result_free(&r);
	sbx_run(&r, &(struct sbx_opts){ .stdin_data = prog, .stdin_len = strlen(prog) },
		SBX_ARGV("run", "--lang", "auto", "-"));
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(r.err, "--lang auto cannot pick a preset for a program on stdin"),
		  "stderr: %s", r.err);
	sbx_result_free(&r);
}

/* A compiled preset takes its program from stdin too, by the extension. */
Test(lang, c_program_from_stdin_compiles_and_runs)
{
	struct sbx_result r;
	const char *prog = "#include <stdio.h>\nint main(void) { puts(\"c from stdin\"); }\n";

	REQUIRE_USERNS();
	require_runtime("/usr/bin/gcc");
	sbx_run(&r, &(struct sbx_opts){ .stdin_data = prog, .stdin_len = strlen(prog),
					.deadline_s = 90 },
		SBX_ARGV("run", "--lang", "c", "-"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "c from stdin\n", "stderr: %s", r.err);
	sbx_result_free(&r);
}
