/*
 * result.c - struct result -> the one-line JSON record (sbx-result(5)).
 *
 * Built with cJSON from kernel facts and sbx's own counters.  Captured text
 * may hold NUL bytes, which cJSON strings cannot, so it is escaped here and
 * inserted as a raw node.  If building the record fails (out of memory), a
 * fixed minimal record with the right status is written instead
 * (the status must reach the caller even then).  Every other string (argv,
 * -e, file names, the policy name) is bytes from the caller: repaired to
 * valid UTF-8 at the end, and "strings_lossy" says when that replaced anything.  contrib/result.schema.json describes the output.
 * Every key is the record's own: "files" and "artifact_truncation" come
 * from files.c, out of the workspace diff the caller put in struct result.
 */
#include "record/result.h"
#include "record/denied.h"
#include "base/utf8.h"
#include "record/internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SBX_VERSION
#define SBX_VERSION "unknown"
#endif

#define SCHEMA_VERSION 1

static const char *const status_names[] = {
	[ST_OK] = "ok",
	[ST_NONZERO_EXIT] = "nonzero-exit",
	[ST_SIGNALED] = "signaled",
	[ST_TIMEOUT] = "timeout",
	[ST_CPU_LIMIT] = "cpu-limit",
	[ST_MEMORY_LIMIT] = "memory-limit",
	[ST_OUTPUT_LIMIT] = "output-limit",
	[ST_SECCOMP] = "seccomp",
	[ST_EXEC_ERROR] = "exec-error",
	[ST_CONFIG_ERROR] = "config-error",
	[ST_SETUP_ERROR] = "setup-error",
	[ST_ABORTED] = "aborted",
	[ST_COMPILE_ERROR] = "compile-error",
};

/* Short keys of limits.enforced_by (kill_grace_ms is no limit: absent). */
static const char *const enforced_keys[LIM_COUNT] = {
	[LIM_WALL_TIME_MS] = "wall",
	[LIM_CPU_TIME_MS] = "cpu",
	[LIM_MEMORY_MB] = "memory",
	[LIM_PROCESSES] = "processes",
	[LIM_FILE_SIZE_MB] = "file_size",
	[LIM_OPEN_FILES] = "open_files",
	[LIM_OUTPUT_BYTES] = "output",
	[LIM_STACK_MB] = "stack",
};

static const char *const enforcement_names[] = {
	[ENF_NONE] = "none",
	[ENF_RLIMIT] = "rlimit",
	[ENF_CGROUP] = "cgroup",
	[ENF_SUPERVISOR] = "supervisor",
	[ENF_TMPFS] = "tmpfs",
	[ENF_RLIMIT_DATA] = "rlimit-data",
	[ENF_RLIMIT_NPROC] = "rlimit-nproc",
	[ENF_RLIMIT_SUPERVISOR] = "rlimit+supervisor",
	[ENF_RLIMIT_DATA_SUPERVISOR] = "rlimit-data+supervisor",
};

const char *run_status_name(enum run_status s)
{
	if ((unsigned)s >= sizeof(status_names) / sizeof(status_names[0]) || !status_names[s])
		return "setup-error";
	return status_names[s];
}

static const char *enforcement_name(enum enforcement e)
{
	if ((unsigned)e >= sizeof(enforcement_names) / sizeof(enforcement_names[0]))
		return "none";
	return enforcement_names[e];
}

void result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
	/* until someone decides otherwise, nothing ran: never a fake "ok" */
	r->status = ST_SETUP_ERROR;
	r->exit_status = 125;
	r->wall_ms = -1;
	r->cpu_user_ms = -1;
	r->cpu_sys_ms = -1;
	r->max_rss_kib = -1;
	r->memory_peak_kib = -1;
	r->processes_peak = -1;
	r->forks_refused = -1;
	r->host_uid = r->host_gid = -1;
}

void result_free(struct result *r)
{
	free(r->out.text);
	free(r->err.text);
	r->out.text = r->err.text = NULL;
	r->out.len = r->err.len = 0;
	free(r->denied);
	r->denied = NULL;
}

void result_set_error(struct result *r, const struct sbx_err *err)
{
	bool callers = err->kind == ERR_USAGE || err->kind == ERR_CONFIG;

	r->status = callers ? ST_CONFIG_ERROR : ST_SETUP_ERROR;
	r->retryable = !callers && (err->kind != ERR_SETUP || err->retryable);
	r->exit_status = 125;
	snprintf(r->message, sizeof(r->message), "%s",
		 err->msg[0] ? err->msg : "sbx failed before the program ran");
}

