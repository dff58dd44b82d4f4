/*
 * test_import_nsjail.c - `sbx import nsjail`, field by field: each nsjail
 * field sbx can express arrives in the loaded policy with nsjail's units
 * and defaults; each one it cannot is a note; input nsjail itself would
 * refuse is a FILE:LINE:COL error.  Every translation is loaded with the
 * real policy loader (the importer does, and so does translate() here).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/internal.h"

/* Whether TEXT names line N of t.cfg: "t.cfg:N:" (a note, a line with a
 * comment) or "t.cfg:N\n" (a line). */
static bool names_line(const char *text, int n)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "t.cfg:%d:", n);
	snprintf(b, sizeof(b), "t.cfg:%d\n", n);
	return strstr(text, a) || strstr(text, b);
}

/* Translate TEXT and load the result: the test fails unless both work. */
static void translate(const char *text, struct policy *p, struct import_result *r)
{
	struct sbx_err err = { 0 };
	int rc = import_nsjail_text("t.cfg", text, strlen(text), r, &err);

	cr_assert_eq(rc, 0, "translation failed: %s", err.msg);
	rc = policy_load_text("t.policy", r->text, r->len, p, &err);
	cr_assert_eq(rc, 0, "translated text does not load: %s\n%s", err.msg, r->text);
}

/* TEXT is refused with a message starting with PREFIX. */
static void refused(const char *text, size_t len, const char *prefix)
{
	struct sbx_err err = { 0 };
	struct import_result r;
	int rc = import_nsjail_text("t.cfg", text, len, &r, &err);

	if (rc == 0)
		import_result_free(&r);
	cr_assert_eq(rc, -1, "expected an error %s", prefix);
	cr_assert_eq(err.kind, ERR_CONFIG, "kind %d: %s", err.kind, err.msg);
	cr_assert(strncmp(err.msg, prefix, strlen(prefix)) == 0, "expected '%s', got '%s'",
		  prefix, err.msg);
}

static bool has_note(const struct import_result *r, const char *where, const char *fragment)
{
	for (size_t i = 0; i < r->nnotes; i++)
		if ((!where || !strcmp(r->notes[i].where, where)) &&
		    strstr(r->notes[i].text, fragment))
			return true;
	return false;
}

static const struct mount_entry *mount_at(const struct policy *p, const char *dst)
{
	for (size_t i = 0; i < p->nmounts; i++)
		if (!strcmp(p->mounts[i].dst, dst))
			return &p->mounts[i];
	return NULL;
}

static bool has_str(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static void done(struct policy *p, struct import_result *r)
{
	policy_free(p);
	import_result_free(r);
}

/* An empty config is nsjail's defaults: each must arrive, in sbx's units. */
Test(import_nsjail, empty_config_takes_nsjails_defaults)
{
	struct policy p;
	struct import_result r;

	translate("", &p, &r);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], 600000, "time_limit 600 s");
	cr_expect_eq(p.limits.v[LIM_CPU_TIME_MS], 600000, "rlimit_cpu 600 s");
	cr_expect_eq(p.limits.v[LIM_MEMORY_MB], 4096, "rlimit_as 4096 MiB");
	cr_expect_eq(p.limits.v[LIM_FILE_SIZE_MB], 1, "rlimit_fsize 1 MiB");
	cr_expect_eq(p.limits.v[LIM_OPEN_FILES], 32, "rlimit_nofile 32");
	cr_expect_eq(p.limits.v[LIM_PROCESSES], 0, "rlimit_nproc SOFT: sbx's default");
	cr_expect_str_eq(p.hostname, "NSJAIL");
	cr_expect_str_eq(p.cwd, "/");
	cr_expect_eq(p.network, NET_LOOPBACK, "clone_newnet with lo up");
	cr_expect_eq(p.nmounts, 0, "no mount, not even /proc (mount_proc false)");
	cr_expect_str_eq(p.name, "t.cfg");
	/* no seccomp_string: sbx's default filter, and a note that says so */
	cr_expect(has_str(&p.seccomp.allow, "@default"));
	cr_expect(has_note(&r, "t.cfg", "no seccomp_string"));
	cr_expect(has_note(&r, "t.cfg", "uid"));
	cr_expect_null(r.argv);
	done(&p, &r);
}

