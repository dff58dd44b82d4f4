/*
 * doctor.c - `sbx doctor [--json]`: what this kernel and this user allow.
 *
 * Each check really tries the feature in a throw-away child
 * (doctor_probes.c), never guessing from version numbers; this file says
 * which checks `sbx run` needs, adds the exact fix for anything missing,
 * and prints the report.  Exit 0 when `sbx run` with the default policy
 * can work here (every check marked `required` is ok), 1 otherwise, 125 on
 * usage.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include <cjson/cJSON.h>

#include "cmd/commands.h"
#include "cmd/doctor.h"
#include "cmd/help.h"
#include "jail/jail.h"

#define APPARMOR_FIX \
	"load the AppArmor profile shipped with sbx: " \
	"sudo install -m 0644 contrib/apparmor/sbx /etc/apparmor.d/sbx && " \
	"sudo apparmor_parser -r /etc/apparmor.d/sbx"
/* Only what really puts a run in a cgroup (supervise/cgroup.c). */
#define DELEGATE_FIX \
	"optional: start sbx alone in a delegated scope " \
	"(systemd-run --user --scope -p Delegate=yes sbx run ...), or give " \
	"--cgroup-parent DIR (a cgroup v2 directory you may write, without processes); " \
	"without one sbx uses rlimits and its own meter (no kernel OOM evidence)"
#define HYBRID_FIX \
	"optional: boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2 only), " \
	"then start sbx alone in a delegated scope (systemd-run --user --scope -p " \
	"Delegate=yes sbx run ...); until then sbx uses rlimits and its own meter"

static const char *const state_names[] = { "ok", "limited", "missing" };

struct check {
	const char *name;
	bool required; /* needed by `sbx run` with the default policy */
	enum doctor_state state;
	char detail[256];
	char fix[1024];
};

/* ---------- the checks and their fixes ---------- */

static void fix_userns(struct check *c)
{
	long max = jail_read_long("/proc/sys/user/max_user_namespaces");
	long clone = jail_read_long("/proc/sys/kernel/unprivileged_userns_clone");
	long aa = jail_read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	char extra[200] = "";

	if (max >= 0)
		doctor_fmt(extra, sizeof(extra), "max %ld", max);
	if (clone >= 0)
		doctor_fmt(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    "%sunprivileged_userns_clone=%ld", extra[0] ? ", " : "", clone);
	if (aa >= 0)
		doctor_fmt(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    "%sapparmor_restrict_unprivileged_userns=%ld", extra[0] ? ", " : "", aa);
	if (c->state == DOC_OK) {
		doctor_fmt(c->detail, sizeof(c->detail), "%s", extra);
		return;
	}
	doctor_fmt(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
	    "%s%s", extra[0] ? "; " : "", extra);
	if (max == 0)
		doctor_fmt(c->fix, sizeof(c->fix), "sudo sysctl -w user.max_user_namespaces=15000");
	else if (clone == 0)
		doctor_fmt(c->fix, sizeof(c->fix), "sudo sysctl -w kernel.unprivileged_userns_clone=1");
	else if (aa == 1)
		doctor_fmt(c->fix, sizeof(c->fix), APPARMOR_FIX);
	else if (strstr(c->detail, strerror(ENOSPC)))
		doctor_fmt(c->fix, sizeof(c->fix), "the user-namespace count limit is reached "
		    "(user.max_user_namespaces here, or a parent sandbox such as "
		    "bwrap --disable-userns): run sbx outside that sandbox, or "
		    "sudo sysctl -w user.max_user_namespaces=15000");
	else
		doctor_fmt(c->fix, sizeof(c->fix), "the kernel or a container runtime's seccomp "
		    "profile refuses unshare(CLONE_NEWUSER): run sbx on the host, or allow "
		    "unshare in the container's seccomp profile");
}

