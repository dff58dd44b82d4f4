/*
 * test_hosts.c - sbx where jail runners break, and doctor saying the same.
 *
 * Each test puts sbx in one simulated environment with the launcher
 * tests/sim/sbx-sim.c (Docker's seccomp profile, a filter on unshare only
 * or on namespace clone only, a user namespace mapping one uid, each
 * max_*_namespaces at 0 in a user namespace of our own, no /proc, a full
 * or read-only TMPDIR, stdio closed, SIGCHLD ignored, low ulimit -n / -u),
 * runs `sbx run -r FILE -- /bin/true` and `sbx doctor --json` there, and
 * checks: the exit status and the record's status; that the message names
 * the feature that refused and a fix that works there; and that doctor's
 * verdict is run's (its "sbx run" check carries run's message).  Runs as
 * root and as an ordinary user (make check in the staged copy).
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness.h"

#define SIM_SKIP 99

struct verdict {
	int run_exit;
	char *run_err;     /* what sbx run printed on stderr */
	char *status;      /* the record's status, NULL when none */
	char *message;     /* the record's message */
	int doctor_exit;
	bool doctor_ok;
	char *doctor_fix;  /* the "sbx run" check's fix (run's message), or "" */
	char *doctor_json; /* doctor --json's output */
};

static const char *sim_path(void)
{
	const char *p = getenv("SBX_SIM");

	return p ? p : "build/tests/sbx-sim";
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 65536);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, 65535) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The record sbx wrote to PATH, also kept for the schema check. */
static void read_record(const char *path, struct verdict *v)
{
	char *text = slurp(path);
	cJSON *rec = text ? cJSON_Parse(text) : NULL;
	const char *log = getenv("SBX_RECORDS");

	v->status = rec ? strdup(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "status"))) : NULL;
	v->message = rec ? strdup(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "message"))) : NULL;
	if (rec && log) {
		char *flat = cJSON_PrintUnformatted(rec);
		FILE *f = fopen(log, "ae");

		if (f && flat)
			fprintf(f, "%s\n", flat);
		if (f)
			fclose(f);
		free(flat);
	}
	cJSON_Delete(rec);
	free(text);
}

static void read_doctor(const char *json, struct verdict *v)
{
	cJSON *root = cJSON_Parse(json), *c;

	v->doctor_ok = cJSON_IsTrue(cJSON_GetObjectItem(root, "ok"));
	v->doctor_fix = strdup("");
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
		const char *fix = cJSON_GetStringValue(cJSON_GetObjectItem(c, "fix"));

		if (name && !strcmp(name, "sbx run") && fix) {
			free(v->doctor_fix);
			v->doctor_fix = strdup(fix);
		}
	}
	cJSON_Delete(root);
	v->doctor_json = strdup(json ? json : "");
}

/* doctor's line NAME as "STATE: DETAIL / FIX" (to free), or "(no line NAME)". */
static char *doctor_line(const struct verdict *v, const char *name)
{
	cJSON *root = cJSON_Parse(v->doctor_json), *c;
	char *line = NULL;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks")) {
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
		const char *fix = cJSON_GetStringValue(cJSON_GetObjectItem(c, "fix"));

		if (n && !strcmp(n, name) && !line)
			line = xasprintf("%s: %s / %s",
					 cJSON_GetStringValue(cJSON_GetObjectItem(c, "state")),
					 cJSON_GetStringValue(cJSON_GetObjectItem(c, "detail")),
					 fix ? fix : "(no fix)");
	}
	cJSON_Delete(root);
	return line ? line : xasprintf("(no line %s)", name);
}

/* doctor's line for the feature that failed gives run's cause and fix. */
static void expect_line_agrees(const struct verdict *v, const char *name, const char *what,
			       const char *fix)
{
	char *line = doctor_line(v, name);

	cr_assert(strstr(line, "missing: ") && strstr(line, what) && strstr(line, fix),
		  "doctor's '%s' line does not give run's cause '%s' and fix '%s': %s", name,
		  what, fix, line);
	free(line);
}