Test(import_nsjail, names_hostname_cwd_and_description)
{
	struct policy p;
	struct import_result r;

	translate("name: \"svc\"\ndescription: \"a \"\ndescription: \"b\"\n"
		  "hostname: \"box-1\"\ncwd: \"/mnt/data\"\n", &p, &r);
	cr_expect_str_eq(p.name, "svc");
	cr_expect_str_eq(p.description, "a b");
	cr_expect_str_eq(p.hostname, "box-1");
	cr_expect_str_eq(p.cwd, "/mnt/data");
	done(&p, &r);
}

Test(import_nsjail, a_hostname_sbx_refuses_is_a_note)
{
	struct policy p;
	struct import_result r;

	translate("hostname: \"has space\"", &p, &r);
	cr_expect_str_eq(p.hostname, "sbx");
	cr_expect(has_note(&r, "t.cfg:1:1", "hostname"));
	done(&p, &r);
}

Test(import_nsjail, limits_convert_units)
{
	struct policy p;
	struct import_result r;

	translate("time_limit: 7 rlimit_cpu: 3 rlimit_as: 300 rlimit_fsize: 16\n"
		  "rlimit_nofile: 100 rlimit_nproc: 20 rlimit_nproc_type: VALUE\n"
		  "rlimit_stack: 4 rlimit_stack_type: VALUE\n", &p, &r);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], 7000);
	cr_expect_eq(p.limits.v[LIM_CPU_TIME_MS], 3000);
	cr_expect_eq(p.limits.v[LIM_MEMORY_MB], 300);
	cr_expect_eq(p.limits.v[LIM_FILE_SIZE_MB], 16);
	cr_expect_eq(p.limits.v[LIM_OPEN_FILES], 100);
	cr_expect_eq(p.limits.v[LIM_PROCESSES], 20);
	cr_expect_eq(p.limits.v[LIM_STACK_MB], 4);
	cr_expect(strstr(r.text, "memory_mb: 300  # t.cfg:1: rlimit_as 300 MiB"), "%s", r.text);
	done(&p, &r);
}

Test(import_nsjail, time_limit_zero_and_inf_rlimits_are_unlimited)
{
	struct policy p;
	struct import_result r;

	translate("time_limit: 0 rlimit_as_type: INF rlimit_cpu_type: INF", &p, &r);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], LIMIT_UNLIMITED);
	cr_expect_eq(p.limits.v[LIM_MEMORY_MB], LIMIT_UNLIMITED);
	cr_expect_eq(p.limits.v[LIM_CPU_TIME_MS], LIMIT_UNLIMITED);
	done(&p, &r);
}

/* sbx refuses a zero limit; nsjail's rlimit_fsize 0 becomes 1 MiB, said plainly. */
Test(import_nsjail, zero_rlimit_becomes_the_smallest_with_a_note)
{
	struct policy p;
	struct import_result r;

	translate("rlimit_fsize: 0", &p, &r);
	cr_expect_eq(p.limits.v[LIM_FILE_SIZE_MB], 1);
	cr_expect(has_note(&r, "t.cfg:1:1", "zero limit"));
	done(&p, &r);
}

/* One memory limit in sbx: the smaller of rlimit_as and cgroup_mem_max. */
Test(import_nsjail, cgroup_limits_and_the_smaller_one_wins)
{
	struct policy p;
	struct import_result r;

	translate("rlimit_as: 1024\ncgroup_mem_max: 104857601\ncgroup_pids_max: 10\n"
		  "cgroup_cpu_ms_per_sec: 100\n", &p, &r);
	cr_expect_eq(p.limits.v[LIM_MEMORY_MB], 101, "bytes round up to MiB");
	cr_expect_eq(p.limits.v[LIM_PROCESSES], 10);
	cr_expect(has_note(&r, "t.cfg:1:1", "smaller one"));
	cr_expect(has_note(&r, "t.cfg:4:1", "CPU bandwidth"));
	done(&p, &r);
}

Test(import_nsjail, disable_rl_keeps_only_time_and_cgroup_limits)
{
	struct policy p;
	struct import_result r;

	translate("disable_rl: true rlimit_as: 10 cgroup_pids_max: 5", &p, &r);
	cr_expect_eq(p.limits.v[LIM_MEMORY_MB], 0);
	cr_expect_eq(p.limits.v[LIM_PROCESSES], 5);
	cr_expect_eq(p.limits.v[LIM_WALL_TIME_MS], 600000);
	done(&p, &r);
}