/* Mount/proc/net failing with userns working: usually AppArmor on Ubuntu. */
static void fix_inside_userns(struct check *c)
{
	const char *masked;

	if (c->state == DOC_OK)
		return;
	masked = strcmp(c->name, "pid namespace+proc") == 0 ? jail_proc_refusal(EPERM) : NULL;
	if (jail_read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		doctor_fmt(c->fix, sizeof(c->fix), APPARMOR_FIX);
	else if (!strcmp(c->name, "own /proc"))
		doctor_fmt(c->fix, sizeof(c->fix), "mount a proc for sbx's pid namespace: "
		    "unshare --pid --fork --mount-proc, bwrap --unshare-pid --proc /proc, "
		    "or mount -t proc proc /proc in a new mount namespace");
	else if (masked)
		doctor_fmt(c->fix, sizeof(c->fix), "%s", masked);
	else if (!strcmp(c->name, "pid namespace+proc"))
		doctor_fmt(c->fix, sizeof(c->fix), "a fully visible /proc is needed to mount a new "
		    "one: in a container, run sbx on the host or unmask /proc "
		    "(docker --security-opt systempaths=unconfined)");
	else
		doctor_fmt(c->fix, sizeof(c->fix), "the kernel refused this inside a user namespace: "
		    "if sbx runs in a container, run it on the host or relax the container's "
		    "profiles (docker --security-opt seccomp=unconfined "
		    "--security-opt apparmor=unconfined)");
}

static void fix_seccomp(struct check *c)
{
	long mode;

	if (c->state == DOC_LIMITED && strstr(c->detail, "the seccomp() call itself")) {
		doctor_fmt(c->fix, sizeof(c->fix), "optional: allow the seccomp() call in the "
		    "profile sbx runs under (contrib/engines/seccomp-sbx.json allows it) to "
		    "get the report of refused calls; or run sbx with --no-syscall-report");
		return;
	}
	if (c->state == DOC_MISSING)
		doctor_fmt(c->fix, sizeof(c->fix), "a kernel built with CONFIG_SECCOMP_FILTER "
		    "(Linux >= 4.14 for kill_process) is required; sbx will not run "
		    "without a filter");
	else if (c->state == DOC_LIMITED)
		doctor_fmt(c->fix, sizeof(c->fix), "optional: Linux >= 5.0 has user_notif (the "
		    "report of refused calls) and >= 4.14 log; sbx runs without them and "
		    "says so in the record");
	mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	if (mode == 2)
		doctor_fmt(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
		    "; sbx is already under a filter (container?), sbx's stacks on it");
}

static void fix_optional(struct check *c)
{
	if (c->state == DOC_OK)
		return;
	if (!strcmp(c->name, "cgroup v2"))
		doctor_fmt(c->fix, sizeof(c->fix), "%s",
			   strstr(c->detail, "hybrid") || strstr(c->detail, "no cgroup2") ?
			   HYBRID_FIX : DELEGATE_FIX);
	else if (!strcmp(c->name, "landlock"))
		doctor_fmt(c->fix, sizeof(c->fix), "optional: boot with lsm=...,landlock "
		    "(Linux >= 5.13); sbx does not need it");
	else
		doctor_fmt(c->fix, sizeof(c->fix), "optional: Linux >= 5.6 has it; sbx falls "
		    "back to slower portable code");
}

struct check_def {
	const char *name;
	bool required;
	probe_fn probe;
	void (*fix)(struct check *c);
	int clone_flags; /* the namespaces it makes, as the jail's clone does */
};

/*
 * A check that failed before its own probe could look: run's classifier
 * names the cause, so that the line and run's message agree.  The probe's
 * fork refused (ulimit -u): the process limit.  A namespace check: the
 * classifier of the jail's failed clone, which tries each namespace as the
 * jail makes it and names the namespace and the mechanism that refused
 * (a filter on clone alone, a namespace count of 0, another sbx jail...).
 * False when it finds each namespace works on its own (the cause is past
 * the clone: the line's own fix then).
 */
static bool fix_from_run(struct check *c, int clone_flags)
{
	struct sbx_err err = { 0 };

	if (!strncmp(c->detail, "fork: ", 6)) {
		err_resource(&err, "fork (doctor's probe)", EAGAIN);
		doctor_fmt(c->fix, sizeof(c->fix), "%s", err.msg);
		return true;
	}
	if (!strncmp(c->detail, "writing uid_map: ", 17) ||
	    !strncmp(c->detail, "writing gid_map: ", 17)) {
		const char *why = jail_map_refusal(EPERM);

		if (!why || !strstr(c->detail, strerror(EPERM)))
			return false;
		doctor_fmt(c->fix, sizeof(c->fix), "%s", why);
		return true;
	}
	if (!clone_flags)
		return false;
	jail_diagnose_clone(clone_flags, 0, &err);
	if (!strncmp(err.msg, "clone (new namespaces)", 22))
		return false;
	doctor_fmt(c->fix, sizeof(c->fix), "%s", err.msg);
	return true;
}

/* "user namespaces" must stay first: the namespace checks depend on it. */
static const struct check_def check_defs[] = {
	{ "user namespaces", true, probe_userns, fix_userns, CLONE_NEWUSER },
	{ "mount namespace", true, probe_mount, fix_inside_userns, CLONE_NEWUSER | CLONE_NEWNS },
	{ "pid namespace+proc", true, probe_proc, fix_inside_userns,
	  CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID },
	{ "own /proc", true, probe_own_proc, fix_inside_userns, 0 },
	{ "network namespace", true, probe_net, fix_inside_userns, CLONE_NEWUSER | CLONE_NEWNET },
	{ "ipc/uts/cgroup ns", true, probe_other_ns, fix_inside_userns,
	  CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP },
	{ "seccomp", true, probe_seccomp, fix_seccomp, 0 },
	{ "cgroup v2", false, probe_cgroup, fix_optional, 0 },
	{ "landlock", false, probe_landlock, fix_optional, 0 },
	{ "pidfd_open", false, probe_pidfd, fix_optional, 0 },
	{ "close_range", false, probe_close_range, fix_optional, 0 },
	{ "openat2", false, probe_openat2, fix_optional, 0 },
};

#define NDEFS (sizeof(check_defs) / sizeof(check_defs[0]))
#define NCHECKS (NDEFS + 1)

/* checks[0]: `sbx run` itself on /bin/true, the verdict run would give. */
static bool trial_check(struct check *c)
{
	struct doctor_trial t = { "", "" };

	c->name = "sbx run";
	c->required = true;
	c->state = doctor_trial_run(&t);
	doctor_fmt(c->detail, sizeof(c->detail), "%s", t.detail);
	doctor_fmt(c->fix, sizeof(c->fix), "%s", t.fix);
	return c->state == DOC_OK;
}

static bool run_checks(struct check *checks)
{
	bool ok = trial_check(&checks[0]);
	struct check *userns = &checks[1];

	for (size_t i = 0; i < NDEFS; i++) {
		struct check *c = &checks[i + 1];

		c->name = check_defs[i].name;
		c->required = check_defs[i].required;
		c->state = probe_run(check_defs[i].probe, c->detail, sizeof(c->detail));
		if (check_defs[i].fix == fix_inside_userns && c->state != DOC_OK &&
		    userns->state != DOC_OK)
			doctor_fmt(c->fix, sizeof(c->fix), "needs user namespaces: fix that first");
		else if (c->state == DOC_OK || !fix_from_run(c, check_defs[i].clone_flags))
			check_defs[i].fix(c);
		/* limited: run works without the part that is missing, and says so */
		if (c->required && c->state == DOC_MISSING)
			ok = false;
	}
	return ok;
}

/* ---------- output ---------- */

static void print_text(const struct check *checks, bool ok)
{
	size_t i;

	for (i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];

		printf("%-20s %-8s%s%s%s\n", c->name, state_names[c->state],
		       c->detail[0] ? "(" : "", c->detail, c->detail[0] ? ")" : "");
		if (c->fix[0])
			printf("%-20s fix: %s\n", "", c->fix);
	}
	printf("\n%s\n", ok ? "sbx run can work here with the default policy."
			   : "sbx run cannot work here with the default policy: "
			     "fix the required checks above.");
}

