/*
 * translate.c - nsjail's top-level fields and limits -> sbx policy lines.
 *
 * Each field sbx can express becomes a line that names where it came
 * from; nsjail's defaults count as written (an absent time_limit is 600 s,
 * an absent rlimit_as 4096 MiB).  Each field sbx cannot express becomes a
 * note saying what nsjail did and what sbx does instead.  Units: nsjail
 * counts seconds, MiB and bytes where sbx counts ms and MiB.
 */
#include "import/internal.h"

#include "base/ids.h"

#include <stdlib.h>
#include <string.h>

#define MIB (1024ull * 1024)

/* A field sbx has no counterpart for: a note when it is present with a
 * value other than HARMLESS (NULL: whatever its value). */
struct untranslated {
	const char *name, *harmless, *why;
};

static const struct untranslated untranslated[] = {
	{ "no_pivotroot", "false", "sbx always uses pivot_root" },
	{ "port", "0", "listen mode only; sbx has none (see 'mode')" },
	{ "bindhost", "\"::\"", "listen mode only; sbx has none (see 'mode')" },
	{ "max_conns", "0", "listen mode only; sbx has none (see 'mode')" },
	{ "max_conns_per_ip", "0", "listen mode only; sbx has none (see 'mode')" },
	{ "daemon", "false", "sbx never daemonizes; run it under your service manager" },
	{ "max_cpus", "0", "sbx does not pin CPUs; run sbx under taskset(1) or in a cpuset cgroup" },
	{ "nice_level", NULL, "sbx does not change the priority; run `nice -n N sbx run ...`" },
	{ "log_fd", NULL, "sbx logs its setup steps with -v and writes its record where --result says" },
	{ "log_file", NULL, "sbx logs its setup steps with -v and writes its record where --result says" },
	{ "log_level", NULL, "sbx logs its setup steps with -v; -q silences the record" },
	{ "keep_env", "false", "sbx passes no host variable unless env_keep names it; "
	  "add env_keep lines for the ones the program needs" },
	{ "keep_caps", "false", "sbx drops every capability (CapEff 0), always" },
	{ "cap", NULL, "sbx keeps no capability, always" },
	{ "silent", "false", "sbx relays stdout and stderr; redirect sbx's own (> /dev/null) "
	  "or use -q --stdout/--stderr" },
	{ "skip_setsid", "false", "sbx always starts a new session: a jailed program must not "
	  "reach the caller's terminal (TIOCSTI)" },
	{ "stderr_to_null", "false", "sbx relays stderr; redirect sbx's own (2> /dev/null)" },
	{ "pass_fd", NULL, "sbx passes only fds 0, 1 and 2 into the jail" },
	{ "disable_no_new_privs", "false", "sbx always sets no_new_privs" },
	{ "forward_signals", "false", "sbx ends the program with SIGTERM, then SIGKILL after "
	  "limits.kill_grace_ms" },
	{ "disable_tsc", "false", "sbx leaves rdtsc enabled" },
	{ "oom_score_adj", NULL, "sbx does not change the OOM score; it bounds memory itself (memory_mb)" },
	{ "rlimit_core", "0", "sbx always sets RLIMIT_CORE to 0 (no core dumps)" },
	{ "rlimit_core_type", NULL, "sbx always sets RLIMIT_CORE to 0 (no core dumps)" },
	{ "rlimit_memlock", NULL, "sbx sets RLIMIT_MEMLOCK to 64 KiB" },
	{ "rlimit_memlock_type", NULL, "sbx sets RLIMIT_MEMLOCK to 64 KiB" },
	{ "rlimit_rtprio", NULL, "sbx sets RLIMIT_RTPRIO to 0" },
	{ "rlimit_rtprio_type", NULL, "sbx sets RLIMIT_RTPRIO to 0" },
	{ "rlimit_msgqueue", NULL, "sbx sets RLIMIT_MSGQUEUE to 256 KiB" },
	{ "rlimit_msgqueue_type", NULL, "sbx sets RLIMIT_MSGQUEUE to 256 KiB" },
	{ "persona_addr_compat_layout", "false", "sbx allows only the default personality" },
	{ "persona_mmap_page_zero", "false", "sbx allows only the default personality" },
	{ "persona_read_implies_exec", "false", "sbx allows only the default personality" },
	{ "persona_addr_limit_3gb", "false", "sbx allows only the default personality" },
	{ "persona_addr_no_randomize", "false", "sbx allows only the default personality" },
	{ "clone_newuser", "true", "sbx always creates a user namespace" },
	{ "clone_newns", "true", "sbx always creates a mount namespace" },
	{ "clone_newpid", "true", "sbx always creates a pid namespace" },
	{ "clone_newipc", "true", "sbx always creates an ipc namespace" },
	{ "clone_newuts", "true", "sbx always creates a uts namespace" },
	{ "clone_newcgroup", "true", "sbx always creates a cgroup namespace" },
	{ "clone_newtime", "false", "sbx does not create a time namespace" },
	{ "seccomp_policy_file", NULL, "sbx does not read Kafel files; put the policy into "
	  "seccomp_string and import again (the translation uses sbx's default filter)" },
	{ "seccomp_log", "false", "sbx does not log seccomp actions to the audit log; the record "
	  "lists denied calls where it can" },
	{ "seccomp_unotify", "false", "sbx does not trace file and socket access" },
	{ "seccomp_unotify_report", NULL, "sbx does not trace file and socket access" },
	{ "use_core_scheduling", "false", "sbx does not use core scheduling" },
	{ "cgroup_mem_memsw_max", "0", "sbx has one memory limit (memory_mb); swap is not limited apart" },
	{ "cgroup_mem_swap_max", "-1", "sbx has one memory limit (memory_mb); swap is not limited apart" },
	{ "cgroup_mem_mount", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "cgroup_mem_parent", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "cgroup_pids_mount", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "cgroup_pids_parent", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "cgroup_net_cls_classid", "0", "sbx does not tag packets (net_cls)" },
	{ "cgroup_net_cls_mount", NULL, "ignored: sbx does not use net_cls" },
	{ "cgroup_net_cls_parent", NULL, "ignored: sbx does not use net_cls" },
	{ "cgroup_cpu_ms_per_sec", "0", "sbx has no CPU bandwidth limit; it bounds the CPU time "
	  "of the whole tree (cpu_time_ms)" },
	{ "cgroup_cpu_mount", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "cgroup_cpu_parent", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "cgroupv2_mount", NULL, "ignored: sbx finds the cgroup it runs in itself" },
	{ "use_cgroupv2", NULL, "ignored: sbx uses cgroup v2 when it is delegated, by itself" },
	{ "detect_cgroupv2", NULL, "ignored: sbx uses cgroup v2 when it is delegated, by itself" },
	{ "iface_own", NULL, "sbx cannot move a host interface into the jail; the jail's network "
	  "is NONE, LOOPBACK or HOST" },
	{ "macvlan_iface", NULL, "sbx has no MACVLAN; the jail's network is NONE, LOOPBACK or HOST "
	  "(network: HOST shares the host's)" },
	{ "macvlan_vs_ip", NULL, "sbx has no MACVLAN" },
	{ "macvlan_vs_nm", NULL, "sbx has no MACVLAN" },
	{ "macvlan_vs_gw", NULL, "sbx has no MACVLAN" },
	{ "macvlan_vs_ma", NULL, "sbx has no MACVLAN" },
	{ "macvlan_vs_mo", NULL, "sbx has no MACVLAN" },
	{ "traffic_rule", NULL, "sbx has no packet filter; the jail's network is all or nothing" },
	{ "user_net", NULL, "sbx has no user-mode networking (nstun, pasta); the jail keeps only "
	  "lo (network: HOST shares the host's)" },
};