Test(import_nsjail, network_modes)
{
	struct policy p;
	struct import_result r;

	translate("clone_newnet: false", &p, &r);
	cr_expect_eq(p.network, NET_HOST);
	done(&p, &r);
	translate("iface_no_lo: true", &p, &r);
	cr_expect_eq(p.network, NET_NONE);
	done(&p, &r);
	/* fail closed: an interface sbx cannot give stays out, loudly */
	translate("macvlan_iface: \"eth0\" user_net { }", &p, &r);
	cr_expect_eq(p.network, NET_LOOPBACK);
	cr_expect(has_note(&r, "t.cfg:1:1", "MACVLAN"));
	cr_expect(has_note(&r, "t.cfg:1:23", "user-mode"));
	done(&p, &r);
}

Test(import_nsjail, uid_and_gid_from_the_first_map)
{
	struct policy p;
	struct import_result r;

	translate("uidmap { inside_id: \"1000\" outside_id: \"5000\" count: 2 }\n"
		  "uidmap { inside_id: \"7\" }\ngidmap { inside_id: \"100\" }\n", &p, &r);
	cr_expect_eq(p.uid, 1000);
	cr_expect_eq(p.gid, 100);
	cr_expect(has_note(&r, "t.cfg:1:8", "outside_id"));
	cr_expect(has_note(&r, "t.cfg:1:8", "count 2"));
	cr_expect(has_note(&r, "t.cfg:2:8", "only the first"));
	done(&p, &r);
}

/* Names are looked up in this host's /etc/passwd and /etc/group. */
Test(import_nsjail, inside_ids_by_name_are_the_hosts)
{
	struct policy p;
	struct import_result r;

	translate("uidmap { inside_id: \"root\" }\ngidmap { inside_id: \"root\" }\n", &p, &r);
	cr_expect_eq(p.uid, 0);
	cr_expect_eq(p.gid, 0);
	done(&p, &r);
	translate("uidmap { inside_id: \"sbx-no-such-user\" }", &p, &r);
	cr_expect_eq(p.uid, 65534);
	cr_expect(has_note(&r, "t.cfg:1:8", "sbx-no-such-user"));
	done(&p, &r);
}

Test(import_nsjail, an_inside_id_sbx_cannot_hold_is_a_note)
{
	struct policy p;
	struct import_result r;

	translate("uidmap { inside_id: \"70000\" }", &p, &r);
	cr_expect_eq(p.uid, 65534);
	cr_expect(has_note(&r, "t.cfg:1:8", "70000"));
	done(&p, &r);
}

Test(import_nsjail, envar_sets_or_keeps)
{
	struct policy p;
	struct import_result r;

	translate("envar: \"A=1\" envar: [\"B=x=y\", \"TERM\"] envar: \"bad-name=1\"", &p, &r);
	cr_expect(has_str(&p.env, "A=1"));
	cr_expect(has_str(&p.env, "B=x=y"));
	cr_expect(has_str(&p.env_keep, "TERM"));
	cr_expect_eq(p.env.n, 2);
	cr_expect(has_note(&r, NULL, "bad-name"));
	done(&p, &r);
}

Test(import_nsjail, exec_bin_is_the_default_command)
{
	struct policy p;
	struct import_result r;

	translate("exec_bin { path: \"/bin/sh\" arg: \"-c\" arg: \"echo hi\" arg0: \"sh\" }",
		  &p, &r);
	cr_assert_not_null(r.argv);
	cr_expect_str_eq(r.argv[0], "/bin/sh");
	cr_expect_str_eq(r.argv[1], "-c");
	cr_expect_str_eq(r.argv[2], "echo hi");
	cr_expect_null(r.argv[3]);
	cr_expect(has_note(&r, NULL, "arg0"));
	done(&p, &r);
}

