/*
 * test_probes_seccomp_args.c - the filter's argument rules, through the
 * real sbx: each probe attempts a call that the syscall allowlist lets
 * through and only an argument check stops.  The errno asserted is the
 * filter's own (tests/probes/README.md, "Syscall arguments the filter
 * checks", says why each rule exists and which were audited and left).
 */
#include "test_probes_common.h"

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

TestSuite(probes_seccomp_args, .init = probes_require_jail);

/* Attack: socketpair(AF_VSOCK|AF_PACKET|AF_TIPC|AF_INET, ...) runs the
 * family's create code and module autoload; only socket() checked it. */
Test(probes_seccomp_args, socketpair_of_any_family_but_unix_is_refused)
{
	expect_denied("priv_socketpair_family", "EAFNOSUPPORT", NULL);
}

/* Attack: socket(AF_INET, SOCK_PACKET) becomes an AF_PACKET socket after
 * seccomp checked the family AF_INET. */
Test(probes_seccomp_args, inet_sock_packet_never_reaches_af_packet)
{
	expect_denied("net_sock_packet", "ESOCKTNOSUPPORT", NULL);
}

/* Attack: socket(AF_INET, *, IPPROTO_SCTP/DCCP/L2TP) autoloads the
 * protocol's module on the host; UDP-Lite and MPTCP are built-in extras. */
Test(probes_seccomp_args, inet_protocols_beyond_tcp_udp_and_ping_are_refused)
{
	expect_denied("net_socket_protocol", "EPROTONOSUPPORT", NULL);
}

/* Attack: NETLINK_NETFILTER/SOCK_DIAG/GENERIC load nf_tables, *_diag and
 * genetlink modules unprivileged; AUDIT and KOBJECT_UEVENT are host
 * daemons' interfaces. */
Test(probes_seccomp_args, netlink_protocols_but_route_are_refused)
{
	expect_denied("net_netlink_protocol", "EPROTONOSUPPORT", NULL);
}

/* Attack: switching a tty to n_gsm/n_hdlc (past root exploits; ldisc
 * module autoload). */
Test(probes_seccomp_args, tiocsetd_is_filtered)
{
	expect_denied("priv_tiocsetd", "EPERM", NULL);
}

/*
 * Attack: the jail's uid is the caller's (65534 for root) on the host, and
 * -w is a host directory: `chmod 6755` there planted a setuid-as-the-caller
 * program for anyone who can reach it.  The probe's verdict, and the file
 * it left on the host, which it cannot fake.
 */
Test(probes_seccomp_args, setuid_bit_cannot_be_planted_in_a_host_workspace)
{
	char *dir = make_temp_dir();
	char *file = xasprintf("%s/sbx-setuid-plant", dir);
	const char *opts[] = { "-w", dir, NULL };
	struct sbx_result r;
	struct stat st;

	if (geteuid() == 0)
		cr_assert_eq(chown(dir, 65534, 65534), 0);
	run_probe(&r, NULL, opts, "fs_setuid_plant", NULL);
	int found = stat(file, &st);
	/* remove the (maybe setuid) file before any assertion can end the test */
	rm_tree(dir);
	free(file);
	free(dir);
	expect_blocked(&r);
	expect_errno(&r, "EPERM", NULL);
	cr_assert_eq(found, 0, "the probe left no file: " PROBE_REPORT(&r));
	cr_assert_eq(st.st_mode & (S_ISUID | S_ISGID), 0, "host file has mode %o",
		     (unsigned)st.st_mode & 07777);
	sbx_result_free(&r);
}

/*
 * What a creating call left in DIR on the host: "" when no entry has a
 * set-id bit or is a device, else the first offender.
 */
static char *host_setid_or_device(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *bad = NULL;

	cr_assert_not_null(d, "opendir %s", dir);
	while (!bad && (e = readdir(d))) {
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;

		if (lstat(path, &st) == 0 &&
		    ((st.st_mode & (S_ISUID | S_ISGID)) || S_ISCHR(st.st_mode) ||
		     S_ISBLK(st.st_mode)))
			bad = xasprintf("%s mode %o uid %u", e->d_name, (unsigned)st.st_mode,
					(unsigned)st.st_uid);
		free(path);
	}
	closedir(d);
	return bad ? bad : xasprintf("%s", "");
}