void result_abort_late(struct result *r, int sig)
{
	char name[32], was[sizeof(r->message)];

	if (sig <= 0 || r->status == ST_ABORTED)
		return;
	result_signal_name(sig, name, sizeof(name));
	memcpy(was, r->message, sizeof(was));
	r->status = ST_ABORTED;
	r->exit_status = 128 + sig;
	snprintf(r->message, sizeof(r->message), "interrupted by %s after the program "
		 "ended (%.400s)", name, was);
}

/* Quote LEN bytes of valid UTF-8 as a JSON string; NULs become \u0000. */
static char *json_quote(const char *s, size_t len)
{
	char *q, *o;

	if (len > (SIZE_MAX - 3) / 6)
		return NULL;
	q = malloc(len * 6 + 3);
	if (!q)
		return NULL;
	o = q;
	*o++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (c == '\t') {
			*o++ = '\\';
			*o++ = 't';
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\u%04x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = '\0';
	return q;
}

/* A measurement: negative = unknown -> null; rounded to 1 µs for tidy output. */
static cJSON *measurement(double v)
{
	if (v < 0 || !isfinite(v))
		return cJSON_CreateNull();
	v *= 1000.0;
	/* rounded by hand: a static sbx does not link libm for one round() */
	if (v < 9e15)
		v = (double)(uint64_t)(v + 0.5);
	return cJSON_CreateNumber(v / 1000.0);
}

static cJSON *clamped_json(const struct policy *p)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < p->nclamped && i < LIM_COUNT; i++) {
		const struct clamp *c = &p->clamped[i];
		cJSON *o = cJSON_CreateObject();
		if (!o || (unsigned)c->id >= LIM_COUNT ||
		    !cJSON_AddStringToObject(o, "limit", limit_names[c->id]) ||
		    !record_add(o, "requested", record_limit_value(c->requested)) ||
		    !record_add(o, "effective", record_limit_value(c->effective)) ||
		    !cJSON_AddStringToObject(o, "by", "max_limits")) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, o);
	}
	if (arr && !record_add_ulimit_clamps(arr, p)) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

