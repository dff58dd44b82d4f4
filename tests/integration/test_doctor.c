/*
 * test_doctor.c - `sbx doctor` tells the truth about this host, for root
 * and for an ordinary user, in text and in JSON.
 *
 * A doctor that says ok where `sbx run` then fails (or the reverse) sends
 * users chasing the wrong fix, so the exit status must follow the checks
 * and every check must carry a state and, when not ok, a fix.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

#define UNPRIV_USER "sbxuser"

static bool state_valid(const char *s)
{
	return s && (!strcmp(s, "ok") || !strcmp(s, "limited") || !strcmp(s, "missing"));
}

/* Every check: a name, a known state, a detail, and a fix when not ok. */
static void assert_report(const char *json, bool want_ok)
{
	cJSON *root = cJSON_Parse(json), *checks, *c;
	int n = 0;

	cr_assert_not_null(root, "doctor --json is not JSON: %s", json);
	checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
	cr_assert(cJSON_IsArray(checks), "no \"checks\" array: %s", json);
	cJSON_ArrayForEach(c, checks) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "name"));
		const char *state = cJSON_GetStringValue(cJSON_GetObjectItem(c, "state"));
		const cJSON *fix = cJSON_GetObjectItem(c, "fix");

		cr_assert(name && *name, "a check without a name: %s", json);
		cr_assert(state_valid(state), "check '%s' has state '%s'", name,
			  state ? state : "(none)");
		cr_assert(cJSON_IsString(cJSON_GetObjectItem(c, "detail")), "'%s': no detail", name);
		if (strcmp(state, "ok") != 0)
			cr_assert(cJSON_IsString(fix) && *fix->valuestring,
				  "'%s' is %s but has no fix", name, state);
		else
			cr_assert(cJSON_IsNull(fix), "'%s' is ok but has a fix", name);
		n++;
	}
	cr_assert_geq(n, 8, "only %d checks", n);
	cr_assert(cJSON_IsBool(cJSON_GetObjectItem(root, "ok")), "no \"ok\" boolean");
	cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(root, "ok")), want_ok,
		     "\"ok\" is not %d: %s", want_ok, json);
	cJSON_Delete(root);
}

/* Whether the JSON report names check NAME with state STATE. */
static bool has_check(const char *json, const char *name, const char *state)
{
	cJSON *root = cJSON_Parse(json), *c;
	bool found = false;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks"))
		if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")), name) &&
		    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "state")), state))
			found = true;
	cJSON_Delete(root);
	return found;
}

Test(doctor, json_report_is_ok_where_userns_work)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	if (!have_userns())
		cr_skip_test("SKIP: unprivileged user namespaces are unavailable here");
	sbx_run(&r, &o, SBX_ARGV("doctor", "--json"));
	cr_assert_eq(r.exit_status, 0, "doctor exited %d: %s%s", r.exit_status, r.out, r.err);
	assert_report(r.out, true);
	cr_assert(has_check(r.out, "user namespaces", "ok"), "%s", r.out);
	cr_assert(has_check(r.out, "pid namespace+proc", "ok"), "%s", r.out);
	cr_assert(has_check(r.out, "seccomp", "ok"), "%s", r.out);
	sbx_result_free(&r);
}

Test(doctor, text_report_has_one_aligned_line_per_check)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	const char *names[] = { "user namespaces", "mount namespace", "network namespace",
				"seccomp", "cgroup v2", "landlock", "pidfd_open",
				"close_range", "openat2" };

	sbx_run(&r, &o, SBX_ARGV("doctor"));
	cr_assert(r.exit_status == 0 || r.exit_status == 1, "exit %d: %s", r.exit_status, r.err);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *line = strstr(r.out, names[i]);

		cr_assert_not_null(line, "no line for '%s':\n%s", names[i], r.out);
		/* the state column starts at the same place on every line */
		cr_assert(line == r.out || line[-1] == '\n', "'%s' not at line start", names[i]);
		cr_assert(!strncmp(line + 21, "ok ", 3) || !strncmp(line + 21, "limited ", 8) ||
			  !strncmp(line + 21, "missing ", 8), "bad state column for '%s':\n%s",
			  names[i], r.out);
	}
	sbx_result_free(&r);
}

Test(doctor, unknown_argument_is_a_usage_error)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;

	sbx_run(&r, &o, SBX_ARGV("doctor", "--jsn"));
	cr_assert_eq(r.exit_status, 125, "exit %d", r.exit_status);
	cr_assert_not_null(strstr(r.err, "--jsn"), "the message must name the argument: %s", r.err);
	sbx_result_free(&r);
}

/* Copy the binary under test where an unprivileged user can execute it. */
static char *copy_sbx(const char *dir)
{
	char *dst = xasprintf("%s/sbx", dir);
	char buf[65536];
	int in = open(sbx_path(), O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n;

	cr_assert(in >= 0 && out >= 0, "copying %s: %s", sbx_path(), strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	chmod(dst, 0755);
	return dst;
}

/* Run `SBX doctor --json` as PW, stdout into *OUT; returns the exit status. */
static int doctor_as(const struct passwd *pw, const char *sbx, char **out)
{
	char buf[65536];
	size_t len = 0;
	ssize_t n;
	int p[2], status = 0;
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		alarm(30);
		if (chdir("/") || setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
			_exit(120);
		/* as su would: doctor's trial run reads the user's own policies */
		setenv("HOME", pw->pw_dir, 1);
		execl(sbx, sbx, "doctor", "--json", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < sizeof(buf) && (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	*out = strdup(buf);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Test(doctor, an_unprivileged_user_gets_the_same_answer)
{
	struct passwd *pw = getpwnam(UNPRIV_USER);
	char *dir, *sbx, *out = NULL;
	int rc;

	if (geteuid() != 0 || !pw)
		cr_skip_test("SKIP: needs root and a user '%s' to switch to "
			     "(already unprivileged runs are covered above)", UNPRIV_USER);
	if (!have_userns())
		cr_skip_test("SKIP: unprivileged user namespaces are unavailable here");
	dir = make_temp_dir();
	sbx = copy_sbx(dir);
	rc = doctor_as(pw, sbx, &out);
	cr_assert_eq(rc, 0, "doctor as %s exited %d: %s", UNPRIV_USER, rc, out);
	assert_report(out, true);
	cr_assert(has_check(out, "mount namespace", "ok"), "%s", out);
	free(out);
	free(sbx);
	rm_tree(dir);
	free(dir);
}
