/*
 * test_jail.c - exact facts from inside the default jail: the
 * identity, the capability and signal state, the descriptors, the
 * environment and the view of the filesystem.  The hostile variants live
 * in the probe suite (test_probes_*.c).
 */
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run a shell snippet in the default jail; returns sbx's stdout. */
static void jail_sh(struct sbx_result *r, const char *script)
{
	sbx_run(r, NULL, SBX_ARGV("run", "--", "/bin/sh", "-c", script));
}

Test(jail, runs_as_policy_uid_with_no_groups)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "id -u; id -g; id -G; id -un");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "65534\n65534\n65534\nnobody\n");
	sbx_result_free(&r);
}

/* Exact values: a failing mount alone proves no capability is gone. */
Test(jail, capabilities_are_all_zero_and_no_new_privs)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "grep -E '^(Cap|NoNewPrivs|Seccomp:|SigIgn|SigBlk)' /proc/self/status");
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "CapInh:\t0000000000000000");
	assert_has_line(r.out, "CapPrm:\t0000000000000000");
	assert_has_line(r.out, "CapEff:\t0000000000000000");
	assert_has_line(r.out, "CapBnd:\t0000000000000000");
	assert_has_line(r.out, "CapAmb:\t0000000000000000");
	assert_has_line(r.out, "NoNewPrivs:\t1");
	assert_has_line(r.out, "Seccomp:\t2");
	assert_has_line(r.out, "SigIgn:\t0000000000000000");
	assert_has_line(r.out, "SigBlk:\t0000000000000000");
	sbx_result_free(&r);
}

/* Run CMD with /bin/sh (to set up what sbx inherits); its stdout into BUF. */
static int sh_capture(const char *cmd, char *buf, size_t size)
{
	int p[2], status;
	ssize_t n, got = 0;

	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
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

/* An inherited `trap '' INT QUIT XCPU` does not reach the target. */
Test(jail, inherited_ignored_signals_are_reset)
{
	char buf[8192];

	REQUIRE_USERNS();
	char *cmd = xasprintf("trap '' INT QUIT XCPU PIPE; exec %s run -q -- "
			      "/bin/grep -E '^Sig(Ign|Blk)' /proc/self/status", sbx_path());
	cr_assert_eq(sh_capture(cmd, buf, sizeof(buf)), 0);
	assert_has_line(buf, "SigIgn:\t0000000000000000");
	assert_has_line(buf, "SigBlk:\t0000000000000000");
	free(cmd);
}

/* Only 0, 1, 2 (+ ls's own) even when sbx inherits fds 3 and 9. */
Test(jail, inherited_fds_do_not_reach_the_target)
{
	char buf[4096];

	REQUIRE_USERNS();
	char *cmd = xasprintf("exec 3</etc/hostname 9</etc/passwd; exec %s run -q -- "
			      "/bin/sh -c 'ls /proc/self/fd; cat 2>/dev/null <&3 && echo LEAK'",
			      sbx_path());
	sh_capture(cmd, buf, sizeof(buf));
	/* ls lists 0 1 2 and the fd of its own /proc/self/fd directory */
	cr_assert(strncmp(buf, "0\n1\n2\n3\n", 8) == 0 && strstr(buf, "9\n") == NULL,
		  "fds: %s", buf);
	cr_assert(strstr(buf, "LEAK") == NULL, "fd 3 readable: %s", buf);
	free(cmd);
}

/* Only the policy's environment, whatever the caller exports. */
Test(jail, environment_is_exactly_the_policy)
{
	struct sbx_result r;
	const char *const env[] = { "SECRET_TOKEN=leak", "SSH_AUTH_SOCK=/tmp/leak",
				    "LD_PRELOAD=/nonexistent.so", "SBX_CANARY=1", NULL };

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .env = env }, SBX_ARGV("run", "--", "/usr/bin/env"));
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.out, "leak") == NULL && strstr(r.out, "CANARY") == NULL &&
		  strstr(r.out, "LD_PRELOAD") == NULL, "env: %s", r.out);
	assert_has_line(r.out, "PATH=/usr/local/bin:/usr/bin:/bin");
	sbx_result_free(&r);

	sbx_run(&r, &(struct sbx_opts){ .env = env },
		SBX_ARGV("run", "--env-keep", "SBX_CANARY", "-e", "X=1", "--", "/usr/bin/env"));
	assert_has_line(r.out, "SBX_CANARY=1");
	assert_has_line(r.out, "X=1");
	sbx_result_free(&r);
}

