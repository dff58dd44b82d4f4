/*
 * schema.c - nsjail's config.proto (nsjail.NsJailConfig) as a table, and
 * the check of a parsed tree against it.
 *
 * Written from google/nsjail's config.proto: every field name, type and
 * enum of NsJailConfig and the messages it holds.  The check is what
 * protobuf's own text parser would refuse: unknown fields, wrong types,
 * unknown enum values, out-of-range numbers, a non-repeated field given
 * twice, a required field missing.  A config nsjail would not load is
 * not translated; the error names FILE:LINE:COL.
 */
#include "import/internal.h"

#include <string.h>

#define F(n, t) { n, t, false, false, NULL, NULL }
#define R(n, t) { n, t, true, false, NULL, NULL }
#define REQ(n, t) { n, t, false, true, NULL, NULL }
#define E(n, e) { n, NJ_ENUM, false, false, e, NULL }
#define M(n, m) { n, NJ_MSG, false, false, NULL, &m }
#define RM(n, m) { n, NJ_MSG, true, false, NULL, &m }
#define RE(n, e) { n, NJ_ENUM, true, false, e, NULL }
#define MSG(var, name, table) \
	static const struct nj_msg var = { name, table, sizeof(table) / sizeof(table[0]) }

const char *const nj_modes[] = { "LISTEN", "ONCE", "RERUN", "EXECVE", NULL };
const char *const nj_rlimit_types[] = { "VALUE", "SOFT", "HARD", "INF", NULL };
static const char *const log_levels[] = { "DEBUG", "INFO", "WARNING", "ERROR", "FATAL", NULL };
static const char *const traffic_actions[] = { "UNKNOWN_ACTION", "DROP", "REJECT", "ALLOW", NULL };
static const char *const ip_families[] = { "IPV4", "IPV6", NULL };
static const char *const traffic_protos[] = { "UNKNOWN_PROTO", "TCP", "UDP", "ICMP", "ICMPV6", NULL };
static const char *const backends[] = { "NSTUN", "PASTA", NULL };
static const char *const directions[] = { "GUEST_TO_HOST", "HOST_TO_GUEST", NULL };
static const char *const nstun_actions[] = { "DROP", "REJECT", "ALLOW", "REDIRECT",
					     "ENCAP_SOCKS5", "ENCAP_CONNECT", NULL };
static const char *const nstun_protos[] = { "ANY", "TCP", "UDP", "ICMP", NULL };

static const struct nj_field idmap_fields[] = {
	F("inside_id", NJ_STRING), F("outside_id", NJ_STRING), F("count", NJ_U32),
	F("use_newidmap", NJ_BOOL),
};
MSG(idmap, "IdMap", idmap_fields);

static const struct nj_field mount_fields[] = {
	F("src", NJ_STRING), F("prefix_src_env", NJ_STRING), F("src_content", NJ_BYTES),
	REQ("dst", NJ_STRING), F("prefix_dst_env", NJ_STRING), F("fstype", NJ_STRING),
	F("options", NJ_STRING), F("is_bind", NJ_BOOL), F("rw", NJ_BOOL),
	F("is_dir", NJ_BOOL), F("mandatory", NJ_BOOL), F("is_symlink", NJ_BOOL),
	F("nosuid", NJ_BOOL), F("nodev", NJ_BOOL), F("noexec", NJ_BOOL),
};
MSG(mountpt, "MountPt", mount_fields);

static const struct nj_field exe_fields[] = {
	REQ("path", NJ_STRING), R("arg", NJ_STRING), F("arg0", NJ_STRING),
	F("exec_fd", NJ_BOOL),
};
MSG(exe, "Exe", exe_fields);

static const struct nj_field traffic_fields[] = {
	F("src_ip", NJ_STRING), F("dst_ip", NJ_STRING), F("iif", NJ_STRING),
	F("oif", NJ_STRING), E("proto", traffic_protos), F("sport", NJ_U32),
	F("dport", NJ_U32), F("sport_end", NJ_U32), F("dport_end", NJ_U32),
	E("action", traffic_actions), E("ip_family", ip_families),
};
MSG(traffic_rule, "TrafficRule", traffic_fields);