/* The mount table of a code-interpreter service's nsjail config. */
Test(import_nsjail, interpreter_service_mount_table)
{
	struct policy p;
	struct import_result r;
	const struct mount_entry *m;

	translate("mount { src: \"/srv/sub\" dst: \"/mnt/data\" is_bind: true rw: true }\n"
		  "mount { dst: \"/tmp\" fstype: \"tmpfs\" options: \"size=20971520\" rw: true }\n"
		  "mount { src: \"/usr\" dst: \"/usr\" is_bind: true }\n"
		  "mount { src: \"/lib64\" dst: \"/lib64\" is_bind: true mandatory: false }\n"
		  "mount { dst: \"/proc\" fstype: \"proc\" }\n"
		  "mount { src: \"/dev/null\" dst: \"/dev/null\" is_bind: true rw: true }\n"
		  "mount { src: \"/dev/zero\" dst: \"/dev/zero\" is_bind: true }\n"
		  "mount { src: \"/dev/urandom\" dst: \"/dev/urandom\" is_bind: true }\n"
		  "mount { src: \"/proc/self/fd\" dst: \"/dev/fd\" is_symlink: true }\n"
		  "mount { src: \"x\" dst: \"/lnk\" is_symlink: true }\n", &p, &r);
	cr_expect_str_eq(p.workspace, "/mnt/data");
	cr_expect(has_note(&r, "t.cfg:1:7", "--workdir /srv/sub"));
	cr_expect_null(mount_at(&p, "/mnt/data"), "the workspace is sbx's own mount");
	cr_assert_not_null(m = mount_at(&p, "/tmp"));
	cr_expect(m->type == MNT_TMPFS && m->rw && m->size_mb == 20);
	cr_assert_not_null(m = mount_at(&p, "/usr"));
	cr_expect(m->type == MNT_BIND && !m->rw && !m->optional && !strcmp(m->src, "/usr"));
	cr_assert_not_null(m = mount_at(&p, "/lib64"));
	cr_expect(m->optional, "mandatory: false is optional");
	cr_assert_not_null(m = mount_at(&p, "/proc"));
	cr_expect_eq(m->type, MNT_PROC);
	cr_assert_not_null(m = mount_at(&p, "/dev"), "three device binds: one DEV mount");
	cr_expect_eq(m->type, MNT_DEV);
	cr_expect_null(mount_at(&p, "/dev/null"));
	cr_expect_null(mount_at(&p, "/dev/fd"), "sbx's /dev makes /dev/fd itself");
	cr_assert_not_null(m = mount_at(&p, "/lnk"));
	cr_expect(m->type == MNT_SYMLINK && !strcmp(m->src, "x"));
	cr_expect_eq(p.nmounts, 6);
	done(&p, &r);
}

Test(import_nsjail, mounts_sbx_cannot_make_are_notes)
{
	struct policy p;
	struct import_result r;

	translate("mount { dst: \"/etc/x\" src_content: \"hi\" }\n"
		  "mount { dst: \"/sys\" fstype: \"sysfs\" }\n"
		  "mount { src: \"/\" dst: \"/\" is_bind: true }\n"
		  "mount { src: \"/a\" dst: \"/a\" is_bind: true prefix_src_env: \"HOME\" }\n"
		  "mount { src: \"/dev/tty\" dst: \"/dev/tty\" is_bind: true }\n"
		  "mount_proc: true\n", &p, &r);
	cr_expect(has_note(&r, "t.cfg:1:7", "src_content"));
	cr_expect(has_note(&r, "t.cfg:2:7", "sysfs"));
	cr_expect(has_note(&r, "t.cfg:3:7", "fresh tmpfs"));
	cr_expect(has_note(&r, "t.cfg:4:7", "environment"));
	cr_expect(has_note(&r, "t.cfg:5:7", "/dev/tty"));
	cr_expect_not_null(mount_at(&p, "/proc"), "mount_proc: true");
	cr_expect_not_null(mount_at(&p, "/dev"));
	cr_expect_eq(p.nmounts, 2);
	done(&p, &r);
}

/* sbx's loader refuses a mount below /proc: the line becomes a note with
 * the loader's reason, and the rest still loads. */
Test(import_nsjail, an_entry_the_loader_refuses_becomes_a_note)
{
	struct policy p;
	struct import_result r;

	translate("mount { dst: \"/proc\" fstype: \"proc\" }\n"
		  "mount { src: \"/x\" dst: \"/proc/x\" is_symlink: true }\n"
		  "mount { src: \"/usr\" dst: \"/usr\" is_bind: true }\n", &p, &r);
	cr_expect(has_note(&r, "t.cfg:2:7", "nothing may be mounted below /proc"));
	cr_expect_not_null(mount_at(&p, "/usr"));
	cr_expect_null(mount_at(&p, "/proc/x"));
	done(&p, &r);
}