/* stdin is at EOF, never closed (the program's next open() would get fd 0). */
Test(jail, stdin_is_empty_but_open)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .stdin_data = "secret\n", .stdin_len = 7 },
		SBX_ARGV("run", "--", "/bin/sh", "-c", "cat; test -e /proc/self/fd/0 && echo OPEN"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "OPEN\n");
	sbx_result_free(&r);
}

Test(jail, stdin_dash_relays_bytes_exactly)
{
	struct sbx_result r;
	static const char data[] = { 0, 1, 2, (char)0xff, (char)0xfe, '\n', '\r', 0, 'A', 'B' };

	REQUIRE_USERNS();
	sbx_run(&r, &(struct sbx_opts){ .stdin_data = data, .stdin_len = sizeof(data) },
		SBX_ARGV("run", "--stdin", "-", "--", "/bin/cat"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(r.out_len, sizeof(data));
	cr_assert_eq(memcmp(r.out, data, sizeof(data)), 0);
	sbx_result_free(&r);
}

Test(jail, proc_shows_only_jail_processes)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "ls /proc | grep -c '^[0-9]'");
	ASSERT_STATUS(&r, "ok");
	/* init, sh, ls and grep at most */
	cr_assert(atoi(r.out) >= 2 && atoi(r.out) <= 4, "pids: %s", r.out);
	sbx_result_free(&r);
}

Test(jail, dev_has_exactly_the_policy_nodes)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "ls /dev | tr '\\n' ' '");
	ASSERT_STATUS(&r, "ok");
	for (const char *const *n = (const char *const[]){ "null", "zero", "full", "random",
							   "urandom", NULL };
	     *n; n++) {
		char *w = xasprintf("%s ", *n);
		cr_assert(strstr(r.out, w) != NULL, "/dev: %s", r.out);
		free(w);
	}
	cr_assert(strstr(r.out, "sda") == NULL && strstr(r.out, "tty ") == NULL &&
		  strstr(r.out, "kmsg") == NULL && strstr(r.out, "mem ") == NULL,
		  "/dev: %s", r.out);
	sbx_result_free(&r);
}

Test(jail, usr_is_read_only_and_tmp_is_bounded)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "touch /usr/x 2>&1 | grep -q 'Read-only' && echo EROFS; "
		    "head -c 21M /dev/zero > /tmp/fill 2>/dev/null || echo ENOSPC; "
		    "echo hi > /mnt/data/f && cat /mnt/data/f; pwd");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "EROFS\nENOSPC\nhi\n/mnt/data\n");
	sbx_result_free(&r);
}

Test(jail, unmounted_host_paths_are_absent)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "for p in /home /root /etc/shadow /run /var /sys/firmware /work; do "
		    "test -e $p && echo PRESENT $p; done; echo done");
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "done\n");
	sbx_result_free(&r);
}

Test(jail, hostname_comes_from_the_policy)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "cat /proc/sys/kernel/hostname");
	cr_assert_str_eq(r.out, "sbx\n");
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "--set", "hostname=box1", "--", "/bin/cat",
				   "/proc/sys/kernel/hostname"));
	cr_assert_str_eq(r.out, "box1\n");
	sbx_result_free(&r);
}

Test(jail, network_none_has_lo_down_and_loopback_has_it_up)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	jail_sh(&r, "cat /sys/class/net/lo/operstate 2>/dev/null; "
		    "grep -c : /proc/net/dev; "
		    "/usr/bin/python3 -c \"import socket; s=socket.socket(); "
		    "s.bind(('127.0.0.1',0)); s.listen(); "
		    "c=socket.create_connection(s.getsockname(), 1); print('LO-UP')\" 2>/dev/null "
		    "|| echo LO-DOWN");
	ASSERT_STATUS(&r, "ok");
	cr_assert(strstr(r.out, "1\nLO-DOWN\n") != NULL, "out: %s", r.out);
	sbx_result_free(&r);

	sbx_run(&r, NULL, SBX_ARGV("run", "--net", "loopback", "--", "/usr/bin/python3", "-c",
				   "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); "
				   "s.listen(); c=socket.create_connection(s.getsockname(), 1); "
				   "print('LO-UP')"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "LO-UP\n");
	sbx_result_free(&r);
}