/* The record goes beside the binary under test: the sims hide TMPDIR. */
static char *record_dir(void)
{
	char *dir = xasprintf("%s", sbx_path()), *slash = strrchr(dir, '/');
	char *tmpl;

	if (slash)
		*slash = '\0';
	tmpl = xasprintf("%s/hosts.XXXXXX", slash ? dir : ".");
	free(dir);
	dir = tmpl;
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

/* sbx run and sbx doctor started by the command PRE (NULL-terminated);
 * SKIP when it cannot make its environment here. */
static void judge_under(const char *const *pre, struct verdict *v)
{
	char *dir = record_dir(), *rec = xasprintf("%s/record.json", dir);
	struct sbx_opts o = { .no_record = true, .prefix = pre, .cwd = "/", .deadline_s = 90 };
	struct sbx_result r;

	chmod(dir, 0777); /* the record is written by sbx, maybe as uid 0 of a userns */
	sbx_run(&r, &o, SBX_ARGV("run", "-r", rec, "--", "/bin/true"));
	if (r.exit_status == SIM_SKIP)
		cr_skip_test("SKIP: the simulation cannot be made here: %s", r.err);
	v->run_exit = r.exit_status;
	v->run_err = strdup(r.err ? r.err : "");
	/* SANITIZE=1: without /proc LeakSanitizer cannot run (nor read
	 * ASAN_OPTIONS, which it takes from /proc/self/environ) and turns
	 * sbx's exit into 1 after sbx wrote its record; judge the record */
	if (r.exit_status == 1 && strstr(r.err, "LeakSanitizer has encountered a fatal error"))
		v->run_exit = 125;
	read_record(rec, v);
	sbx_result_free(&r);
	sbx_run(&r, &o, SBX_ARGV("doctor", "--json"));
	v->doctor_exit = r.exit_status;
	read_doctor(r.out, v);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(rec);
}

/* sbx run and sbx doctor under sbx-sim SETTINGS. */
static void judge(const char *const *settings, struct verdict *v)
{
	const char *pre[16] = { sim_path() };
	size_t n = 1;

	while (*settings && n < 14)
		pre[n++] = *settings++;
	pre[n] = "--";
	judge_under(pre, v);
}

static void verdict_free(struct verdict *v)
{
	free(v->run_err);
	free(v->status);
	free(v->message);
	free(v->doctor_fix);
	free(v->doctor_json);
}

/* Run works there, and doctor says so. */
static void expect_ok(const char *const *settings)
{
	struct verdict v = { 0 };

	judge(settings, &v);
	cr_assert_eq(v.run_exit, 0, "run exit %d: %s", v.run_exit, v.message);
	cr_assert_str_eq(v.status ? v.status : "(none)", "ok");
	cr_assert(v.doctor_ok && v.doctor_exit == 0, "run works but doctor says no "
		  "(exit %d, fix: %s)", v.doctor_exit, v.doctor_fix);
	verdict_free(&v);
}

/* Run failed with a setup error naming WHAT and FIX, and doctor gives that:
 * in its trial line and, when LINE is not NULL, in the line of the feature
 * that failed. */
static void expect_verdict_refused(const struct verdict *v, const char *what, const char *fix,
				   const char *line)
{
	cr_assert_eq(v->run_exit, 125, "run exit %d: %s", v->run_exit, v->message);
	cr_assert_str_eq(v->status ? v->status : "(none)", "setup-error");
	cr_assert(strstr(v->message, what), "the message does not name '%s': %s", what,
		  v->message);
	cr_assert(strstr(v->message, fix), "the message does not give '%s': %s", fix, v->message);
	cr_assert(!v->doctor_ok && v->doctor_exit == 1, "run fails but doctor exit %d, ok %d",
		  v->doctor_exit, v->doctor_ok);
	cr_assert(strstr(v->doctor_fix, what) && strstr(v->doctor_fix, fix),
		  "doctor's fix is not run's: %s\nrun: %s", v->doctor_fix, v->message);
	if (line)
		expect_line_agrees(v, line, what, fix);
}

static void expect_refused_at(const char *const *settings, const char *what, const char *fix,
			      const char *line)
{
	struct verdict v = { 0 };

	judge(settings, &v);
	expect_verdict_refused(&v, what, fix, line);
	verdict_free(&v);
}

static void expect_refused(const char *const *settings, const char *what, const char *fix)
{
	expect_refused_at(settings, what, fix, NULL);
}

#define SIM(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NEED_USERNS() do { if (!have_userns()) \
	cr_skip_test("SKIP: unprivileged user namespaces are unavailable here"); } while (0)

Test(hosts, docker_seccomp_profile_names_seccomp_and_the_profile_fix, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--seccomp", "docker"), "seccomp filter refuses new namespaces",
		       "--security-opt seccomp=");
}

Test(hosts, a_filter_on_unshare_only_does_not_stop_run_nor_doctor, .timeout = 240)
{
	NEED_USERNS();
	expect_ok(SIM("--seccomp", "unshare"));
}

Test(hosts, a_filter_on_namespace_clone_only_is_named, .timeout = 240)
{
	NEED_USERNS();
	expect_refused_at(SIM("--seccomp", "clone"), "unshare() is allowed, clone() is not",
			  "--security-opt seccomp=", "user namespaces");
}

/* A runtime's profile older than the new mount API answers ENOSYS for it
 * on a kernel that has it: the cause is that filter, not the kernel's age,
 * and the fix names every call the profile must allow. */