/*
 * Attack: creating a file with mode 06755 (open, openat, creat, O_TMPFILE
 * + linkat, mknod) in a host directory, or a device node / whiteout there.
 * Run by root, the file is root's on the host through the idmapped bind;
 * root's later `cp /usr/bin/id DIR/tool` keeps the bits (CAP_FSETID), and
 * any user running DIR/tool is euid 0.  DIR is tried as a -B bind (the CI
 * set-up, a root-owned checkout for a root caller) and as -w.
 */
static void setid_create_in(bool workspace)
{
	char *dir = make_temp_dir();
	const char *bind_opts[] = { "-B", dir, "-C", dir, NULL };
	const char *ws_opts[] = { "-w", dir, NULL };
	struct sbx_result r;

	run_probe(&r, NULL, workspace ? ws_opts : bind_opts, "fs_setid_create", NULL);
	char *bad = host_setid_or_device(dir);
	char *plain = xasprintf("%s/sbx-setid-plain", dir);
	int plain_made = access(plain, F_OK);
	/* nothing set-id may outlive the test, whatever it asserts */
	rm_tree(dir);
	cr_assert(bad[0] == '\0', "left on the host: %s", bad);
	expect_blocked(&r);
	cr_assert_eq(plain_made, 0, "an ordinary file was not created: " PROBE_REPORT(&r));
	free(plain);
	free(bad);
	free(dir);
	sbx_result_free(&r);
}

Test(probes_seccomp_args, no_setid_file_or_device_can_be_created_in_a_host_bind)
{
	setid_create_in(false);
}

Test(probes_seccomp_args, no_setid_file_or_device_can_be_created_in_a_host_workspace)
{
	setid_create_in(true);
}

/* Attack: an inotify watch on the /usr/bin every jail shares with the
 * host shows each time the host runs sudo or ssh, and passes events
 * between concurrent jails.  No built-in policy allows a watch. */
Test(probes_seccomp_args, no_watch_on_the_hosts_files)
{
	expect_denied("fs_inotify_host", "ENOSYS", NULL);
}

/* Attack: a watch-queue pipe, then IOC_WATCH_QUEUE_SET_FILTER: the
 * out-of-bounds write of CVE-2022-0995 (public root exploit). */
Test(probes_seccomp_args, notification_pipes_are_filtered)
{
	expect_denied("priv_watch_queue", "EPERM", NULL);
}

/* Attack: prlimit on pid 1 (same uid, so the kernel allows it): a lowered
 * hard RLIMIT_CPU and orphans for it to reap got the init SIGKILLed mid-run,
 * and sbx reported setup-error, exit 125 ("nothing ran"). */
Test(probes_seccomp_args, the_inits_limits_are_out_of_reach)
{
	expect_denied("priv_prlimit_init", "EPERM", NULL);
}

/*
 * Attack on a port: aarch64 has no mkdir system call (its libc's mkdir()
 * is mkdirat), and libseccomp takes a rule for a call the architecture
 * lacks without an error, so a policy's "deny: mkdir" guarded nothing
 * there.  The refusal of the effect must hold on every architecture.
 */
Test(probes_seccomp_args, a_denied_mkdir_makes_no_directory_on_any_architecture)
{
	const char *const opts[] = { "--seccomp-deny", "mkdir", NULL };
	struct sbx_result r;
	const cJSON *list, *e;
	bool named = false;

	sbx_run_sh(&r, NULL, opts,
		   "mkdir /tmp/sbx-mkdir-trap; echo rc=$?; test -d /tmp/sbx-mkdir-trap && echo MADE; "
		   "exit 0");
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(strstr(r.out, "MADE") == NULL, "a denied mkdir made a directory: " PROBE_REPORT(&r));
	cr_assert(strstr(r.out, "rc=1"), "mkdir did not fail: " PROBE_REPORT(&r));
	/* mkdir on x86_64, mkdirat where libc makes it with that */
	list = r.record ? cJSON_GetObjectItemCaseSensitive(r.record, "denied_syscalls") : NULL;
	cJSON_ArrayForEach(e, list) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");

		named |= cJSON_IsString(name) && strncmp(name->valuestring, "mkdir", 5) == 0;
	}
	cr_assert(named, "denied_syscalls does not name the refused call: " PROBE_REPORT(&r));
	sbx_result_free(&r);
}