/* Each default deny group answers EPERM, the unknown rest ENOSYS. */
Test(jail, seccomp_denials_return_their_errno)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/usr/bin/python3", "-c",
		"import ctypes, os\n"
		"libc = ctypes.CDLL(None, use_errno=True)\n"
		"def e(nr, *a):\n"
		"    r = libc.syscall(nr, *a)\n"
		"    return 0 if r >= 0 else ctypes.get_errno()\n"
		"print('unshare', e(272, 0x10000000))\n"  /* CLONE_NEWUSER */
		"print('mount', e(165, 0, 0, 0, 0, 0))\n"
		"print('ptrace', e(101, 16, 1, 0, 0))\n"   /* PTRACE_ATTACH pid 1 */
		"print('bpf', e(321, 0, 0, 0))\n"
		"print('keyctl', e(250, 0, 0, 0))\n"
		"print('perf', e(298, 0, 0, 0, 0, 0))\n"
		"print('userfaultfd', e(323, 0))\n"
		"print('io_uring', e(425, 1, 0))\n"
		"print('clone3', e(435, 0, 0))\n"
		"print('clone_newns', e(56, 0x00020000 | 17, 0, 0, 0, 0))\n"
		"print('tiocsti', e(16, 0, 0x5412, 0))\n"
		"print('shmget', e(29, 0, 1 << 28, 0o1600))\n"
		"print('memfd', e(319, b'x', 0))\n"
		"print('vsock', e(41, 40, 1, 0))\n"
		));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "unshare 1");
	assert_has_line(r.out, "mount 1");
	assert_has_line(r.out, "ptrace 1");
	assert_has_line(r.out, "bpf 1");
	assert_has_line(r.out, "keyctl 1");
	assert_has_line(r.out, "perf 1");
	assert_has_line(r.out, "userfaultfd 1");
	assert_has_line(r.out, "io_uring 1");
	assert_has_line(r.out, "clone3 38");
	assert_has_line(r.out, "clone_newns 1");
	assert_has_line(r.out, "tiocsti 1");
	/* shm and memfd memory escapes RLIMIT_AS: left out of the allowlist */
	assert_has_line(r.out, "shmget 38");
	assert_has_line(r.out, "memfd 38");
	/* AF_VSOCK is not namespaced: it reached the VM's host with --net none */
	assert_has_line(r.out, "vsock 97");
	sbx_result_free(&r);
}

/* As root, the jailed program is a host uid of sbx's range, never host
 * root and never 65534 (shared with the host's nobody daemons). */
Test(jail, root_caller_runs_target_as_unprivileged_host_uid)
{
	struct sbx_result r;
	unsigned long in = 0, out = 0, n = 0;

	REQUIRE_USERNS();
	if (geteuid() != 0)
		cr_skip_test("SKIP: only meaningful when the caller is root");
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/sh", "-c",
				   "read a b c < /proc/self/uid_map; echo $a $b $c"));
	ASSERT_STATUS(&r, "ok");
	/* inside 65534 -> one host id of the range, exactly one id */
	cr_assert_eq(sscanf(r.out, "%lu %lu %lu", &in, &out, &n), 3, "%s", r.out);
	cr_assert(in == 65534 && n == 1 && out >= 2000000000ul && out < 2000065536ul,
		  "uid_map %s", r.out);
	sbx_result_free(&r);
}

/* Run by a user, the init maps itself (spawn.c's self_maps): one line to
 * the caller's own ids, and setgroups denied before gid_map was written
 * (CVE-2014-8989: dropping groups could bypass negative ACLs). */
Test(jail, unprivileged_maps_are_the_callers_ids_with_setgroups_denied)
{
	struct sbx_result r;
	unsigned long u[3] = { 0 }, g[3] = { 0 };
	char sg[16] = "";

	REQUIRE_USERNS();
	if (geteuid() == 0)
		cr_skip_test("SKIP: run by root the supervisor maps a uid of sbx's range "
			     "(root_caller_runs_target_as_unprivileged_host_uid)");
	sbx_run(&r, NULL, SBX_ARGV("run", "--", "/bin/sh", "-c",
				   "cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_eq(sscanf(r.out, "%lu %lu %lu %lu %lu %lu %15s", &u[0], &u[1], &u[2],
			    &g[0], &g[1], &g[2], sg), 7, "%s", r.out);
	cr_assert(u[0] == 65534 && u[1] == geteuid() && u[2] == 1, "uid_map: %s", r.out);
	cr_assert(g[0] == 65534 && g[1] == getegid() && g[2] == 1, "gid_map: %s", r.out);
	cr_assert_str_eq(sg, "deny", "setgroups: %s", r.out);
	sbx_result_free(&r);
}

/* Empty files cost no tmpfs blocks but pin kernel memory: /tmp must run
 * out of inodes long before the host does (nr_inodes). */