static cJSON *check_json(const struct check *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "state", state_names[c->state]);
	cJSON_AddStringToObject(o, "detail", c->detail);
	if (c->fix[0])
		cJSON_AddStringToObject(o, "fix", c->fix);
	else
		cJSON_AddNullToObject(o, "fix");
	cJSON_AddBoolToObject(o, "required", c->required);
	return o;
}

static int print_json(const struct check *checks, bool ok)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "checks");
	char *text;
	size_t i;

	for (i = 0; i < NCHECKS; i++)
		cJSON_AddItemToArray(arr, check_json(&checks[i]));
	cJSON_AddBoolToObject(root, "ok", ok);
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!text) {
		fprintf(stderr, "sbx doctor: out of memory\n");
		return -1;
	}
	puts(text);
	cJSON_free(text);
	return 0;
}

static void doctor_usage(FILE *to)
{
	fputs("usage: sbx doctor [--json]\n"
	      "Check what this kernel and user allow; each check says ok, limited or\n"
	      "missing and, when missing, how to fix it.  Exit 0 when `sbx run` with\n"
	      "the default policy can work here, 1 otherwise.\n", to);
}

int cmd_doctor(int argc, char **argv)
{
	struct check checks[NCHECKS];
	bool json = false, ok;
	int i;

	if (help_wanted(argc, argv))
		return cmd_help(2, (char *[]){ "help", "doctor", NULL });
	/* argv[0] is "doctor" when main passes the subcommand's own argv */
	for (i = 0; i < argc; i++) {
		if (i == 0 && !strcmp(argv[i], "doctor"))
			continue;
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			doctor_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "sbx doctor: unknown argument '%s'\n", argv[i]);
			doctor_usage(stderr);
			return 125;
		}
	}
	memset(checks, 0, sizeof(checks));
	ok = run_checks(checks);
	if (json ? print_json(checks, ok) < 0 : (print_text(checks, ok), 0))
		return 125;
	/* an answer nobody could read is no "ok": a script must not see exit 0 */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sbx doctor: writing the report failed: %s\n", strerror(errno));
		return 125;
	}
	return ok ? 0 : 1;
}
