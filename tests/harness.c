/* harness.c - run the real sbx and collect what a user would see; see harness.h. */
#include "harness.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

char *put_test_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	return path;
}

const char *sbx_path(void)
{
	const char *p = getenv("SBX");

	return p ? p : "./sbx";
}

const char *probe_path(const char *name)
{
	static __thread char buf[4096];
	const char *dir = getenv("SBX_PROBES");

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "build/probes", name);
	return buf;
}

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* The scope a run of sbx gets (see sbx_opts.cgroup_scope), or NULL. */
static char *scope_for(const struct sbx_opts *o)
{
	static int seq;
	const char *base = getenv("SBX_TEST_SCOPES");

	if (o && o->cgroup_scope)
		return xasprintf("%s", o->cgroup_scope);
	if (!base || !*base)
		return NULL;
	return xasprintf("%s/t-%d-%d.scope", base, (int)getpid(), ++seq);
}

/* In the child: make SCOPE and move into it; a failure is exit 126. */
static void enter_scope(const char *scope)
{
	char *procs = xasprintf("%s/cgroup.procs", scope);
	int fd;

	if (mkdir(scope, 0755) != 0 && errno != EEXIST)
		_exit(126);
	/* systemd's Delegate=yes mark; only root may set trusted.* */
	if (geteuid() == 0)
		(void)setxattr(scope, "trusted.delegate", "1", 1, 0);
	fd = open(procs, O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		_exit(126);
	close(fd);
	free(procs);
}

/* After the run: the scope, the leaf sbx moved itself into, and the run's
 * cgroup of an sbx the harness had to kill (empty once its jail died). */
static void remove_scope(const char *scope)
{
	for (int i = 0; i < 100 && rmdir(scope) != 0 && errno == EBUSY; i++) {
		DIR *d = opendir(scope);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (strncmp(e->d_name, "sbx-", 4) != 0)
				continue;
			char *sub = xasprintf("%s/%s", scope, e->d_name);
			rmdir(sub);
			free(sub);
		}
		if (d)
			closedir(d);
		usleep(20000);
	}
}

static void child_exec(const struct sbx_opts *o, const char *const argv[],
		       int in, int out, int err, const char *scope)
{
	size_t n = 0, np = 0;

	while (argv[n])
		n++;
	while (o && o->prefix && o->prefix[np])
		np++;
	const char **full = calloc(np + n + 2, sizeof(*full));
	if (np)
		memcpy(full, o->prefix, np * sizeof(*full));
	full[np] = sbx_path();
	memcpy(full + np + 1, argv, n * sizeof(*full));
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	if (o && o->cwd && chdir(o->cwd) != 0)
		_exit(126);
	for (const char *const *e = o && o->env ? o->env : NULL; e && *e; e++)
		putenv((char *)*e);
	setpgid(0, 0);
	if (scope)
		enter_scope(scope);
	execv(full[0], (char *const *)full);
	_exit(127);
}

/* Feed stdin (small, so one write into the pipe buffer is enough). */
static int stdin_fd(const struct sbx_opts *o)
{
	int p[2];

	if (o && o->stdin_from_fd > 0)
		return fcntl(o->stdin_from_fd, F_DUPFD_CLOEXEC, 3); /* same open file */
	if (!o || !o->stdin_data)
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (pipe2(p, O_CLOEXEC) != 0)
		abort();
	if (o->stdin_len && write(p[1], o->stdin_data, o->stdin_len) != (ssize_t)o->stdin_len)
		abort();
	close(p[1]);
	return p[0];
}

