/*
 * test_attack_inside.c - attacks on the jail's init, its mounts and its
 * meter from inside the jail, and from a caller's hostile options
 * (against the fd-based mounts, the init's privilege drop and the
 * meter's fds).  Each test names the attack it stops.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The run was refused before the program ran: 125, a setup or config
 * error that names the procfs, nothing printed by the program. */
static void expect_proc_refused(struct sbx_result *r, const char *what)
{
	const char *st, *msg;

	cr_assert_eq(r->exit_status, 125, "%s: exit %d; out: %.300s; stderr: %.500s",
		     what, r->exit_status, r->out, r->err);
	cr_assert_not_null(r->record, "%s: no record; stderr: %s", what, r->err);
	st = rec_str(r, "status");
	msg = rec_str(r, "message");
	cr_assert(st && (!strcmp(st, "setup-error") || !strcmp(st, "config-error")),
		  "%s: status %s", what, st ? st : "(none)");
	cr_assert(msg && strstr(msg, "proc"), "%s: message %s", what, msg ? msg : "(none)");
	cr_assert(!strstr(r->out, "ran"), "%s: the program ran: %s", what, r->out);
}

/*
 * -b /proc:/x put the host's procfs in the jail: every host process's
 * command line and status, though the program must never see host
 * processes.  sbx mounts the jail's own /proc; a host procfs is refused.
 */
Test(attack_inside, a_host_procfs_bound_elsewhere_is_refused)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run_sh(&r, NULL, SBX_ARGV("-b", "/proc:/hostproc"), "echo ran; ls /hostproc | wc -l");
	expect_proc_refused(&r, "-b /proc:/hostproc");
	sbx_result_free(&r);
}

/* The same procfs reached as a submount of a recursive bind: -b /:/host
 * carries the host's /proc along at /host/proc. */
Test(attack_inside, a_bind_that_carries_a_host_procfs_submount_is_refused)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	if (access("/proc/self/stat", R_OK) != 0)
		cr_skip_test("SKIP: no /proc on this host");
	sbx_run_sh(&r, NULL, SBX_ARGV("-b", "/:/host"), "echo ran; ls /host/proc | wc -l");
	expect_proc_refused(&r, "-b /:/host");
	sbx_result_free(&r);
}

/*
 * The meter's tmpfs fds were opened by path after the root was built: a
 * later mount over a tmpfs's destination (or a host writer renaming a
 * component of a read-write bind in between) made it charge a tmpfs the
 * program never wrote (here the host's /dev/shm, where anyone can put
 * 48 MiB) and a `sleep` came back memory-limit.  The fds come from the
 * mounts sbx made.
 */
Test(attack_inside, the_meter_charges_the_jails_tmpfs_not_one_mounted_over_it)
{
	char dir[] = "/dev/shm/sbx-attack.XXXXXX", *big, *bind;
	struct sbx_result r;
	FILE *f;

	REQUIRE_USERNS();
	if (!mkdtemp(dir))
		cr_skip_test("SKIP: no writable /dev/shm");
	chmod(dir, 0755);
	big = xasprintf("%s/big", dir);
	f = fopen(big, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 48 * 1024; i++)
		fwrite((char[1024]){ 0 }, 1, 1024, f);
	fclose(f);
	bind = xasprintf("%s:/t", dir);
	sbx_run(&r, NULL, SBX_ARGV("run", "-m", "32M", "--tmpfs", "/t:1M", "-b", bind,
				   "--", "/bin/sleep", "0.3"));
	unlink(big);
	rmdir(dir);
	free(big);
	free(bind);
	ASSERT_STATUS(&r, "ok");
	sbx_result_free(&r);
}

/*
 * The meter gets the jail's tmpfs mounts in one CTL_READY message of at
 * most CTL_MAX_FDS fds: the 15th --tmpfs and later were never charged, so
 * 20 of them held 150 MiB under -m 64M and the run was "ok".  Either the
 * policy is refused or the memory is charged; never silently free.
 */
Test(attack_inside, more_tmpfs_mounts_than_the_meter_holds_are_not_free_memory)
{
	const char *argv[64];
	char *dsts[20];
	struct sbx_result r;
	size_t n = 0;

	REQUIRE_USERNS();
	argv[n++] = "run";
	argv[n++] = "-m";
	argv[n++] = "64M";
	for (int i = 0; i < 20; i++) {
		dsts[i] = xasprintf("/t%d:200M", i);
		argv[n++] = "--tmpfs";
		argv[n++] = dsts[i];
	}
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = "head -c 150M /dev/zero > /t19/x && sleep 1.5 && echo held";
	argv[n] = NULL;
	sbx_run(&r, NULL, argv);
	for (int i = 0; i < 20; i++)
		free(dsts[i]);
	cr_assert_not_null(r.record, "no record; stderr: %s", r.err);
	cr_assert(!strcmp(rec_str(&r, "status"), "memory-limit") ||
		  !strcmp(rec_str(&r, "status"), "config-error"),
		  "status %s, out %s", rec_str(&r, "status"), r.out);
	cr_assert(!strstr(r.out, "held"), "150 MiB held under -m 64M: %s", r.out);
	sbx_result_free(&r);
}
