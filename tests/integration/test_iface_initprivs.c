/*
 * test_iface_initprivs.c - what the jail's init keeps and shows, and the
 * /proc sbx trusts to write the init's uid/gid maps.
 *
 * The init is pid 1 of the jail and the program can read /proc/1: it must
 * hold no capability, and show neither sbx's host command line nor its
 * environment.  And sbx run where /proc numbers another pid namespace's
 * processes must refuse, not write the maps of whatever /proc/<pid> is.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The program takes over pid 1's capabilities if it can reach the init
 * (a ptrace or /proc/1/fd bug): the init must have none left. */
Test(iface_initprivs, init_holds_no_capabilities_and_sets_no_new_privs)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/grep", "-E",
				   "^(Cap|NoNewPrivs)", "/proc/1/status"));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "CapInh:\t0000000000000000");
	assert_has_line(r.out, "CapPrm:\t0000000000000000");
	assert_has_line(r.out, "CapEff:\t0000000000000000");
	assert_has_line(r.out, "CapBnd:\t0000000000000000");
	assert_has_line(r.out, "CapAmb:\t0000000000000000");
	assert_has_line(r.out, "NoNewPrivs:\t1");
	sbx_result_free(&r);
}

/* Every jail process but the program itself: cmdline, environ, comm (NULs
 * made spaces, so that the test sees past the first argument). */
static const char dump_others[] =
	"for p in /proc/[0-9]*; do [ \"$p\" = /proc/$$ ] && continue; "
	"echo \"== $p\"; cat $p/cmdline $p/environ $p/comm 2>/dev/null | tr '\\0' ' '; "
	"echo; done";

/*
 * A service passes secrets on sbx's command line (-e TOKEN=..., bind
 * sources that name a user's directory) and in its environment; the init
 * is a copy of sbx's memory, so /proc/1/cmdline showed them to the program.
 */
Test(iface_initprivs, no_other_jail_process_shows_the_host_command_line)
{
	const char *const env[] = { "SBX_HOST_SECRET=hostenv-7f3a9c", NULL };
	struct sbx_result r;
	char *dir, *bind;

	REQUIRE_USERNS();
	dir = make_temp_dir();
	char *src = xasprintf("%s/bindsrc-51d2e8", dir);
	cr_assert_eq(mkdir(src, 0755), 0);
	chmod(dir, 0755);
	bind = xasprintf("%s:/mnt/in", src);
	sbx_run(&r, &(struct sbx_opts){ .env = env },
		SBX_ARGV("run", "-e", "SECRET=envval-9b41c0", "-b", bind, "--",
			 "/bin/sh", "-c", dump_others));
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.out, "envval-9b41c0") == NULL, "-e value shown: %s", r.out);
	cr_assert(strstr(r.out, "bindsrc-51d2e8") == NULL, "bind source shown: %s", r.out);
	cr_assert(strstr(r.out, "hostenv-7f3a9c") == NULL, "host env shown: %s", r.out);
	cr_assert(strstr(r.out, sbx_path()) == NULL, "sbx's path shown: %s", r.out);
	/* pid 1 was read (else the test proves nothing), under a neutral name */
	cr_assert(strstr(r.out, "== /proc/1\nsbx-init ") != NULL, "pid 1: %s", r.out);
	sbx_result_free(&r);
	free(bind);
	free(src);
	rm_tree(dir);
	free(dir);
}

/* The program's own environment is the policy's and -e's, never sbx's
 * (a regression guard next to the init's wipe: its copy is separate). */
Test(iface_initprivs, program_environ_is_only_the_policy_env)
{
	const char *const env[] = { "SBX_HOST_SECRET=hostenv-7f3a9c", NULL };
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .env = env },
		SBX_ARGV("run", "-e", "SECRET=envval-9b41c0", "--", "/bin/sh", "-c",
			 "tr '\\0' '\\n' </proc/self/environ"));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "SECRET=envval-9b41c0");
	cr_assert(strstr(r.out, "hostenv-7f3a9c") == NULL, "host env: %s", r.out);
	sbx_result_free(&r);
}

