/*
 * langs.c - `sbx langs [--json]`: the language presets and whether this host
 * has their runtime.
 *
 * Presets are the built-in policies plus $XDG_CONFIG_HOME/sbx/NAME.policy and
 * /etc/sbx/NAME.policy that have a lang block (run by root, from the
 * directories policy/trust.h trusts); a user file overrides a
 * built-in of the same name (XDG > /etc > built-in).  The runtime is the
 * first word of lang.compile (else lang.run); "available" says the host has
 * it, and "version" is the first line lang.version prints when it is run
 * in the preset's own jail (null when that fails).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ids.h"
#include "base/argv.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "lang/installed.h"
#include "jail/uidrange.h"
#include "lang/lang.h"
#include "policy/policy.h"
#include "record/result.h"
#include "supervise/supervise.h"

/* The version probe: a runtime that needs longer is reported as unknown. */
#define PROBE_WALL_MS 5000
#define PROBE_OUTPUT_BYTES 65536

static bool runtime_found(const char *bin)
{
	return bin && bin[0] == '/' && lang_host_has(bin);
}

/* ---- the version, probed in the preset's own jail ---------------------- */

/* P's env entries as a NULL-terminated allocated array (argv_free). */
static char **policy_env(const struct policy *p)
{
	struct argv_builder b = { 0 };
	struct sbx_err ignored;

	for (size_t i = 0; i < p->env.n; i++)
		if (argv_push(&b, strdup(p->env.v[i]), &ignored) < 0) {
			argv_free(b.v);
			return NULL;
		}
	return argv_finish(&b, &ignored);
}

/* The first non-empty line of TEXT, trimmed, allocated. */
static char *first_line(const char *text)
{
	while (text && *text) {
		size_t skip = strspn(text, " \t\r\n");
		size_t len;

		text += skip;
		len = strcspn(text, "\r\n");
		while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
			len--;
		if (len)
			return strndup(text, len);
	}
	return NULL;
}

/*
 * Run P's lang.version in a jail (capture mode, short limits) and return
 * the first non-empty line it printed, allocated; NULL when it failed.
 */
static char *probe_version(const struct policy *p)
{
	struct policy probe = *p;
	struct run_request req = { .policy = &probe, .capture = true, .workspace_fd = -1,
				     .workdir_fd = -1 };
	struct uid_lease lease = { .fd = -1 };
	struct result res;
	struct sbx_err err = { 0 };
	char **argv = NULL, *version = NULL;

	if (p->lang.version.n == 0)
		return NULL;
	probe.limits.v[LIM_WALL_TIME_MS] = PROBE_WALL_MS;
	probe.limits.v[LIM_OUTPUT_BYTES] = PROBE_OUTPUT_BYTES;
	if (lang_expand(p, &p->lang.version, "lang.version", "version", NULL, 0,
			&argv, &err) < 0)
		return NULL;
	req.argv = argv;
	req.envp = policy_env(p);
	result_init(&res);
	/* run by root, the probe is a jail like any other: a uid of its own */
	if (ids_host_root() && uidrange_acquire(&lease, &err) == 0) {
		req.host_uid = lease.uid;
		req.host_gid = lease.gid;
	}
	if (req.envp && supervise_run(&req, &res, &err) == 0 && res.status == ST_OK) {
		version = first_line(res.out.text);
		if (!version)
			version = first_line(res.err.text);
	}
	result_free(&res);
	uidrange_release(&lease);
	argv_free(argv);
	argv_free(req.envp);
	return version;
}

/* The version, probed in a jail only when the host has the runtime. */
static char *version_of(const struct policy *p, bool available)
{
	return available ? probe_version(p) : NULL;
}

/* ---- the listing -------------------------------------------------------- */