static void collect(struct sbx_result *r, pid_t pid, int fo, int fe, double deadline)
{
	struct buf out = { 0 }, err = { 0 };
	struct pollfd pfd[2] = { { fo, POLLIN, 0 }, { fe, POLLIN, 0 } };
	char chunk[65536];
	int open_fds = 2;

	while (open_fds > 0) {
		double left = deadline - now_s();
		if (left <= 0 && !r->timed_out) {
			r->timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		int rc = poll(pfd, 2, left > 0 ? (int)(left * 1000) + 1 : 100);
		if (rc < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			ssize_t n = read(pfd[i].fd, chunk, sizeof(chunk));
			if (n > 0) {
				buf_add(i ? &err : &out, chunk, n);
			} else if (n == 0 || errno != EINTR) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
	}
	buf_add(&out, "", 0);
	buf_add(&err, "", 0);
	r->out = out.p;
	r->out_len = out.len;
	r->err = err.p;
	r->err_len = err.len;
}

/* The record is the last line of stderr (passthrough) or all of stdout (--json). */
static void parse_record(struct sbx_result *r, const struct sbx_opts *o)
{
	const char *text = r->err;

	if (o && o->no_record)
		return;
	if (o && o->record_on_stdout) {
		text = r->out;
	} else {
		const char *end = r->err + r->err_len;
		while (end > r->err && end[-1] == '\n')
			end--;
		const char *line = end;
		while (line > r->err && line[-1] != '\n')
			line--;
		text = line;
	}
	r->record = cJSON_Parse(text);
	const char *log = getenv("SBX_RECORDS");
	if (r->record && log) {
		char *flat = cJSON_PrintUnformatted(r->record);
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0 && flat) {
			dprintf(fd, "%s\n", flat);
		}
		if (fd >= 0)
			close(fd);
		free(flat);
	}
}

void sbx_run(struct sbx_result *r, const struct sbx_opts *o, const char *const argv[])
{
	int po[2], pe[2], status = 0;
	double start = now_s();
	double limit = o && o->deadline_s > 0 ? o->deadline_s : 20;

	memset(r, 0, sizeof(*r));
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)
		abort();
	int in = stdin_fd(o);
	char *scope = scope_for(o);
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0)
		child_exec(o, argv, in, po[1], pe[1], scope);
	close(in);
	close(po[1]);
	close(pe[1]);
	collect(r, pid, po[0], pe[0], start + limit);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	r->elapsed_s = now_s() - start;
	r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (scope)
		remove_scope(scope);
	free(scope);
	parse_record(r, o);
}

void sbx_result_free(struct sbx_result *r)
{
	free(r->out);
	free(r->err);
	cJSON_Delete(r->record);
	memset(r, 0, sizeof(*r));
}

const char *rec_str(const struct sbx_result *r, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->record, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double rec_num(const struct sbx_result *r, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->record, key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

bool rec_is_null(const struct sbx_result *r, const char *key)
{
	return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r->record, key));
}

/*
 * Every test's temp dirs go under one root that the runner makes before the
 * first test and removes after the last: a test that skips or fails before
 * its rm_tree() (a REQUIRE_ROOT after make_temp_dir) leaves nothing behind.
 */
static char test_root[64];

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	const char *tmp = getenv("TMPDIR");

	(void)set;
	snprintf(test_root, sizeof(test_root), "%.40s/sbx-tests-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(test_root))
		abort();
	chmod(test_root, 0755); /* the jail's uid and the racers pass through */
	setenv("SBX_TEST_ROOT", test_root, 1);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	(void)stats;
	if (test_root[0])
		rm_tree(test_root);
}

char *make_temp_dir(void)
{
	const char *root = getenv("SBX_TEST_ROOT"), *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/sbx-test-XXXXXX",
			       root ? root : tmp ? tmp : "/tmp");

	if (!mkdtemp(path))
		abort();
	chmod(path, 0755);
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

bool have_userns(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void sbx_run_sh(struct sbx_result *r, const struct sbx_opts *o,
		const char *const *opts, const char *script)
{
	const char *argv[64];
	size_t n = 0;

	argv[n++] = "run";
	for (; opts && *opts && n < 64 - 5; opts++)
		argv[n++] = *opts;
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	sbx_run(r, o, argv);
}

int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

const char *src_dir(void)
{
	const char *s = getenv("SBX_SRC");

	return s ? s : ".";
}

char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		cr_assert_fail("cannot open %s (set SBX_SRC to the source tree)", path);
	n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n < 0)
		cr_assert_fail("cannot read %s", path);
	return buf;
}

char *slurp_src(const char *rel)
{
	char *path = xasprintf("%s/%s", src_dir(), rel), *text = slurp_file(path);

	free(path);
	return text;
}

int host_sh(const char *cmd, char **out)
{
	char *full = xasprintf("(%s) 2>&1", cmd);
	FILE *f = popen(full, "r");
	size_t cap = 0;
	int status;

	free(full);
	*out = NULL;
	if (!f)
		cr_assert_fail("popen %s", cmd);
	if (getdelim(out, &cap, '\0', f) < 0) {
		free(*out);
		*out = strdup("");
	}
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