Test(jail, tmp_inode_flood_hits_enospc)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--time", "60s", "--", "/usr/bin/python3", "-c",
		"import errno\n"
		"n = 0\n"
		"try:\n"
		"    while n < 10**7:\n"
		"        open('/tmp/f%d' % n, 'w').close(); n += 1\n"
		"except OSError as e:\n"
		"    print('ENOSPC' if e.errno == errno.ENOSPC else e, n)\n"));
	ASSERT_STATUS(&r, "ok");
	int n = -1;
	cr_assert_eq(sscanf(r.out, "ENOSPC %d", &n), 1, "out: %s", r.out);
	cr_assert(n > 1000 && n <= 20 * 1024, "%d files fit in a 20 MiB /tmp", n);
	sbx_result_free(&r);
}

/* The synthesized /etc names 65534 "nobody"/"nogroup" whatever the policy's
 * uid, so a program that looks the id up (ls -l of a root caller's files)
 * reads the host's name; the jail's own id comes first and only once. */
Test(jail, etc_names_65534_nobody_for_any_policy_uid)
{
	struct sbx_result r;

	REQUIRE_USERNS();
	sbx_run(&r, NULL, SBX_ARGV("run", "--set", "uid=1000", "--set", "gid=1000", "--",
				   "/bin/cat", "/etc/passwd", "/etc/group"));
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "sandbox:x:1000:1000:sandbox:/mnt/data:/bin/sh\n"
				"root:x:0:0:root:/root:/bin/sh\n"
				"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
				"sandbox:x:1000:\n"
				"root:x:0:\n"
				"nogroup:x:65534:\n");
	sbx_result_free(&r);
}

/* DIR/locked/sub, both 0700: the caller's LOCKED and SRC (malloc'd). */
static void make_locked_source(const char *dir, char **locked, char **src)
{
	*locked = xasprintf("%s/locked", dir);
	*src = xasprintf("%s/sub", *locked);
	cr_assert_eq(mkdir(*locked, 0700), 0);
	cr_assert_eq(mkdir(*src, 0700), 0);
}

/* A policy-file bind the jail cannot reach: the message says which host uid
 * the jail has and how to fix it.  Root only: an unprivileged caller's jail
 * maps the caller, so its own files stay reachable (the init's
 * capabilities cover the uids its namespace maps). */
Test(jail, unreachable_bind_source_names_the_jail_host_uid)
{
	struct sbx_result r;
	char *dir, *locked, *src, *pol, *text;
	FILE *f;

	REQUIRE_USERNS();
	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (the jail's host uid is then not the "
			     "files' owner)");
	dir = make_temp_dir();
	make_locked_source(dir, &locked, &src);
	pol = xasprintf("%s/p.policy", dir);
	text = xasprintf("include: \"default\"\nmount { dst: \"/mnt/sub\" type: BIND src: \"%s\" }\n",
			 src);
	f = fopen(pol, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(locked, 0), 0);
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", pol, "--", "/bin/true"));
	chmod(locked, 0700);
	ASSERT_STATUS(&r, "setup-error");
	cr_assert_eq(r.exit_status, 125);
	cr_assert(strstr(rec_str(&r, "message"), "Permission denied (the jail reaches it as "
			 "its own host uid, one of sbx's uid range when sbx runs as root: "
			 "make it readable by others, bind it with --bind, or run sbx as "
			 "the files' owner)"), "%s", rec_str(&r, "message"));
	sbx_result_free(&r);
	rm_tree(dir);
	free(text);
	free(pol);
	free(src);
	free(locked);
	free(dir);
}

/* Run by root, a --bind source behind a directory only root can enter is
 * opened by sbx itself: the jail reads it, as the caller could. */
Test(jail, root_bind_behind_a_root_only_directory_is_reachable)
{
	struct sbx_result r;
	char *dir, *locked, *src, *bind;

	REQUIRE_USERNS();
	if (geteuid() != 0)
		cr_skip_test("SKIP: needs root (sbx opens the bind source as root)");
	dir = make_temp_dir();
	make_locked_source(dir, &locked, &src);
	bind = xasprintf("%s:/mnt/sub", src);
	cr_assert_eq(chmod(locked, 0), 0);
	sbx_run(&r, NULL, SBX_ARGV("run", "--bind", bind, "--", "/bin/ls", "-d", "/mnt/sub"));
	chmod(locked, 0700);
	ASSERT_STATUS(&r, "ok");
	cr_assert_str_eq(r.out, "/mnt/sub\n");
	sbx_result_free(&r);
	rm_tree(dir);
	free(bind);
	free(src);
	free(locked);
	free(dir);
}