static const struct nj_field pasta_fields[] = {
	F("nat", NJ_BOOL), F("enable_tcp", NJ_BOOL), F("enable_udp", NJ_BOOL),
	F("enable_icmp", NJ_BOOL), F("ip4_enabled", NJ_BOOL), F("mask4", NJ_STRING),
	F("enable_ip4_dhcp", NJ_BOOL), F("ip6_enabled", NJ_BOOL), F("mask6", NJ_STRING),
	F("enable_ip6_dhcp", NJ_BOOL), F("enable_ip6_ra", NJ_BOOL), F("enable_dns", NJ_BOOL),
	F("dns_forward", NJ_STRING), F("map_gw", NJ_BOOL), F("tcp_map_in", NJ_STRING),
	F("udp_map_in", NJ_STRING), F("tcp_map_out", NJ_STRING), F("udp_map_out", NJ_STRING),
};
MSG(pasta, "Pasta", pasta_fields);

static const struct nj_field nstun_fields[] = {
	E("direction", directions), E("action", nstun_actions), E("proto", nstun_protos),
	F("src_ip", NJ_STRING), F("sport", NJ_U32), F("sport_end", NJ_U32),
	F("dst_ip", NJ_STRING), F("dport", NJ_U32), F("dport_end", NJ_U32),
	F("redirect_ip", NJ_STRING), F("redirect_port", NJ_U32),
};
MSG(nstun_rule, "NstunRule", nstun_fields);

static const struct nj_field user_net_fields[] = {
	E("backend", backends), M("pasta", pasta), RM("rule4", nstun_rule),
	RM("rule6", nstun_rule), F("ip4", NJ_STRING), F("gw4", NJ_STRING),
	F("ip6", NJ_STRING), F("gw6", NJ_STRING), F("ns_iface", NJ_STRING),
};
MSG(user_net, "UserNet", user_net_fields);