Test(hosts, enosys_for_the_new_mount_api_from_a_filter_names_the_filter, .timeout = 240)
{
	struct verdict v = { 0 };

	NEED_USERNS();
	expect_refused(SIM("--seccomp", "newmount"), "a seccomp filter sbx runs under answers "
		       "ENOSYS for open_tree, move_mount, fsopen, fsconfig, fsmount, mount_setattr",
		       "--security-opt seccomp=");
	judge(SIM("--seccomp", "newmount"), &v);
	cr_assert_null(strstr(v.message, "Linux 5.12"), "the kernel is blamed: %s", v.message);
	verdict_free(&v);
}

Test(hosts, a_filter_on_pivot_root_only_is_named, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--seccomp", "pivot_root"), "pivot_root: a seccomp filter sbx runs "
		       "under answers EPERM for pivot_root", "\"pivot_root\"");
}

Test(hosts, a_filter_on_open_tree_only_is_named, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--seccomp", "open_tree"), "answers EPERM for open_tree (",
		       "\"open_tree\"");
}

/* podman's default profile refuses sethostname to a container without
 * CAP_SYS_ADMIN: the last call of the jail's set-up, where run once said
 * only "Operation not permitted". */
Test(hosts, a_filter_on_sethostname_only_is_named, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--seccomp", "sethostname"), "sethostname(sbx): Operation not "
		       "permitted: a seccomp filter sbx runs under answers EPERM for sethostname",
		       "\"sethostname\"");
}

/* /proc as Docker and podman leave it by default (masked files, /proc/sys
 * read-only): the kernel refuses the jail a new proc, and sbx's sysctl
 * write in the jail's network namespace fails first.  The message names
 * the runtimes' options that unmask it. */
Test(hosts, a_masked_proc_names_the_runtimes_unmask_options, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--proc-masked"), "/proc/sys is read-only here",
		       "podman run --security-opt unmask=ALL");
}

/* Only a masked file: the sysctl write works, the new proc is refused. */
Test(hosts, a_masked_proc_file_names_why_the_new_proc_is_refused, .timeout = 240)
{
	NEED_USERNS();
	expect_refused_at(SIM("--proc-masked-rw"), "parts of /proc are masked or read-only here",
			  "docker run --security-opt systempaths=unconfined", "pid namespace+proc");
}

/* uid 0 of a user namespace whose bounding set is empty (bwrap --uid 0
 * without --cap-add): the jail's maps are refused.  Run and doctor's user
 * namespace line name that cause, where both once pointed at each other. */
Test(hosts, an_empty_bounding_set_is_named_with_its_fix, .timeout = 240)
{
	NEED_USERNS();
	expect_refused_at(SIM("--no-caps"), "empty capability bounding set", "--cap-add ALL",
			  "user namespaces");
}

/* sbx as the program of another sbx jail, whose filter refuses new
 * namespaces by design: run, doctor's trial and its user namespace line
 * say so, and none of them points at a sysctl or a boot option. */
Test(hosts, inside_another_sbx_jail_run_and_doctor_say_so, .timeout = 240)
{
	char bin[4096], *slash;
	struct verdict v = { 0 };

	NEED_USERNS();
	snprintf(bin, sizeof(bin), "%s", sbx_path());
	if ((slash = strrchr(bin, '/')))
		*slash = '\0';
	/* the build dir (sbx, and the record beside it) bound as it is */
	const char *pre[] = { sbx_path(), "run", "-q", "--time", "120s", "-B", bin, "--", NULL };
	judge_under(pre, &v);
	if (strstr(v.run_err, "ReserveShadowMemoryRange failed"))
		cr_skip_test("SKIP: the sbx under test is a sanitizer build, whose shadow memory "
			     "does not fit a jail's RLIMIT_DATA: the plain builds hold the test");
	expect_verdict_refused(&v, "sbx runs inside another sbx jail", "run it outside the jail",
			       "user namespaces");
	cr_assert_null(strstr(v.doctor_json, "sysctl"), "doctor names a sysctl: %s", v.doctor_json);
	verdict_free(&v);
}

/* uid 0 of a user namespace that maps one uid: a rootless container */
Test(hosts, rootless_container_runs_jobs, .timeout = 240)
{
	NEED_USERNS();
	expect_ok(SIM("--userns"));
}

Test(hosts, an_unmapped_caller_uid_is_named, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--unmapped"), "your uid is not mapped", "map it there");
}

Test(hosts, max_user_namespaces_zero_names_its_sysctl, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--max", "max_user_namespaces"), "user.max_user_namespaces is 0",
		       "sysctl -w user.max_user_namespaces=");
}

