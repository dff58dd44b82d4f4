/*
 * test_examples.c - the examples in examples/ really run: a
 * hello program per language preset, the Makefile recipe and the CI
 * wrapper.  A preset whose runtime this host lacks is skipped with the
 * reason, never passed.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void hello(const char *file, const char *runtime)
{
	struct sbx_result r;
	char *path = xasprintf("%s/examples/%s", src_dir(), file);

	REQUIRE_USERNS();
	if (access(runtime, X_OK) != 0)
		cr_skip_test("SKIP: %s is not installed on this host", runtime);
	sbx_run(&r, NULL, SBX_ARGV("run", "--lang", "auto", path));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "hello from sbx\n");
	sbx_result_free(&r);
	free(path);
}

Test(examples, hello_py) { hello("hello.py", "/usr/bin/python3"); }
Test(examples, hello_js) { hello("hello.js", "/usr/bin/node"); }
Test(examples, hello_sh) { hello("hello.sh", "/bin/sh"); }
Test(examples, hello_bash) { hello("hello.bash", "/bin/bash"); }
Test(examples, hello_pl) { hello("hello.pl", "/usr/bin/perl"); }
Test(examples, hello_c) { hello("hello.c", "/usr/bin/gcc"); }
Test(examples, hello_cpp) { hello("hello.cpp", "/usr/bin/g++"); }

/* The Makefile recipe: a generator under sbx, its output copied out with -o. */
Test(examples, makefile_recipe_builds_its_file_under_sbx)
{
	char *dir = make_temp_dir(), *out = NULL;

	REQUIRE_USERNS();
	char *cmd = xasprintf("cp '%s/examples/Makefile' '%s/examples/gen_table.py' '%s/' && "
			      "make -s -C '%s' SBX='%s' 2>&1 && cat '%s/out/squares.csv'",
			      src_dir(), src_dir(), dir, dir, sbx_path(), dir);
	cr_assert_eq(host_sh(cmd, &out), 0, "%s", out);
	cr_assert(strstr(out, "n,square\n1,1\n") && strstr(out, "10,100\n"), "%s", out);
	free(out);
	free(cmd);
	rm_tree(dir);
	free(dir);
}

/* The CI wrapper passes an ok step and fails the job on anything else. */
Test(examples, ci_wrapper_fails_the_job_on_anything_but_ok)
{
	char *dir = make_temp_dir(), *out = NULL;

	REQUIRE_USERNS();
	if (system("command -v jq >/dev/null 2>&1") != 0)
		cr_skip_test("SKIP: jq is not installed (make deps installs it)");
	chmod(dir, 0777);
	char *ok = xasprintf("cd '%s' && SBX='%s' '%s/examples/ci-wrapper.sh' sh -c 'touch made' 2>&1",
			     dir, sbx_path(), src_dir());
	cr_assert_eq(host_sh(ok, &out), 0, "%s", out);
	cr_assert(strstr(out, "\"status\":\"ok\""), "%s", out);
	free(out);
	char *made = xasprintf("%s/made", dir);
	cr_assert_eq(access(made, F_OK), 0, "the step could not write the current directory");

	char *bad = xasprintf("cd '%s' && SBX='%s' SBX_TIME=1s '%s/examples/ci-wrapper.sh' sleep 5 2>&1",
			      dir, sbx_path(), src_dir());
	cr_assert_eq(host_sh(bad, &out), 124, "%s", out);
	cr_assert(strstr(out, "status 'timeout'"), "%s", out);
	free(out);
	free(ok);
	free(bad);
	free(made);
	rm_tree(dir);
	free(dir);
}