/* `sh -c CMD` with stdout+stderr into BUF; sh's exit status. */
static int sh_output(const char *cmd, char *buf, size_t size)
{
	int p[2], status;
	ssize_t n, got = 0;

	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A new pid namespace that keeps the caller's /proc: root needs no user
 * namespace for it; anyone else maps only itself. */
static const char *new_pidns_prefix(void)
{
	return geteuid() == 0 ? "unshare --pid --fork"
			      : "unshare --user --map-current-user --pid --fork";
}

static void require_unshare(const char *prefix)
{
	char buf[512];
	char *cmd = xasprintf("%s --mount-proc /bin/true", prefix);

	REQUIRE_USERNS();
	if (sh_output(cmd, buf, sizeof(buf)) != 0)
		cr_skip_test("SKIP: '%s' does not work here: %s", cmd, buf);
	free(cmd);
}

/*
 * Inside `unshare -p -f` without --mount-proc, /proc is the outer
 * namespace's: /proc/<pid> of the init (pid 2 inside) was host pid 2, and
 * sbx wrote "deny" and a uid map there.  It must refuse, saying why, and
 * promptly (timeout 30: a hang fails the test).
 */
Test(iface_initprivs, refuses_a_proc_of_another_pid_namespace)
{
	const char *prefix = new_pidns_prefix();
	char buf[16384];

	require_unshare(prefix);
	/* prints 42ran: the record's "command" holds the script, not that */
	char *cmd = xasprintf("cd /tmp && exec timeout 30 %s %s run -- /bin/sh -c "
			      "'echo $((6*7))ran'", prefix, sbx_path());
	int rc = sh_output(cmd, buf, sizeof(buf));

	cr_assert_eq(rc, 125, "exit %d: %s", rc, buf);
	cr_assert(strstr(buf, "\"status\":\"setup-error\"") != NULL, "%s", buf);
	cr_assert(strstr(buf, "/proc belongs to another pid namespace") != NULL,
		  "message does not say why: %s", buf);
	cr_assert(strstr(buf, "--mount-proc") != NULL, "no fix given: %s", buf);
	cr_assert(strstr(buf, "42ran") == NULL, "the program ran: %s", buf);
	free(cmd);
}

/* The control: the same nesting with a /proc of its own runs normally. */
Test(iface_initprivs, runs_in_a_pid_namespace_with_its_own_proc)
{
	const char *prefix = new_pidns_prefix();
	char buf[16384];

	require_unshare(prefix);
	char *cmd = xasprintf("cd /tmp && exec timeout 30 %s --mount-proc %s run -q -- "
			      "/bin/echo RAN", prefix, sbx_path());
	int rc = sh_output(cmd, buf, sizeof(buf));

	cr_assert_eq(rc, 0, "exit %d: %s", rc, buf);
	cr_assert_str_eq(buf, "RAN\n");
	free(cmd);
}

/* doctor must not say "sbx run can work here" where run refuses (it
 * reported every check ok under a foreign /proc). */
Test(iface_initprivs, doctor_reports_a_proc_of_another_pid_namespace)
{
	const char *prefix = new_pidns_prefix();
	char buf[16384];

	require_unshare(prefix);
	char *cmd = xasprintf("cd /tmp && exec timeout 60 %s %s doctor", prefix, sbx_path());
	int rc = sh_output(cmd, buf, sizeof(buf));

	cr_assert_eq(rc, 1, "exit %d: %s", rc, buf);
	cr_assert(strstr(buf, "\nown /proc            missing (/proc belongs to another "
			      "pid namespace") != NULL, "%s", buf);
	cr_assert(strstr(buf, "--mount-proc") != NULL, "no fix given: %s", buf);
	free(cmd);
}

/*
 * The damage itself, as root: in a pid namespace B with its own /proc, a
 * victim with a fresh user namespace is pid 2; sbx runs one pid namespace
 * deeper without a /proc, so its init is pid 2 there too, and the old sbx
 * wrote "65534 65534 1" into the victim's uid_map.  It must stay empty.
 */
Test(iface_initprivs, never_writes_the_uid_map_of_another_process)
{
	char buf[16384];

	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (only a parent namespace's root may "
			     "write a map into another process's user namespace)");
	require_unshare("unshare --pid --fork");
	char *cmd = xasprintf(
		"cd /tmp && exec timeout 30 unshare --pid --fork --mount-proc sh -c '"
		"unshare --user sleep 30 & v=$!; sleep 0.3; "
		"[ $v = 2 ] || echo \"victim is pid $v, not 2\"; "
		"unshare --pid --fork %s run -q -- /bin/true; "
		"echo \"map:[$(cat /proc/$v/uid_map)]$(kill -0 $v && echo alive)\"; "
		"kill $v'", sbx_path());

	sh_output(cmd, buf, sizeof(buf));
	if (strstr(buf, "victim is pid"))
		cr_skip_test("SKIP: the test's victim did not get pid 2: %s", buf);
	/* alive: else an empty read would prove nothing */
	cr_assert(strstr(buf, "map:[]alive") != NULL, "the victim's uid_map was written: %s",
		  buf);
	free(cmd);
}