static const struct nj_field config_fields[] = {
	F("name", NJ_STRING), R("description", NJ_STRING), E("mode", nj_modes),
	F("hostname", NJ_STRING), F("cwd", NJ_STRING), F("no_pivotroot", NJ_BOOL),
	F("port", NJ_U32), F("bindhost", NJ_STRING), F("max_conns", NJ_U32),
	F("max_conns_per_ip", NJ_U32), F("time_limit", NJ_U32), F("daemon", NJ_BOOL),
	F("max_cpus", NJ_U32), F("nice_level", NJ_I32), F("log_fd", NJ_I32),
	F("log_file", NJ_STRING), E("log_level", log_levels), F("keep_env", NJ_BOOL),
	R("envar", NJ_STRING), F("keep_caps", NJ_BOOL), R("cap", NJ_STRING),
	F("silent", NJ_BOOL), F("skip_setsid", NJ_BOOL), F("stderr_to_null", NJ_BOOL),
	R("pass_fd", NJ_I32), F("disable_no_new_privs", NJ_BOOL),
	F("forward_signals", NJ_BOOL), F("disable_tsc", NJ_BOOL),
	F("oom_score_adj", NJ_I32),
	F("rlimit_as", NJ_U64), E("rlimit_as_type", nj_rlimit_types),
	F("rlimit_core", NJ_U64), E("rlimit_core_type", nj_rlimit_types),
	F("rlimit_cpu", NJ_U64), E("rlimit_cpu_type", nj_rlimit_types),
	F("rlimit_fsize", NJ_U64), E("rlimit_fsize_type", nj_rlimit_types),
	F("rlimit_nofile", NJ_U64), E("rlimit_nofile_type", nj_rlimit_types),
	F("rlimit_nproc", NJ_U64), E("rlimit_nproc_type", nj_rlimit_types),
	F("rlimit_stack", NJ_U64), E("rlimit_stack_type", nj_rlimit_types),
	F("rlimit_memlock", NJ_U64), E("rlimit_memlock_type", nj_rlimit_types),
	F("rlimit_rtprio", NJ_U64), E("rlimit_rtprio_type", nj_rlimit_types),
	F("rlimit_msgqueue", NJ_U64), E("rlimit_msgqueue_type", nj_rlimit_types),
	F("disable_rl", NJ_BOOL),
	F("persona_addr_compat_layout", NJ_BOOL), F("persona_mmap_page_zero", NJ_BOOL),
	F("persona_read_implies_exec", NJ_BOOL), F("persona_addr_limit_3gb", NJ_BOOL),
	F("persona_addr_no_randomize", NJ_BOOL),
	F("clone_newnet", NJ_BOOL), F("clone_newuser", NJ_BOOL), F("clone_newns", NJ_BOOL),
	F("clone_newpid", NJ_BOOL), F("clone_newipc", NJ_BOOL), F("clone_newuts", NJ_BOOL),
	F("clone_newcgroup", NJ_BOOL), F("clone_newtime", NJ_BOOL),
	RM("uidmap", idmap), RM("gidmap", idmap), F("mount_proc", NJ_BOOL),
	RM("mount", mountpt), F("seccomp_policy_file", NJ_STRING),
	R("seccomp_string", NJ_STRING), F("seccomp_log", NJ_BOOL),
	F("seccomp_unotify", NJ_BOOL), F("seccomp_unotify_report", NJ_STRING),
	F("use_core_scheduling", NJ_BOOL),
	F("cgroup_mem_max", NJ_U64), F("cgroup_mem_memsw_max", NJ_U64),
	F("cgroup_mem_swap_max", NJ_I64), F("cgroup_mem_mount", NJ_STRING),
	F("cgroup_mem_parent", NJ_STRING), F("cgroup_pids_max", NJ_U64),
	F("cgroup_pids_mount", NJ_STRING), F("cgroup_pids_parent", NJ_STRING),
	F("cgroup_net_cls_classid", NJ_U32), F("cgroup_net_cls_mount", NJ_STRING),
	F("cgroup_net_cls_parent", NJ_STRING), F("cgroup_cpu_ms_per_sec", NJ_U32),
	F("cgroup_cpu_mount", NJ_STRING), F("cgroup_cpu_parent", NJ_STRING),
	F("cgroupv2_mount", NJ_STRING), F("use_cgroupv2", NJ_BOOL),
	F("detect_cgroupv2", NJ_BOOL), F("iface_no_lo", NJ_BOOL), R("iface_own", NJ_STRING),
	F("macvlan_iface", NJ_STRING), F("macvlan_vs_ip", NJ_STRING),
	F("macvlan_vs_nm", NJ_STRING), F("macvlan_vs_gw", NJ_STRING),
	F("macvlan_vs_ma", NJ_STRING), F("macvlan_vs_mo", NJ_STRING),
	RM("traffic_rule", traffic_rule), M("user_net", user_net), M("exec_bin", exe),
};
const struct nj_msg nj_config = { "NsJailConfig", config_fields,
				  sizeof(config_fields) / sizeof(config_fields[0]) };

static const struct nj_field *find_field(const struct nj_msg *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->fields[i].name, name) == 0)
			return &d->fields[i];
	return NULL;
}

static int unknown(const struct pfield *f, const struct nj_msg *d, struct sbx_err *err)
{
	const char *names[sizeof(config_fields) / sizeof(config_fields[0])];
	const char *hint;

	for (size_t i = 0; i < d->n; i++)
		names[i] = d->fields[i].name;
	hint = err_suggest(f->name, names, d->n);
	if (hint)
		return perr(err, &f->at, "unknown field '%.80s' in nsjail's %s (did you mean '%s'?)",
			    f->name, d->name, hint);
	return perr(err, &f->at, "unknown field '%.80s' in nsjail's %s (see nsjail's config.proto)",
		    f->name, d->name);
}

static const char *type_name(const struct nj_field *fd)
{
	static const char *const names[] = {
		[NJ_STRING] = "a string", [NJ_BYTES] = "a string", [NJ_BOOL] = "true or false",
		[NJ_U32] = "an integer", [NJ_I32] = "an integer", [NJ_U64] = "an integer",
		[NJ_I64] = "an integer", [NJ_ENUM] = "an enum name", [NJ_MSG] = "a message { ... }",
	};
	return names[fd->type];
}

static int wrong(const struct pvalue *v, const struct nj_field *fd, struct sbx_err *err)
{
	return perr(err, &v->at, "'%s' expects %s", fd->name, type_name(fd));
}