static int note_untranslated(struct nj_xlate *x)
{
	const struct pvalue *top = x->top;

	for (size_t i = 0; i < top->nfields; i++) {
		const struct pfield *f = &top->fields[i];
		char buf[96];
		const char *val = nj_text(&f->value, buf, sizeof(buf));

		for (size_t k = 0; k < sizeof(untranslated) / sizeof(untranslated[0]); k++) {
			const struct untranslated *u = &untranslated[k];

			if (strcmp(u->name, f->name) != 0)
				continue;
			if (u->harmless && strcmp(u->harmless, val) == 0)
				break;
			if (nj_note(x, &f->at, "%s: %.80s: %s", f->name, val, u->why) < 0)
				return -1;
			break;
		}
	}
	return 0;
}

static int translate_mode(struct nj_xlate *x)
{
	static const char *const why[] = {
		"sbx runs one command once and has no TCP listen mode; put a socket-activation "
		"wrapper (systemd Accept=yes, inetd) in front of `sbx run --stdin -`",
		NULL,
		"sbx runs the command once; loop around `sbx run` to run it again",
		"sbx always supervises the jail (that is how it enforces limits and writes "
		"the record)",
	};
	int mode = nj_enum(x->top, "mode", nj_modes, 1);
	struct ppos at = nj_at(x, x->top, "mode");

	if (mode < 0 || mode > 3 || !why[mode])
		return 0;
	return nj_note(x, &at, "mode: %s: %s", nj_modes[mode], why[mode]);
}