/* The loader's reason quotes a line of the translated text; the note
 * names the nsjail file's instead. */
Test(import_nsjail, a_refusal_names_positions_in_the_nsjail_file)
{
	struct policy p;
	struct import_result r;

	translate("mount { src: \"/usr\" dst: \"/x\" is_bind: true }\n"
		  "mount { src: \"/usr\" dst: \"/x\" is_bind: true }\n", &p, &r);
	cr_expect(has_note(&r, "t.cfg:2:7", "(first set at t.cfg:1:7)"), "%s", r.text);
	cr_expect(!strstr(r.text, "nsjail:t.cfg"), "%s", r.text);
	done(&p, &r);
}

/* -p nsjail:FILE: the loaded policy's origins are lines of FILE. */
Test(import_nsjail, origins_of_the_loaded_policy_are_lines_of_the_config)
{
	const char *cfg = "tests/nsjail/interpreter-service.cfg";
	struct sbx_err err = { 0 };
	struct import_result r;
	struct policy p;
	const struct mount_entry *m;

	cr_assert_eq(access(cfg, R_OK), 0, "run from the source tree");
	cr_assert_eq(import_nsjail_policy(cfg, &p, &r, &err), 0, "%s", err.msg);
	cr_expect_str_eq(p.at[F_HOSTNAME].file, cfg);
	cr_expect_eq(p.at[F_HOSTNAME].line, 5);
	cr_expect_eq(p.limits.at[LIM_WALL_TIME_MS].line, 7);
	cr_assert_not_null(m = mount_at(&p, "/usr"));
	cr_expect_str_eq(m->at.file, cfg);
	cr_expect_eq(m->at.line, 24);
	cr_expect_eq(m->at.col, 7);
	cr_expect_eq(p.seccomp.at_deny_action.line, 32);
	done(&p, &r);
}

Test(import_nsjail, workspace_moves_when_a_mount_covers_mnt)
{
	struct policy p;
	struct import_result r;

	translate("mount { src: \"/mnt\" dst: \"/mnt\" is_bind: true }", &p, &r);
	cr_expect_str_eq(p.workspace, "/workspace");
	cr_expect_not_null(mount_at(&p, "/mnt"));
	done(&p, &r);
}

Test(import_nsjail, kafel_default_kill_with_an_allow_list)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"ALLOW { read, write, newfstat, exit_group } \"\n"
		  "seccomp_string: \"DEFAULT KILL\"\n", &p, &r);
	cr_expect_eq(p.seccomp.default_action, SC_KILL);
	cr_expect_eq(p.seccomp.allow.n, 4);
	cr_expect(has_str(&p.seccomp.allow, "fstat"), "Kafel's newfstat is fstat");
	cr_expect_eq(p.seccomp.deny.n, 0);
	done(&p, &r);
}

Test(import_nsjail, kafel_policies_errno_default_and_kill_list)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"POLICY a { KILL { ptrace } } POLICY b { USE a, "
		  "ALLOW { read } } USE b DEFAULT ERRNO(38)\"", &p, &r);
	cr_expect_eq(p.seccomp.default_action, SC_ERRNO);
	cr_expect_eq(p.seccomp.errno_value, 38);
	cr_expect(has_str(&p.seccomp.allow, "read"));
	cr_expect(has_str(&p.seccomp.deny, "ptrace"));
	cr_expect_eq(p.seccomp.deny_action, SC_KILL);
	done(&p, &r);
}

/* Argument filters cannot be held: an allowed call is left out, a denied
 * one is denied whatever its arguments (both fail closed). */
Test(import_nsjail, kafel_argument_filters_fail_closed)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"ALLOW { read, write(fd, buf, n) { fd == 1 } } "
		  "ERRNO(1) { kill(pid, sig) { sig == 9 } } DEFAULT KILL\"", &p, &r);
	cr_expect(has_str(&p.seccomp.allow, "read"));
	cr_expect(!has_str(&p.seccomp.allow, "write"));
	cr_expect(has_str(&p.seccomp.deny, "kill"));
	cr_expect(has_note(&r, NULL, "argument filter"));
	done(&p, &r);
}