static bool is_bool(const struct pvalue *v)
{
	static const char *const words[] = { "true", "false", "True", "False", "t", "f" };

	if (v->kind == PV_NUMBER)
		return v->is_int && !v->negative && v->num <= 1;
	if (v->kind != PV_IDENT)
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(v->text, words[i]) == 0)
			return true;
	return false;
}

static int check_int(const struct pvalue *v, const struct nj_field *fd, struct sbx_err *err)
{
	uint64_t max = fd->type == NJ_U32 ? UINT32_MAX : fd->type == NJ_I32 ? INT32_MAX
		     : fd->type == NJ_I64 ? (uint64_t)INT64_MAX : UINT64_MAX;
	bool is_signed = fd->type == NJ_I32 || fd->type == NJ_I64;

	if (v->kind != PV_NUMBER || !v->is_int)
		return wrong(v, fd, err);
	if (v->negative && !is_signed && v->num != 0)
		return perr(err, &v->at, "'%s' cannot be negative, got %s", fd->name, v->text);
	/* the most negative value is one further than the most positive */
	if (v->num > max + (v->negative ? 1 : 0))
		return perr(err, &v->at, "'%s' is out of range, got %s", fd->name, v->text);
	return 0;
}

static int check_enum(const struct pvalue *v, const struct nj_field *fd, struct sbx_err *err)
{
	size_t n = 0;

	while (fd->enums[n])
		n++;
	if (v->kind == PV_NUMBER && v->is_int && !v->negative && v->num < n)
		return 0;
	if (v->kind == PV_IDENT)
		for (size_t i = 0; i < n; i++)
			if (strcmp(v->text, fd->enums[i]) == 0)
				return 0;
	if (v->kind == PV_IDENT || v->kind == PV_NUMBER) {
		const char *hint = v->kind == PV_IDENT ? err_suggest(v->text, fd->enums, n) : NULL;

		return perr(err, &v->at, "'%s': unknown value '%.80s'%s%s%s", fd->name, v->text,
			    hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	}
	return wrong(v, fd, err);
}

static int check_value(const struct pvalue *v, const struct nj_field *fd, struct sbx_err *err)
{
	switch (fd->type) {
	case NJ_STRING:
	case NJ_BYTES:
		return v->kind == PV_STRING ? 0 : wrong(v, fd, err);
	case NJ_BOOL:
		return is_bool(v) ? 0 : wrong(v, fd, err);
	case NJ_ENUM:
		return check_enum(v, fd, err);
	case NJ_MSG:
		return v->kind == PV_MESSAGE ? nj_check(v, fd->msg, err) : wrong(v, fd, err);
	default:
		return check_int(v, fd, err);
	}
}

static int check_field(const struct pvalue *msg, size_t i, const struct nj_field *fd,
		       struct sbx_err *err)
{
	const struct pfield *f = &msg->fields[i];

	if (f->value.kind == PV_LIST) {
		if (!fd->repeated)
			return perr(err, &f->value.at, "'%s' is not a repeated field: a list "
				    "[...] cannot go here", fd->name);
		for (size_t k = 0; k < f->value.nitems; k++)
			if (check_value(&f->value.items[k], fd, err) < 0)
				return -1;
		return 0;
	}
	/* protobuf refuses a second value for a non-repeated field */
	for (size_t k = 0; !fd->repeated && k < i; k++)
		if (strcmp(msg->fields[k].name, f->name) == 0)
			return perr(err, &f->at, "'%s' is set twice (first at line %d); it is "
				    "not a repeated field", f->name, msg->fields[k].at.line);
	return check_value(&f->value, fd, err);
}

int nj_check(const struct pvalue *msg, const struct nj_msg *d, struct sbx_err *err)
{
	for (size_t i = 0; i < msg->nfields; i++) {
		const struct nj_field *fd = find_field(d, msg->fields[i].name);

		if (!fd)
			return unknown(&msg->fields[i], d, err);
		if (check_field(msg, i, fd, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < d->n; i++)
		if (d->fields[i].required && !nj_get(msg, d->fields[i].name))
			return perr(err, &msg->at, "%s needs '%s'", d->name, d->fields[i].name);
	return 0;
}
