/*
 * harness.h - run the real sbx binary the way a user does, for the
 * integration and probe suites.
 *
 * Every run is bounded (the harness SIGKILLs sbx after `deadline_s`, so a
 * hung sbx fails its test instead of hanging the suite), its stdout and
 * stderr are collected, and the one result record sbx printed is parsed
 * with cJSON.  Each record is also appended to $SBX_RECORDS (JSON lines),
 * which `make check` validates against contrib/result.schema.json.
 */
#ifndef SBX_HARNESS_H
#define SBX_HARNESS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

struct sbx_opts {
	const char *stdin_data;  /* NULL: /dev/null */
	size_t stdin_len;
	int stdin_from_fd;       /* > 0: sbx's fd 0 is a dup of this fd instead */
	const char *const *env;  /* extra "NAME=VALUE" for sbx's environment */
	double deadline_s;       /* default 20 */
	bool record_on_stdout;   /* --json: the record is sbx's whole stdout */
	bool no_record;          /* -q: don't look for a record */
	const char *cwd;         /* run sbx in this directory */
	/* run sbx alone in this new cgroup v2 directory, as `systemd-run --scope
	 * -p Delegate=yes` would (created and joined before exec, removed
	 * after); NULL: $SBX_TEST_SCOPES/t-PID-N.scope when that is set */
	const char *cgroup_scope;
	const char *const *prefix; /* exec PREFIX... SBX ARGV... (a launcher: sbx-sim) */
};

struct sbx_result {
	int exit_status;   /* sbx's exit code, or 128+N if it died of signal N */
	bool timed_out;    /* the harness had to kill sbx */
	char *out, *err;   /* NUL-terminated */
	size_t out_len, err_len;
	cJSON *record;     /* NULL when none could be parsed */
	double elapsed_s;
};

/* Path of the sbx binary under test ($SBX). */
const char *sbx_path(void);
/* Path of a probe program ($SBX_PROBES/NAME). */
const char *probe_path(const char *name);

/* Run `sbx ARGV...` (ARGV NULL-terminated, without "sbx"). */
void sbx_run(struct sbx_result *r, const struct sbx_opts *o, const char *const argv[]);
void sbx_result_free(struct sbx_result *r);

/* Record accessors: NULL/-1 when absent. */
const char *rec_str(const struct sbx_result *r, const char *key);
double rec_num(const struct sbx_result *r, const char *key);
bool rec_is_null(const struct sbx_result *r, const char *key);

/* `sbx run OPTS... -- /bin/sh -c SCRIPT` (OPTS NULL-terminated, or NULL). */
void sbx_run_sh(struct sbx_result *r, const struct sbx_opts *o,
		const char *const *opts, const char *script);

/* Entries of DIR besides . and .. (-1 when it cannot be read). */
int count_entries(const char *dir);

/* A private temp dir for one test (removed by rm_tree). */
char *make_temp_dir(void);
void rm_tree(const char *path);

/* Whether unprivileged userns work here (for SKIP with a reason). */
bool have_userns(void);

/* The source tree ($SBX_SRC, default "."), and a file of it read whole
 * (the test fails when it cannot be read). */
const char *src_dir(void);
char *slurp_src(const char *rel);
char *slurp_file(const char *path);

/* `sh -c CMD` on the host: its exit status (128+N for signal N), its
 * stdout and stderr together in *OUT (malloc'd). */
int host_sh(const char *cmd, char **out);

/* printf into a static-free malloc'd string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write TEXT to DIR/NAME (aborts on failure); returns the malloc'd path. */
char *put_test_file(const char *dir, const char *name, const char *text);

#define SBX_ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

#endif