/* sbx's own filter allows ~300 calls: never a stand-in for one it cannot read. */
Test(import_nsjail, kafel_outside_the_subset_is_refused)
{
	const char *inc = "seccomp_string: \"#include \\\"x\\\"\\nALLOW { read } DEFAULT KILL\"";
	const char *expr = "seccomp_string: \"#define X 1 + 1\\nALLOW { read } DEFAULT KILL\"";
	const char *call = "seccomp_string: \"#define X 1\\nALLOW { X } DEFAULT KILL\"";
	const char *action = "seccomp_string: \"ALLOW { read }\"\nseccomp_string: \"NOPE { write }\"";

	refused(inc, strlen(inc), "t.cfg:1:17: seccomp_string: #include");
	refused(expr, strlen(expr), "t.cfg:1:17: seccomp_string: a #define of something other");
	refused(call, strlen(call), "t.cfg:1:17: seccomp_string: a #define'd name where");
	refused(action, strlen(action), "t.cfg:2:17: seccomp_string: an unknown action at 'NOPE");
}

/* #define NAME VALUE is a constant; names may name other names. */
Test(import_nsjail, kafel_define_is_a_constant)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"#define A 13\\n#define B A\\n"
		  "ALLOW { read } DEFAULT ERRNO(B)\"", &p, &r);
	cr_expect(!has_str(&p.seccomp.allow, "@default"));
	cr_expect(has_str(&p.seccomp.allow, "read"));
	cr_expect_eq(p.seccomp.default_action, SC_ERRNO);
	cr_expect_eq(p.seccomp.errno_value, 13);
	done(&p, &r);
}

/* One deny action for all lists: a KILL list next to an ERRNO one keeps KILL. */
Test(import_nsjail, kafel_kill_and_errno_lists_all_kill)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"KILL { ptrace } ERRNO(1) { socket } DEFAULT ALLOW\"", &p, &r);
	cr_expect(has_str(&p.seccomp.deny, "ptrace"));
	cr_expect(has_str(&p.seccomp.deny, "socket"));
	cr_expect_eq(p.seccomp.deny_action, SC_KILL);
	cr_expect(has_note(&r, NULL, "the ERRNO ones too"));
	done(&p, &r);
}

/* TRAP's SIGSYS kills a program that does not catch it: imported as an
 * EPERM deny it would let the program go on past the call. */
Test(import_nsjail, kafel_trap_kills)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"TRAP { ptrace } DEFAULT ALLOW\"", &p, &r);
	cr_expect(has_str(&p.seccomp.deny, "ptrace"));
	cr_expect_eq(p.seccomp.deny_action, SC_KILL);
	done(&p, &r);
}

Test(import_nsjail, kafel_unknown_names_are_left_out)
{
	struct policy p;
	struct import_result r;

	translate("seccomp_string: \"ALLOW { read, no_such_call } DEFAULT ALLOW\"", &p, &r);
	cr_expect(!has_str(&p.seccomp.allow, "no_such_call"));
	cr_expect(has_note(&r, NULL, "no_such_call"));
	done(&p, &r);
}

Test(import_nsjail, untranslatable_fields_are_notes_and_harmless_values_are_not)
{
	struct policy p;
	struct import_result r;

	translate("mode: LISTEN\nkeep_caps: true\ndisable_no_new_privs: true\n"
		  "skip_setsid: true\npass_fd: 3\nclone_newpid: false\n"
		  "daemon: false\nclone_newuser: true\n", &p, &r);
	cr_expect(has_note(&r, "t.cfg:1:1", "listen"));
	cr_expect(has_note(&r, "t.cfg:2:1", "capabilit"));
	cr_expect(has_note(&r, "t.cfg:3:1", "no_new_privs"));
	cr_expect(has_note(&r, "t.cfg:4:1", "TIOCSTI"));
	cr_expect(has_note(&r, "t.cfg:5:1", "fds 0, 1 and 2"));
	cr_expect(has_note(&r, "t.cfg:6:1", "pid namespace"));
	cr_expect(!has_note(&r, "t.cfg:7:1", ""), "daemon: false is what sbx does");
	cr_expect(!has_note(&r, "t.cfg:8:1", ""));
	done(&p, &r);
}

/* The translation is itself a policy file with comments: a reader sees
 * the notes, and the writer's text loads again. */
Test(import_nsjail, text_names_origins_and_lists_notes)
{
	struct policy p;
	struct import_result r;

	translate("time_limit: 9\nkeep_caps: true\n", &p, &r);
	cr_expect(strstr(r.text, "wall_time_ms: 9000  # t.cfg:1"), "%s", r.text);
	cr_expect(strstr(r.text, "# t.cfg:2:1: keep_caps"), "%s", r.text);
	cr_expect(strstr(r.text, "memory_mb: 4096  # nsjail default"), "%s", r.text);
	done(&p, &r);
}

