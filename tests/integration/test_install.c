/*
 * test_install.c - `make install` into a temporary DESTDIR gives a working
 * sbx with its man pages, completion, policies and schema, and `make
 * uninstall` removes every file it put there.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int run_sh(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;

	cr_assert_not_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

Test(install, make_install_then_uninstall_leaves_nothing)
{
	const char *src = getenv("SBX_SRC");
	char *dest = make_temp_dir(), out[8192];

	REQUIRE_USERNS();
	cr_assert_not_null(src, "SBX_SRC is not set");
	/* MAKEFLAGS off: under `make -j2 check` the inherited jobserver fds are
	 * closed, and the nested make's warning would read as leftover output */
	char *install = xasprintf("MAKEFLAGS= MFLAGS= make -s -C '%s' install DESTDIR='%s' PREFIX=/usr SBX_BIN='%s' 2>&1",
				  src, dest, sbx_path());
	cr_assert_eq(run_sh(install, out, sizeof(out)), 0, "%s", out);

	const char *const files[] = { "usr/bin/sbx", "usr/share/man/man1/sbx.1",
				      "usr/share/man/man5/sbx.policy.5",
				      "usr/share/man/man5/sbx-result.5",
				      "usr/share/man/man7/sbx-nsjail.7",
				      "usr/share/bash-completion/completions/sbx",
				      "usr/share/sbx/policy/default.policy",
				      "usr/share/sbx/result.schema.json", NULL };
	for (const char *const *f = files; *f; f++) {
		char *path = xasprintf("%s/%s", dest, *f);
		cr_expect_eq(access(path, R_OK), 0, "%s was not installed", *f);
		free(path);
	}
	/* the installed binary works from anywhere, with no source tree */
	char *run = xasprintf("cd / && '%s/usr/bin/sbx' run -q -- /bin/echo installed 2>&1", dest);
	cr_assert_eq(run_sh(run, out, sizeof(out)), 0, "%s", out);
	cr_assert_str_eq(out, "installed\n");

	char *uninstall = xasprintf("MAKEFLAGS= MFLAGS= make -s -C '%s' uninstall DESTDIR='%s' PREFIX=/usr 2>&1 && "
				    "find '%s' -type f", src, dest, dest);
	cr_assert_eq(run_sh(uninstall, out, sizeof(out)), 0, "%s", out);
	cr_assert_str_eq(out, "", "left after uninstall:\n%s", out);
	rm_tree(dest);
	free(dest);
	free(install);
	free(run);
	free(uninstall);
}
