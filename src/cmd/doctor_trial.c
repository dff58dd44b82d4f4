/*
 * doctor_trial.c - doctor's "sbx run" check: a trial run of /bin/true in
 * the default jail through the very code `sbx run` uses (cmd_run in a
 * forked child: the same workspace, clone flags, maps, mounts and filter),
 * so that doctor and run cannot disagree.  Its record's status and
 * message are the check's state and fix: a failing run's message already
 * names the feature that refused and the fix (jail/diagnose.c).
 */
#include "cmd/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/commands.h"
#include "base/err.h"

#define TRIAL_OUT_MAX 65536

static void trial_child(int wfd)
{
	char *argv[] = { "run", "--json", "--", "/bin/true", NULL };
	int null;

	alarm(60); /* a trial that hangs must not hang doctor */
	if (dup2(wfd, 1) < 0)
		_exit(126);
	if (wfd != 1)
		close(wfd);
	/* low on fds: run without /dev/null rather than not at all */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0 && (dup2(null, 0) < 0 || dup2(null, 2) < 0))
		_exit(126);
	if (null > 2)
		close(null);
	_exit(cmd_run(4, argv) & 0xff);
}

/* Read the child's whole stdout (the record); NULL on no memory. */
static char *read_all(int fd)
{
	char *buf = malloc(TRIAL_OUT_MAX);
	size_t got = 0;
	ssize_t n;

	if (!buf)
		return NULL;
	while (got + 1 < TRIAL_OUT_MAX &&
	       ((n = read(fd, buf + got, TRIAL_OUT_MAX - 1 - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	buf[got] = '\0';
	return buf;
}

/* The record's status and message into the check. */
static enum doctor_state trial_verdict(const char *out, int rc, struct doctor_trial *t)
{
	cJSON *rec = cJSON_Parse(out);
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "status"));
	const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "message"));
	enum doctor_state st = DOC_MISSING;

	if (!status) {
		doctor_fmt(t->detail, sizeof(t->detail), "the trial run exited %d "
			   "without a record", rc);
		doctor_fmt(t->fix, sizeof(t->fix), "run 'sbx run -- /bin/true' to see why");
	} else if (rc == 0 && !strcmp(status, "ok")) {
		doctor_fmt(t->detail, sizeof(t->detail), "a trial run of /bin/true in the "
			   "default jail ran");
		st = DOC_OK;
	} else {
		doctor_fmt(t->detail, sizeof(t->detail), "a trial run of /bin/true: %s, "
			   "exit %d", status, rc);
		doctor_fmt(t->fix, sizeof(t->fix), "%s", msg ? msg : "(no message)");
	}
	cJSON_Delete(rec);
	return st;
}

static enum doctor_state trial_failed(const char *what, int e, struct doctor_trial *t)
{
	struct sbx_err err = { 0 };

	err_resource(&err, what, e);
	doctor_fmt(t->detail, sizeof(t->detail), "the trial run could not start");
	doctor_fmt(t->fix, sizeof(t->fix), "%s", err.msg);
	return DOC_MISSING;
}

enum doctor_state doctor_trial_run(struct doctor_trial *t)
{
	int p[2], status = 0, rc;
	pid_t pid, got;
	char *out;
	enum doctor_state st;

	if (pipe2(p, O_CLOEXEC) < 0)
		return trial_failed("pipe2", errno, t);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return trial_failed("fork", e, t);
	}
	if (pid == 0)
		trial_child(p[1]);
	close(p[1]);
	out = read_all(p[0]);
	close(p[0]);
	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	/* no status from the kernel is no verdict: fail closed */
	rc = got != pid ? -1 : WIFEXITED(status) ? WEXITSTATUS(status)
						 : 128 + WTERMSIG(status);
	st = trial_verdict(out ? out : "", rc, t);
	free(out);
	return st;
}