/* Each other namespace count at 0: the refusing one is named, not "user". */
Test(hosts, each_zero_namespace_count_is_named, .timeout = 600)
{
	/* the count, run's name for the namespace, doctor's line for it */
	static const char *const ns[][3] = {
		{ "max_mnt_namespaces", "mount namespace", "mount namespace" },
		{ "max_pid_namespaces", "pid namespace", "pid namespace+proc" },
		{ "max_net_namespaces", "net namespace", "network namespace" },
		{ "max_ipc_namespaces", "ipc namespace", "ipc/uts/cgroup ns" },
		{ "max_uts_namespaces", "uts namespace", "ipc/uts/cgroup ns" },
		{ "max_cgroup_namespaces", "cgroup namespace", "ipc/uts/cgroup ns" },
	};

	NEED_USERNS();
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		char *fix = xasprintf("sysctl -w user.%s=", ns[i][0]);

		expect_refused_at(SIM("--max", ns[i][0]), ns[i][1], fix, ns[i][2]);
		free(fix);
	}
}

Test(hosts, no_proc_says_mount_one, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--no-proc"), "/proc", "mount -t proc proc /proc");
}

/* The workspace is a tmpfs inside the jail: a read-only TMPDIR stops nothing. */
Test(hosts, read_only_tmpdir_run_and_doctor_agree, .timeout = 240)
{
	NEED_USERNS();
	expect_ok(SIM("--tmp-ro"));
}

/* Nor does a full one: run works, and doctor says so. */
Test(hosts, full_tmp_run_and_doctor_agree, .timeout = 240)
{
	NEED_USERNS();
	expect_ok(SIM("--tmp-full"));
}

Test(hosts, ignored_sigchld_changes_nothing, .timeout = 240)
{
	NEED_USERNS();
	expect_ok(SIM("--sigchld-ign"));
}

/*
 * Below about 22 descriptors the default jail's set-up ran out midway, and
 * the message said "retry" (at the clone) or pointed at doctor (at a
 * mount).  Every such limit names ulimit -n, whichever step it would hit.
 */
Test(hosts, low_ulimit_n_names_ulimit_n, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--nofile", "5"), "open-file limit", "ulimit -n");
	expect_refused(SIM("--nofile", "12"), "open-file limit", "ulimit -n");
	expect_refused(SIM("--nofile", "17"), "open-file limit", "ulimit -n");
	expect_refused(SIM("--nofile", "19"), "open-file limit", "ulimit -n");
	expect_refused(SIM("--nofile", "21"), "open-file limit", "ulimit -n");
}

/* Only seccomp() refused, as by a container's profile: run loads its filter
 * with prctl and works, but had no listener and lost the refused-syscall
 * report with nothing to say so.  The record's message names why, and
 * doctor agrees: run can work, its seccomp line is limited for that cause
 * (it once said a kernel with CONFIG_SECCOMP_FILTER was required). */
Test(hosts, a_refused_seccomp_call_runs_and_says_the_report_is_lost, .timeout = 240)
{
	struct verdict v = { 0 };
	char *line;

	NEED_USERNS();
	judge(SIM("--seccomp", "seccomp"), &v);
	cr_assert_eq(v.run_exit, 0, "run exit %d: %s", v.run_exit, v.message);
	cr_assert_str_eq(v.status ? v.status : "(none)", "ok");
	cr_assert(strstr(v.message, "no report of refused system calls") &&
		  strstr(v.message, "refuses the seccomp() call"), "%s", v.message);
	line = doctor_line(&v, "seccomp");
	cr_assert(v.doctor_ok && v.doctor_exit == 0, "run works but doctor says no (exit %d): "
		  "%s", v.doctor_exit, line);
	cr_assert(strstr(line, "limited: ") && strstr(line, "refuses the seccomp() call itself") &&
		  !strstr(line, "CONFIG_SECCOMP_FILTER"), "%s", line);
	free(line);
	verdict_free(&v);
}

Test(hosts, ulimit_u_1_names_ulimit_u, .timeout = 240)
{
	NEED_USERNS();
	expect_refused(SIM("--nproc", "1"), "too many processes", "ulimit -u");
}

/* Closed stdio: run still runs and records; doctor cannot report, says so (125). */
Test(hosts, closed_stdio_runs_and_doctor_does_not_claim_ok, .timeout = 240)
{
	struct verdict v = { 0 };

	NEED_USERNS();
	judge(SIM("--close-stdio"), &v);
	cr_assert_eq(v.run_exit, 0, "run exit %d: %s", v.run_exit, v.message);
	cr_assert_str_eq(v.status ? v.status : "(none)", "ok");
	cr_assert_eq(v.doctor_exit, 125, "doctor with no stdout exited %d", v.doctor_exit);
	verdict_free(&v);
}