static int add_string(struct nj_xlate *x, const char *field, const char *value,
		      const struct ppos *at, const char *comment)
{
	char *q = nj_quote(value);
	char *line = q ? nj_fmt(x, "%s: %s", field, q) : NULL;

	free(q);
	return comment ? nj_add(x, SECT_TOP, at, line, "%s", comment)
		       : nj_add(x, SECT_TOP, at, line, NULL);
}

/* description is repeated in nsjail, one string in sbx: joined by spaces. */
static int translate_names(struct nj_xlate *x)
{
	struct ppos at = nj_at(x, x->top, "name");
	const char *name = nj_str(x->top, "name", "");
	const char *base = strrchr(x->file, '/');
	char *desc = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!*name)
		name = base ? base + 1 : x->file;
	if (add_string(x, "name", name, &at, at.line ? NULL : "the file's name") < 0)
		return -1;
	if (!nj_nth(x->top, "description", 0))
		return 0;
	f = open_memstream(&desc, &len);
	if (!f)
		return nj_add(x, SECT_TOP, NULL, NULL, NULL);
	for (size_t i = 0; nj_nth(x->top, "description", i); i++) {
		const char *d = nj_nth(x->top, "description", i)->text;
		size_t n = strlen(d);

		while (n > 0 && d[n - 1] == ' ')
			n--;
		fprintf(f, "%s%.*s", i ? " " : "", (int)n, d);
	}
	if (fclose(f) != 0) {
		free(desc);
		return nj_add(x, SECT_TOP, NULL, NULL, NULL);
	}
	at = nj_at(x, x->top, "description");
	rc = add_string(x, "description", desc, &at, NULL);
	free(desc);
	return rc;
}

static int translate_host_cwd(struct nj_xlate *x)
{
	struct ppos at = nj_at(x, x->top, "hostname");
	const char *host = nj_str(x->top, "hostname", "NSJAIL");
	const char *cwd = nj_str(x->top, "cwd", "/");
	const char *why;
	size_t n = strlen(host);

	/* sbx's rule for a hostname (sbx.policy(5)); the loader checks it again */
	if (n < 1 || n > 64 || strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789.-") != n) {
		if (nj_note(x, &at, "hostname: \"%.80s\": sbx takes 1 to 64 characters of "
			    "A-Z a-z 0-9 . -; the jail is called \"sbx\"", host) < 0)
			return -1;
	} else if (add_string(x, "hostname", host, &at, NULL) < 0) {
		return -1;
	}
	at = nj_at(x, x->top, "cwd");
	if ((why = policy_path_problem(cwd)))
		return nj_note(x, &at, "cwd: \"%.200s\": %s; sbx starts in the workspace", cwd, why);
	return add_string(x, "cwd", cwd, &at, NULL);
}

/* nsjail's inside id: a name (from this host's /etc/passwd or /etc/group,
 * as nsjail resolves it on its host), a number, or "" for the caller's own
 * id. -1 when it cannot be used. */
static long inside_id(const char *s, bool gid)
{
	char *end;
	long v;
	uid_t u;
	gid_t g;

	if (!*s)
		return -1;
	if (!gid && ids_user_uid(s, &u))
		return (long)u;
	if (gid && ids_group_gid(s, &g))
		return (long)g;
	v = strtol(s, &end, 10);
	return *end || end == s || v < 0 || v > 65535 ? -1 : v;
}