static cJSON *enforced_json(const struct result *r)
{
	cJSON *o = cJSON_CreateObject();

	for (int id = 0; o && id < LIM_COUNT; id++) {
		if (!enforced_keys[id])
			continue;
		if (!cJSON_AddStringToObject(o, enforced_keys[id],
					     enforcement_name(r->enforced_by[id]))) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

static cJSON *limits_json(const struct result *r)
{
	const struct policy *p = r->policy;
	cJSON *o;

	if (!p)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	for (int id = 0; o && id < LIM_COUNT; id++) {
		if (!record_add(o, limit_names[id], record_limit_value(record_applied_limit(p, id)))) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	if (o && (!record_add(o, "clamped", clamped_json(p)) ||
		  !record_add(o, "enforced_by", enforced_json(r)))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static const char *network_name(enum net_mode n)
{
	return n == NET_HOST ? "host" : n == NET_LOOPBACK ? "loopback" : "none";
}

/* The namespaces the jail was built in: none when nothing was set up. */
static cJSON *namespaces_json(const struct result *r, const struct policy *p)
{
	static const char *const all[] = { "user", "mount", "pid", "net", "ipc", "uts", "cgroup" };
	cJSON *arr = cJSON_CreateArray();
	size_t n = r->status == ST_CONFIG_ERROR ? 0 : sizeof(all) / sizeof(all[0]);

	for (size_t i = 0; arr && i < n; i++) {
		if (p->network == NET_HOST && strcmp(all[i], "net") == 0)
			continue; /* --net host shares the host's network namespace */
		cJSON *s = cJSON_CreateString(all[i]);
		if (!s) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, s);
	}
	return arr;
}

static cJSON *isolation_json(const struct result *r)
{
	const struct policy *p = r->policy;
	cJSON *o;

	if (!p)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	/* the filter is loaded last before exec: only a run whose program
	 * started (wall_ms measured) had one; a config-error built nothing */
	if (!o || !record_add(o, "namespaces", r->jail_started ? namespaces_json(r, p)
							      : cJSON_CreateArray()) ||
	    !cJSON_AddNumberToObject(o, "uid", p->uid) ||
	    !cJSON_AddNumberToObject(o, "gid", p->gid) ||
	    !record_add(o, "host_uid", r->host_uid < 0 ? cJSON_CreateNull()
						       : cJSON_CreateNumber((double)r->host_uid)) ||
	    !record_add(o, "host_gid", r->host_gid < 0 ? cJSON_CreateNull()
						       : cJSON_CreateNumber((double)r->host_gid)) ||
	    !cJSON_AddBoolToObject(o, "seccomp", r->wall_ms >= 0) ||
	    !cJSON_AddBoolToObject(o, "cgroup", r->cgroup) ||
	    !cJSON_AddStringToObject(o, "network", network_name(p->network)) ||
	    !record_add(o, "hostname", p->hostname ? cJSON_CreateString(p->hostname)
						    : cJSON_CreateNull())) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *command_json(char **argv)
{
	cJSON *arr;

	if (!argv)
		return cJSON_CreateNull();
	arr = cJSON_CreateArray();
	for (size_t i = 0; arr && argv[i]; i++) {
		cJSON *s = cJSON_CreateString(argv[i]);
		if (!s) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, s);
	}
	return arr;
}

static bool add_captured(cJSON *o, const char *key, const char *lossy_key,
			 const struct captured *c)
{
	char *quoted = json_quote(c->text ? c->text : "", c->text ? c->len : 0);
	cJSON *raw;

	if (!quoted)
		return false;
	raw = cJSON_CreateRaw(quoted);
	free(quoted);
	return record_add(o, key, raw) && cJSON_AddBoolToObject(o, lossy_key, c->lossy);
}

static bool add_outcome(cJSON *o, const struct result *r)
{
	char sig[32];

	if (!cJSON_AddStringToObject(o, "sbx_version", SBX_VERSION) ||
	    !cJSON_AddNumberToObject(o, "schema_version", SCHEMA_VERSION) ||
	    !cJSON_AddStringToObject(o, "status", run_status_name(r->status)))
		return false;
	if (!record_add(o, "exit_code", r->has_exit_code ? cJSON_CreateNumber(r->exit_code)
							 : cJSON_CreateNull()))
		return false;
	result_signal_name(r->term_signal, sig, sizeof(sig));
	if (!record_add(o, "signal", r->term_signal > 0 ? cJSON_CreateString(sig)
							: cJSON_CreateNull()))
		return false;
	return cJSON_AddBoolToObject(o, "core_dumped", r->core_dumped) &&
	       cJSON_AddStringToObject(o, "message", r->message);
}

static bool add_measurements(cJSON *o, const struct result *r)
{
	const char *name = r->policy ? r->policy->name : NULL;
	const char *source = r->policy ? r->policy->source : NULL;

	/* the name is inherited through include: only the source shows a
	 * planted ~/.config/sbx/default.policy for what it is */
	return record_add(o, "command", command_json(r->command)) &&
	       record_add(o, "policy", name ? cJSON_CreateString(name) : cJSON_CreateNull()) &&
	       record_add(o, "policy_source", source ? cJSON_CreateString(source)
						     : cJSON_CreateNull()) &&
	       record_add(o, "wall_ms", measurement(r->wall_ms)) &&
	       cJSON_AddNumberToObject(o, "stopped_ms", r->stopped_ms) &&
	       record_add(o, "cpu_user_ms", measurement(r->cpu_user_ms)) &&
	       record_add(o, "cpu_sys_ms", measurement(r->cpu_sys_ms)) &&
	       record_add(o, "max_rss_kib", r->max_rss_kib < 0 ? cJSON_CreateNull()
						: cJSON_CreateNumber((double)r->max_rss_kib)) &&
	       record_add(o, "memory_peak_kib", r->memory_peak_kib < 0 ? cJSON_CreateNull()
				: cJSON_CreateNumber((double)r->memory_peak_kib)) &&
	       record_add(o, "processes_peak", r->processes_peak < 0 ? cJSON_CreateNull()
				: cJSON_CreateNumber((double)r->processes_peak)) &&
	       record_add(o, "forks_refused", r->forks_refused < 0 ? cJSON_CreateNull()
				: cJSON_CreateNumber((double)r->forks_refused)) &&
	       cJSON_AddNumberToObject(o, "stdout_bytes", (double)r->stdout_bytes) &&
	       cJSON_AddNumberToObject(o, "stderr_bytes", (double)r->stderr_bytes) &&
	       cJSON_AddBoolToObject(o, "output_truncated", r->output_truncated);
}

/* The compile stage's own record, minus what the outer record already says. */
static cJSON *compile_json(const struct result *c)
{
	char *text = result_to_json(c);
	cJSON *o = text ? cJSON_Parse(text) : NULL;

	free(text);
	if (!o)
		return NULL;
	cJSON_DeleteItemFromObject(o, "sbx_version");
	cJSON_DeleteItemFromObject(o, "schema_version");
	cJSON_DeleteItemFromObject(o, "isolation");
	return o;
}

/* Compiled languages: "stage" and "compile"; then the workspace's keys. */
static bool add_stages_and_files(cJSON *o, const struct result *r)
{
	if (r->stage && !cJSON_AddStringToObject(o, "stage", r->stage))
		return false;
	if (r->compile && !record_add(o, "compile", compile_json(r->compile)))
		return false;
	return record_add_files(o, r->files); /* files.c */
}

/* *S as valid UTF-8: replaced (and the old text freed) only when it is not. */
static bool repair_text(char **s, bool *lossy)
{
	size_t len = strlen(*s), n;
	char *fixed;

	if (utf8_is_valid((const unsigned char *)*s, len))
		return true;
	fixed = utf8_repair((const unsigned char *)*s, len, false, &n, lossy);
	if (!fixed)
		return false;
	free(*s); /* cJSON's default hooks: malloc/free */
	*s = fixed;
	return true;
}

/*
 * cJSON copies strings byte for byte, so invalid UTF-8 from the caller
 * (argv, -e values, file names) would make the record invalid JSON: repair
 * every key and string value in the tree.  Raw nodes (captured output) are
 * already valid (supervise/capture.c).
 */
static bool repair_strings(cJSON *node, bool *lossy)
{
	for (; node; node = node->next) {
		if (node->string && !(node->type & cJSON_StringIsConst) &&
		    !repair_text(&node->string, lossy))
			return false;
		if (cJSON_IsString(node) && node->valuestring &&
		    !repair_text(&node->valuestring, lossy))
			return false;
		if (node->child && !repair_strings(node->child, lossy))
			return false;
	}
	return true;
}

char *result_to_json(const struct result *r)
{
	cJSON *o = cJSON_CreateObject();
	char *text = NULL;
	bool lossy = false;

	if (o && add_outcome(o, r) && add_measurements(o, r) &&
	    record_add(o, "limits", limits_json(r)) &&
	    record_add(o, "isolation", isolation_json(r)) &&
	    record_add(o, "denied_syscalls", denied_json(r->denied)) &&
	    cJSON_AddBoolToObject(o, "retryable", r->status == ST_SETUP_ERROR && r->retryable) &&
	    (!r->capture || (add_captured(o, "stdout", "stdout_lossy", &r->out) &&
			     add_captured(o, "stderr", "stderr_lossy", &r->err))) &&
	    add_stages_and_files(o, r) &&
	    repair_strings(o->child, &lossy) &&
	    cJSON_AddBoolToObject(o, "strings_lossy", lossy))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* The fixed record when the full one cannot be built: right status, no
 * detail; needs no allocation. */
static int fallback_json(const struct result *r, char *buf, size_t size)
{
	char code[16] = "null";

	if (r->has_exit_code)
		snprintf(code, sizeof(code), "%d", r->exit_code);
	return snprintf(buf, size,
			"{\"sbx_version\":\"%s\",\"schema_version\":%d,\"status\":\"%s\","
			"\"exit_code\":%s,\"signal\":null,\"core_dumped\":false,"
			"\"message\":\"sbx could not build the full record (out of memory)\","
			"\"command\":null,\"policy\":null,\"policy_source\":null,\"wall_ms\":null,\"stopped_ms\":null,\"cpu_user_ms\":null,"
			"\"cpu_sys_ms\":null,\"max_rss_kib\":null,\"memory_peak_kib\":null,\"processes_peak\":null,\"forks_refused\":null,\"stdout_bytes\":null,"
			"\"stderr_bytes\":null,\"output_truncated\":%s,\"limits\":null,"
			"\"isolation\":null,\"retryable\":false,\"strings_lossy\":false}",
			SBX_VERSION, SCHEMA_VERSION, run_status_name(r->status), code,
			r->output_truncated ? "true" : "false");
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int result_emit_fd(const struct result *r, int fd)
{
	char fallback[1024];
	char *json = result_to_json(r);
	const char *text = json;
	int rc, saved;

	if (!json) {
		fallback_json(r, fallback, sizeof(fallback));
		text = fallback;
	}
	/* a forged record printed without a newline would start the record's
	 * line, and `tail -n1 | jq` would read the forgery first */
	rc = (fd == 1 || fd == 2) && r->line_open[fd] ? write_all(fd, "\n", 1) : 0;
	if (rc == 0)
		rc = write_all(fd, text, strlen(text));
	if (rc == 0)
		rc = write_all(fd, "\n", 1);
	saved = errno;
	free(json);
	errno = saved;
	return rc;
}

int result_emit(const struct result *r, const char *dest)
{
	struct sbx_err err = { 0 };
	bool close_after;
	int fd = result_open_dest(dest, &close_after, &err);
	int rc, saved;

	if (fd < 0) {
		errno = err.sys_errno;
		return -1;
	}
	rc = result_emit_fd(r, fd);
	saved = errno;
	if (close_after && close(fd) != 0 && rc == 0)
		rc = -1, saved = errno;
	errno = saved;
	return rc;
}