Test(import_nsjail, invalid_nsjail_text_is_a_positioned_error)
{
	refused("name: \"x\"\nnot_a_field: 1\n", 24, "t.cfg:2:1: unknown field 'not_a_field'");
	refused("mount { dts: \"/x\" }", 19, "t.cfg:1:9: unknown field 'dts' in nsjail's MountPt "
		"(did you mean 'dst'?)");
	refused("time_limit: \"5\"", 15, "t.cfg:1:13: 'time_limit' expects an integer");
	refused("time_limit: -5", 14, "t.cfg:1:13: 'time_limit' cannot be negative");
	refused("time_limit: 4294967296", 22, "t.cfg:1:13: 'time_limit' is out of range");
	refused("mode: SOMETIMES", 15, "t.cfg:1:7: 'mode': unknown value 'SOMETIMES'");
	refused("keep_env: yes", 13, "t.cfg:1:11: 'keep_env' expects true or false");
	refused("hostname: \"a\" hostname: \"b\"", 27, "t.cfg:1:15: 'hostname' is set twice");
	refused("hostname: [\"a\"]", 15, "t.cfg:1:11: 'hostname' is not a repeated field");
	refused("mount { src: \"/a\" }", 19, "t.cfg:1:7: MountPt needs 'dst'");
	refused("exec_bin { arg: \"x\" }", 21, "t.cfg:1:10: Exe needs 'path'");
	refused("mount { dst: \"/a\"", 17, "t.cfg:1:18: expected '}'");
	refused("name: \"x\0\"", 10, "t.cfg:1:9: NUL byte");
	refused("hostname: \"a\"\n\0", 15, "t.cfg:2:1: NUL byte in nsjail config");
	refused("\xff\xfe\x00garbage", 10, "t.cfg:1:");
}

Test(import_nsjail, deep_nesting_and_huge_files_are_refused)
{
	size_t n = 100, len = 0;
	char *deep = malloc(n * 12 + 1), *huge;

	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(deep + len, "user_net { ");
	refused(deep, len, "t.cfg:1:");
	free(deep);
	huge = malloc((2u << 20) + 1);
	memset(huge, ' ', 2u << 20);
	refused(huge, 2u << 20, "t.cfg: nsjail config larger than");
	free(huge);
}

/* tests/nsjail/all-fields.cfg sets every top-level field of NsJailConfig
 * (checked here against schema.c's table); the translation must say
 * something about each: a policy line or a note naming its line.  The
 * exceptions are set to what sbx does anyway. */
Test(import_nsjail, every_field_of_the_schema_is_translated_or_noted)
{
	static const char *const quiet[] = {
		"disable_rl", "iface_no_lo", "rlimit_as_type", "rlimit_cpu_type",
		"rlimit_fsize_type", "rlimit_nofile_type", "rlimit_nproc_type",
		"rlimit_stack_type", NULL,
	};
	FILE *f = fopen("tests/nsjail/all-fields.cfg", "r");
	char *text = NULL, line[512];
	size_t len = 0;
	struct policy p;
	struct import_result r;
	int lineno = 0;

	cr_assert_not_null(f, "run from the source tree");
	cr_assert_eq(getdelim(&text, &len, '\0', f) > 0, 1);
	translate(text, &p, &r);
	for (size_t i = 0; i < nj_config.n; i++) {
		const char *name = nj_config.fields[i].name;
		bool seen = false, said = false;

		rewind(f);
		lineno = 0;
		while (fgets(line, sizeof(line), f)) {
			size_t n = strlen(name);
			lineno++;
			if (strncmp(line, name, n) != 0 || (line[n] != ':' && line[n] != ' '))
				continue;
			seen = true;
			said = said || names_line(r.text, lineno);
		}
		cr_expect(seen, "all-fields.cfg does not set '%s'", name);
		for (size_t k = 0; quiet[k]; k++)
			said = said || !strcmp(quiet[k], name);
		cr_expect(said, "'%s' is neither translated nor noted:\n%s", name, r.text);
	}
	fclose(f);
	free(text);
	done(&p, &r);
}