static int translate_idmap(struct nj_xlate *x, const char *field, const char *sbx_field)
{
	const struct pvalue *m = nj_nth(x->top, field, 0);
	const char *in = m ? nj_str(m, "inside_id", "") : "";
	struct ppos at = m ? m->at : (struct ppos){ x->file, 0, 0 };
	long id = inside_id(in, sbx_field[0] == 'g');

	if (m && (*nj_str(m, "outside_id", "") || nj_bool(m, "use_newidmap", false)) &&
	    nj_note(x, &at, "%s: outside_id \"%.40s\": sbx maps the jail's id to the caller's "
		    "(run by root: to an id of its own for each run)", field,
		    nj_str(m, "outside_id", "")) < 0)
		return -1;
	if (m && nj_uint(m, "count", 1) > 1 &&
	    nj_note(x, &at, "%s: count %llu: sbx maps one id", field,
		    (unsigned long long)nj_uint(m, "count", 1)) < 0)
		return -1;
	if (nj_nth(x->top, field, 1) &&
	    nj_note(x, &nj_nth(x->top, field, 1)->at, "%s: sbx maps one id; only the first "
		    "%s is translated", field, field) < 0)
		return -1;
	if (id >= 0 && (in[0] < '0' || in[0] > '9'))
		return nj_add(x, SECT_TOP, &at, nj_fmt(x, "%s: %ld", sbx_field, id),
			      "inside_id \"%s\" on this host", in);
	if (id >= 0)
		return nj_add(x, SECT_TOP, &at, nj_fmt(x, "%s: %ld", sbx_field, id), NULL);
	if (*in)
		return nj_note(x, &at, "%s: inside_id \"%.40s\" is no name on this host and no id "
			       "from 0 to 65535; sbx uses %s 65534", field, in, sbx_field);
	return nj_note(x, &at, "%s: nsjail ran the program with the caller's own %s; sbx uses "
		       "65534 (nobody): set '%s' to change it", field, sbx_field, sbx_field);
}

static int translate_network(struct nj_xlate *x)
{
	struct ppos at = nj_at(x, x->top, "clone_newnet");

	if (!nj_bool(x->top, "clone_newnet", true))
		return nj_add(x, SECT_TOP, &at, nj_fmt(x, "network: HOST"),
			      "clone_newnet false: the host's network");
	if (nj_bool(x->top, "iface_no_lo", false)) {
		at = nj_at(x, x->top, "iface_no_lo");
		return nj_add(x, SECT_TOP, &at, nj_fmt(x, "network: NONE"),
			      "iface_no_lo: a network namespace with lo down");
	}
	return nj_add(x, SECT_TOP, &at, nj_fmt(x, "network: LOOPBACK"),
		      "clone_newnet (default true): a network namespace with lo up");
}

/* envar "NAME=VALUE" sets, envar "NAME" passes the host's value. */
static int translate_env(struct nj_xlate *x)
{
	const struct pvalue *v;

	for (size_t i = 0; (v = nj_nth(x->top, "envar", i)); i++) {
		const char *eq = strchr(v->text, '=');
		size_t n = eq ? (size_t)(eq - v->text) : strlen(v->text);
		char *q = nj_quote(v->text);
		int rc;

		if (!env_name_valid(v->text, n))
			rc = nj_note(x, &v->at, "envar: \"%.80s\": sbx takes variable names of "
				     "[A-Za-z_][A-Za-z0-9_]* only", v->text);
		else
			rc = nj_add(x, SECT_ENV, &v->at,
				    q ? nj_fmt(x, "%s: %s", eq ? "env" : "env_keep", q) : NULL,
				    NULL);
		free(q);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* exec_bin { path arg arg0 }: the command, kept for `-p nsjail:FILE`. */
static int translate_exec(struct nj_xlate *x)
{
	const struct pvalue *e = nj_get(x->top, "exec_bin"), *a;
	size_t n = 1;

	if (!e)
		return 0;
	while (nj_nth(e, "arg", n - 1))
		n++;
	x->argv = calloc(n + 1, sizeof(char *));
	if (!x->argv || !(x->argv[0] = strdup(nj_str(e, "path", ""))))
		return nj_add(x, SECT_TOP, NULL, NULL, NULL);
	for (size_t i = 0; (a = nj_nth(e, "arg", i)); i++)
		if (!(x->argv[i + 1] = strdup(a->text)))
			return nj_add(x, SECT_TOP, NULL, NULL, NULL);
	if (nj_get(e, "arg0")) {
		struct ppos at = nj_at(x, e, "arg0");

		if (nj_note(x, &at, "exec_bin.arg0: sbx runs the program with argv[0] = its path") < 0)
			return -1;
	}
	if (nj_bool(e, "exec_fd", false)) {
		struct ppos at = nj_at(x, e, "exec_fd");

		return nj_note(x, &at, "exec_bin.exec_fd: sbx executes the path inside the jail");
	}
	return 0;
}

int nj_translate_top(struct nj_xlate *x)
{
	if (translate_names(x) < 0 || translate_host_cwd(x) < 0 ||
	    translate_idmap(x, "uidmap", "uid") < 0 || translate_idmap(x, "gidmap", "gid") < 0 ||
	    translate_network(x) < 0 || translate_env(x) < 0 || translate_exec(x) < 0 ||
	    translate_mode(x) < 0)
		return -1;
	return note_untranslated(x);
}