static void print_row(const struct lang_preset *ps, const struct policy *p)
{
	char exts[128] = "";
	const char *bin = lang_runtime(p);
	bool here = runtime_found(bin);
	char *version = version_of(p, here);

	for (size_t i = 0; i < p->lang.extensions.n; i++) {
		size_t len = strlen(exts);
		snprintf(exts + len, sizeof(exts) - len, "%s%s", i ? "," : "",
			 p->lang.extensions.v[i]);
	}
	printf("%-8s %-14s %-20s %-4s %-28.28s %s\n", ps->name, *exts ? exts : "-",
	       bin ? bin : "-", here ? "yes" : "no",
	       version ? version : (here ? "?" : "not installed"),
	       ps->path ? ps->path : "builtin");
	free(version);
}

static cJSON *row_json(const struct lang_preset *ps, const struct policy *p)
{
	cJSON *o = cJSON_CreateObject(), *exts = cJSON_CreateArray();
	const char *bin = lang_runtime(p);
	bool here = runtime_found(bin);
	char *version = version_of(p, here);
	bool ok;

	if (!o || !exts) {
		cJSON_Delete(o);
		cJSON_Delete(exts);
		free(version);
		return NULL;
	}
	cJSON_AddItemToObject(o, "extensions", exts);
	for (size_t i = 0; i < p->lang.extensions.n; i++)
		cJSON_AddItemToArray(exts, cJSON_CreateString(p->lang.extensions.v[i]));
	ok = cJSON_AddStringToObject(o, "name", ps->name) &&
	     (bin ? cJSON_AddStringToObject(o, "runtime", bin)
		  : cJSON_AddNullToObject(o, "runtime")) &&
	     cJSON_AddBoolToObject(o, "available", here) &&
	     (version ? cJSON_AddStringToObject(o, "version", version)
		      : cJSON_AddNullToObject(o, "version")) &&
	     cJSON_AddBoolToObject(o, "compiled", p->lang.compile.n > 0) &&
	     cJSON_AddStringToObject(o, "origin", ps->path ? ps->path : "builtin");
	free(version);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Load each preset; list the ones with a lang block.  Returns failures. */
static int list_presets(const struct lang_preset_list *l, cJSON *array)
{
	int failed = 0;

	if (!array)
		printf("%-8s %-14s %-20s %-4s %-28s %s\n", "NAME", "EXTENSIONS",
		       "RUNTIME", "HERE", "VERSION", "ORIGIN");
	for (size_t i = 0; i < l->n; i++) {
		const struct lang_preset *ps = &l->v[i];
		struct policy p;
		struct sbx_err err = { 0 };

		if (policy_load(ps->path ? ps->path : ps->name, &p, &err) < 0) {
			err_print(stderr, "sbx: langs: ", err.msg);
			failed++;
			continue;
		}
		if (p.lang.present && array) {
			cJSON *row = row_json(ps, &p);
			if (!row || !cJSON_AddItemToArray(array, row))
				failed++;
		} else if (p.lang.present) {
			print_row(ps, &p);
		}
		policy_free(&p);
	}
	return failed;
}

static int print_json(const struct lang_preset_list *l)
{
	cJSON *array = cJSON_CreateArray();
	char *text;
	int failed;

	if (!array)
		return 1;
	failed = list_presets(l, array);
	text = cJSON_PrintUnformatted(array);
	cJSON_Delete(array);
	if (!text)
		return failed + 1;
	puts(text);
	free(text);
	return failed;
}

int cmd_langs(int argc, char **argv)
{
	struct lang_preset_list l = { 0 };
	bool json = false;
	int failed;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help_print_command("langs", stdout);
			return 0;
		} else {
			fprintf(stderr, "sbx: langs: unknown argument '%s' (usage: sbx langs [--json])\n",
				argv[i]);
			return 125;
		}
	}
	if (lang_presets_collect(&l) < 0) {
		fprintf(stderr, "sbx: langs: out of memory\n");
		failed = 1;
	} else {
		failed = json ? print_json(&l) : list_presets(&l, NULL);
	}
	lang_presets_free(&l);
	if (fflush(stdout) != 0)
		failed++;
	return failed ? 125 : 0;
}
