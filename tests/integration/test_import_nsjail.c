/*
 * test_import_nsjail.c - nsjail configs through the real sbx:
 * `sbx import nsjail` writes policies that `sbx check` accepts, and a
 * program run with `-p nsjail:FILE` sees the mounts, ids, limits and
 * network the config asked for.  Hostile configs fail cleanly: exit 125
 * and one line naming FILE:LINE:COL.
 */
#include "common.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The system directories a shell needs, as an nsjail service binds them. */
#define SYSTEM_MOUNTS                                                             \
	"mount { src: \"/usr\" dst: \"/usr\" is_bind: true }\n"                    \
	"mount { src: \"/bin\" dst: \"/bin\" is_bind: true }\n"                    \
	"mount { src: \"/lib\" dst: \"/lib\" is_bind: true }\n"                    \
	"mount { src: \"/lib64\" dst: \"/lib64\" is_bind: true mandatory: false }\n" \
	"mount { dst: \"/proc\" fstype: \"proc\" }\n"

static char *write_cfg(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0644);
	chmod(dir, 0755);
	return path;
}

/* Every config under tests/nsjail/ imports, and sbx check accepts the result. */
Test(import_nsjail, every_sample_config_imports_and_passes_check)
{
	const char *names[] = { "interpreter-service.cfg", "all-fields.cfg",
				"kafel-define.cfg" };
	char *dir = make_temp_dir();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *cfg = xasprintf("%s/tests/nsjail/%s", src_dir(), names[i]);
		char *out = xasprintf("%s/%zu.policy", dir, i);
		struct sbx_result r;

		sbx_run(&r, &(struct sbx_opts){ .no_record = true },
			SBX_ARGV("import", "nsjail", cfg, "-o", out));
		cr_expect_eq(r.exit_status, 0, "%s: exit %d: %s", names[i], r.exit_status, r.err);
		cr_expect(strstr(r.err, "not translated"), "%s", r.err);
		sbx_result_free(&r);
		sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("check", out));
		cr_expect_eq(r.exit_status, 0, "%s: sbx check: %s", names[i], r.err);
		sbx_result_free(&r);
		free(cfg);
		free(out);
	}
	rm_tree(dir);
	free(dir);
}

Test(import_nsjail, import_prints_the_policy_on_stdout)
{
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "a.cfg", "time_limit: 3\nhostname: \"h\"\n");
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("import", "nsjail", cfg));
	cr_expect_eq(r.exit_status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "wall_time_ms: 3000"), "%s", r.out);
	cr_expect(strstr(r.out, "hostname: \"h\""), "%s", r.out);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
}

/* The program sees what the config asked for: mounts, ids, hostname, env,
 * limits, and nothing else of the host. */
Test(import_nsjail, a_probe_sees_the_configs_mounts_ids_and_limits)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "svc.cfg",
		"hostname: \"svc-box\"\ncwd: \"/tmp\"\ntime_limit: 20\nrlimit_nofile: 40\n"
		"rlimit_fsize: 2\nrlimit_as: 300\ncgroup_pids_max: 12\nkeep_caps: true\n"
		"uidmap { inside_id: \"1234\" }\ngidmap { inside_id: \"4321\" }\n"
		"envar: \"GREETING=hi\"\nenvar: \"PATH=/usr/bin:/bin\"\n" SYSTEM_MOUNTS
		"mount { dst: \"/tmp\" fstype: \"tmpfs\" options: \"size=4m\" rw: true }\n"
		"mount { src: \"/dev/null\" dst: \"/dev/null\" is_bind: true rw: true }\n"
		"mount { src: \"/dev/urandom\" dst: \"/dev/urandom\" is_bind: true }\n");
	char *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;

	sbx_run_sh(&r, NULL, SBX_ARGV("-p", p),
		   "echo uid=$(id -u) gid=$(id -g) host=$(cat /proc/sys/kernel/hostname) "
		   "cwd=$(pwd) env=$GREETING nofile=$(ulimit -n); "
		   "touch /usr/x 2>/dev/null && echo usr-writable; "
		   "echo x > /tmp/t && echo tmp-writable; "
		   "test -e /home || echo no-home; ls /dev | tr '\\n' ' '; echo; "
		   "head -c 8 /dev/urandom | wc -c; echo > /dev/null && echo null-ok");
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "uid=1234 gid=4321 host=svc-box cwd=/tmp env=hi nofile=40");
	cr_expect(!strstr(r.out, "usr-writable"), "%s", r.out);
	assert_has_line(r.out, "tmp-writable");
	assert_has_line(r.out, "no-home");
	assert_has_line(r.out, "8");
	assert_has_line(r.out, "null-ok");
	cr_expect(strstr(r.out, "null") && strstr(r.out, "urandom") && !strstr(r.out, "tty"),
		  "%s", r.out);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r.record, "isolation"),
					 "uid")->valuedouble, 1234);
	cr_expect(strstr(r.err, "sbx: warning: "), "warnings on stderr: %s", r.err);
	cr_expect(strstr(r.err, "keep_caps") && strstr(strstr(r.err, "keep_caps") + 1,
							 "keep_caps") == NULL,
		  "the keep_caps warning once: %s", r.err);
	cJSON *lim = cJSON_GetObjectItem(r.record, "limits");
	cr_assert_not_null(lim);
	cr_expect_eq(cJSON_GetObjectItem(lim, "wall_time_ms")->valuedouble, 20000);
	cr_expect_eq(cJSON_GetObjectItem(lim, "open_files")->valuedouble, 40);
	cr_expect_eq(cJSON_GetObjectItem(lim, "file_size_mb")->valuedouble, 2);
	cr_expect_eq(cJSON_GetObjectItem(lim, "memory_mb")->valuedouble, 300);
	cr_expect_eq(cJSON_GetObjectItem(lim, "processes")->valuedouble, 12);
	cr_expect_str_eq(rec_str(&r, "policy_source"), p);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(p);
}

/* nsjail's time_limit is enforced as sbx's wall limit. */
Test(import_nsjail, time_limit_stops_the_program)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "t.cfg", "time_limit: 1\n" SYSTEM_MOUNTS);
	char *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;

	sbx_run_sh(&r, NULL, SBX_ARGV("-p", p), "sleep 30");
	ASSERT_STATUS(&r, "timeout");
	cr_expect_eq(r.exit_status, 124);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(p);
}

static const char *network_of(const char *cfg_text, char *dir)
{
	static char mode[32];
	char *cfg = write_cfg(dir, "n.cfg", cfg_text);
	char *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;
	cJSON *iso;

	sbx_run_sh(&r, NULL, SBX_ARGV("-p", p), "cat /proc/net/dev | tail -n +3 | cut -d: -f1");
	ASSERT_STATUS(&r, "ok");
	iso = cJSON_GetObjectItem(r.record, "isolation");
	snprintf(mode, sizeof(mode), "%s",
		 iso && cJSON_GetObjectItem(iso, "network") ?
		 cJSON_GetObjectItem(iso, "network")->valuestring : "?");
	if (strcmp(mode, "host") != 0)
		cr_expect(strstr(r.out, "lo") && !strstr(r.out, "eth"), "only lo: %s", r.out);
	sbx_result_free(&r);
	free(cfg);
	free(p);
	return mode;
}

Test(import_nsjail, network_follows_clone_newnet_and_iface_no_lo)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir();

	cr_expect_str_eq(network_of(SYSTEM_MOUNTS, dir), "loopback");
	cr_expect_str_eq(network_of("iface_no_lo: true\n" SYSTEM_MOUNTS, dir), "none");
	cr_expect_str_eq(network_of("clone_newnet: false\n" SYSTEM_MOUNTS, dir), "host");
	rm_tree(dir);
	free(dir);
}

Test(import_nsjail, exec_bin_runs_when_no_command_is_given)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "e.cfg", SYSTEM_MOUNTS
			      "exec_bin { path: \"/bin/echo\" arg: \"from-exec-bin\" }\n");
	char *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "-p", p));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "from-exec-bin");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(p);
}

/* The loader only sees the translated text, but what it says, and the
 * origins explain prints, name lines of the nsjail file. */
Test(import_nsjail, explain_and_errors_name_lines_of_the_nsjail_file)
{
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "o.cfg", "hostname: \"h\"\n"
			      "mount { src: \"/usr\" dst: \"/usr\" is_bind: true }\n"
			      "mount { src: \"/tmp\" dst: \"/w\" is_bind: true }\n"
			      "mount { src: \"/tmp\" dst: \"/w\" is_bind: true }\n");
	char *p = xasprintf("nsjail:%s", cfg);
	char *host = xasprintf("hostname: \"h\"  # from %s:1\n", cfg);
	char *usr = xasprintf("mount { dst: \"/usr\" type: BIND src: \"/usr\" }  # from %s:2\n",
			      cfg);
	/* nsjail's defaults: the translation, no line of the file */
	char *dflt = xasprintf("wall_time_ms: 600000  # from %s\n", p);
	char *dup = xasprintf("sbx: warning: %s:4:7: sbx refuses", cfg);
	char *first = xasprintf("(first set at %s:3:7)", cfg);
	char *hidden = xasprintf("sbx: %s:3:7: mount at /w refused", cfg);
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("explain", "-p", p));
	cr_expect_eq(r.exit_status, 0, "%s", r.err);
	cr_expect(strstr(r.out, host), "want '%s' in:\n%s", host, r.out);
	cr_expect(strstr(r.out, usr), "want '%s' in:\n%s", usr, r.out);
	cr_expect(strstr(r.out, dflt), "want '%s' in:\n%s", dflt, r.out);
	cr_expect(strstr(r.err, dup) && strstr(r.err, first), "want '%s' ... '%s' in:\n%s",
		  dup, first, r.err);
	sbx_result_free(&r);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true },
		SBX_ARGV("explain", "-p", p, "--set", "workspace=/w"));
	cr_expect_eq(r.exit_status, 125);
	cr_expect(strstr(r.err, hidden), "want '%s' in:\n%s", hidden, r.err);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(p);
	free(host);
	free(usr);
	free(dflt);
	free(dup);
	free(first);
	free(hidden);
}

/* nsjail config values and file names an attacker chose (a service that
 * imports configs it was sent): newlines, CR, quotes, backslashes, '}' and
 * '#', controls, U+2028 and U+202E in every string the import writes, as a
 * value or in a comment.  None may add a mount or set the network. */
Test(import_nsjail, hostile_strings_add_nothing_to_the_imported_policy)
{
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "h\nnetwork: HOST\n#.cfg",
		"name: \"n\\nmount { dst: \\\"/h1\\\" type: TMPFS }\\r\\\"'\\\\}#\\013\\014\\001"
		"\\177\\302\\205\\342\\200\\250\\342\\200\\256\"\n"
		"description: \"d\\n}\\nnetwork: HOST #\"\n"
		"hostname: \"h\\nnetwork: HOST\"\n"
		"envar: \"A=\\n}\\nmount { dst: \\\"/h3\\\" type: TMPFS }#\\\"\\\\\\001\"\n"
		"envar: \"B\\nnetwork: HOST\"\n"
		"mount { src: \"/usr\" dst: \"/usr\" is_bind: true }\n"
		"mount { src: \"/tmp\" dst: \"/x\\nmount { dst: \\\"/h4\\\" type: TMPFS }\" "
		"is_bind: true }\n"
		"exec_bin { path: \"/bin/echo\" arg: \"a\\nmount { dst: \\\"/h5\\\" type: TMPFS }\" }\n");
	char *out = xasprintf("%s/imported.policy", dir);
	char *fields, *explained;
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true },
		SBX_ARGV("import", "nsjail", cfg, "-o", out));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.err);
	sbx_result_free(&r);
	explained = slurp_file(out);
	fields = policy_without_comments(explained);
	cr_expect(strstr(fields, "\nnetwork: LOOPBACK\n") && !strstr(fields, "HOST\n"),
		  "a string set the network:\n%s", explained);
	assert_has_line(fields, "env: \"A=\\n}\\nmount { dst: \\\"/h3\\\" type: TMPFS }#\\\"\\\\\\001\"");
	free(fields);
	free(explained);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("check", out));
	cr_expect_eq(r.exit_status, 0, "sbx check refuses the import: %s", r.err);
	sbx_result_free(&r);
	/* what the loader makes of it: the one mount asked for, nothing else */
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("explain", "-p", out));
	cr_assert_eq(r.exit_status, 0, "%s", r.err);
	fields = policy_without_comments(r.out);
	cr_expect_null(strstr(fields, "\nmount { dst: \"/h"), "a string added a mount:\n%s", r.out);
	cr_expect(strstr(fields, "\nmount { dst: \"/usr\" type: BIND src: \"/usr\" }\n"), "%s",
		  r.out);
	cr_expect(strstr(fields, "\nnetwork: LOOPBACK\n"), "%s", r.out);
	free(fields);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(out);
}

/* Hostile or broken input: 125 and one "sbx: FILE:LINE:COL: ..." line,
 * from both import and run, never a crash. */
static void expect_clean_error(const char *dir, const char *name, const char *text,
			       size_t len, const char *where)
{
	char *path = xasprintf("%s/%s", dir, name), *want = xasprintf("sbx: %s%s", path, where);
	char *p = xasprintf("nsjail:%s", path);
	FILE *f = fopen(path, "w");
	struct sbx_result r;

	cr_assert_not_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("import", "nsjail", path));
	cr_expect_eq(r.exit_status, 125, "%s: exit %d: %s", name, r.exit_status, r.err);
	cr_expect(strncmp(r.err, want, strlen(want)) == 0, "%s: want '%s', got '%s'", name,
		  want, r.err);
	cr_expect(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s", r.err);
	cr_expect_eq(r.out_len, 0, "nothing on stdout: %s", r.out);
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", p, "--", "/bin/true"));
	ASSERT_STATUS(&r, "config-error");
	cr_expect_eq(r.exit_status, 125);
	sbx_result_free(&r);
	free(path);
	free(want);
	free(p);
}

Test(import_nsjail, hostile_configs_fail_cleanly)
{
	char *dir = make_temp_dir();
	size_t n = 2u << 20;
	char *big = malloc(n), deep[64 * 11 + 1] = "";

	expect_clean_error(dir, "unknown.cfg", "time_limit: 5\nrlimit_ass: 1\n", 28,
			   ":2:1: unknown field 'rlimit_ass'");
	expect_clean_error(dir, "garbage.cfg", "\x7f" "ELF\x02\x01\x01\0\0\0", 10, ":1:8: NUL byte in nsjail config");
	expect_clean_error(dir, "type.cfg", "mount { dst: 5 }", 16, ":1:14: 'dst' expects a string");
	for (int i = 0; i < 64; i++)
		strcat(deep, "user_net {");
	expect_clean_error(dir, "deep.cfg", deep, strlen(deep), ":1:");
	memset(big, '#', n);
	expect_clean_error(dir, "huge.cfg", big, n, ": not a regular file of at most");
	free(big);
	rm_tree(dir);
	free(dir);
}

/* Kafel that sbx cannot translate used to become sbx's own filter (~300
 * calls) with one warning: a config that allowed 3 calls ran with 300.
 * Now it is refused, naming the construct and its line. */
Test(import_nsjail, a_filter_sbx_cannot_translate_is_refused_not_widened)
{
	char *dir = make_temp_dir();
	const char *inc = "time_limit: 5\nseccomp_string: \"ALLOW { read, write }\"\n"
			  "seccomp_string: \"#include \\\"more.kafel\\\"\"\n"
			  "seccomp_string: \"DEFAULT KILL\"\n";
	const char *expr = "seccomp_string: \"ALLOW { read }\\n#define FLAGS (1|2)\\nDEFAULT KILL\"\n";
	const char *bynum = "seccomp_string: \"ALLOW { read, SYSCALL[1] } DEFAULT KILL\"\n";

	expect_clean_error(dir, "include.cfg", inc, strlen(inc),
			   ":3:17: seccomp_string: #include (sbx reads no other file) at "
			   "'#include \"more.kafel\"': sbx translates ALLOW, ERRNO and KILL lists");
	expect_clean_error(dir, "expr.cfg", expr, strlen(expr),
			   ":1:17: seccomp_string: a #define of something other than one number "
			   "or name at '#define FLAGS (1|2)' (line 2 of this string): ");
	expect_clean_error(dir, "bynum.cfg", bynum, strlen(bynum),
			   ":1:17: seccomp_string: SYSCALL[n], a call by number at 'SYSCALL[1] } DEFAULT KILL': ");
	rm_tree(dir);
	free(dir);
}

/* `sbx explain -p nsjail:CFG` without comments; the import must succeed. */
static char *imported_fields(const char *cfg)
{
	char *p = xasprintf("nsjail:%s", cfg), *fields;
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("explain", "-p", p));
	cr_assert_eq(r.exit_status, 0, "exit %d: %s", r.exit_status, r.err);
	fields = policy_without_comments(r.out);
	sbx_result_free(&r);
	free(p);
	return fields;
}

/* Real configs name constants with #define (Kafel's macro for a number):
 * that is no reason to run under a wider filter. */
Test(import_nsjail, a_define_of_a_number_is_a_constant_of_the_translated_filter)
{
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "def.cfg",
		"seccomp_string: \"#define EPERM_ 1\"\n"
		"seccomp_string: \"#define DENIED EPERM_\"\n"
		"seccomp_string: \"ALLOW { read, write, exit_group }\"\n"
		"seccomp_string: \"ERRNO(DENIED) { socket }\"\n"
		"seccomp_string: \"DEFAULT ERRNO(EPERM_)\"\n");
	char *fields = imported_fields(cfg);

	cr_expect_null(strstr(fields, "@default"), "sbx's own filter was used:\n%s", fields);
	cr_expect(strstr(fields, "  default_action: ERRNO\n  errno: 1\n"), "%s", fields);
	cr_expect(strstr(fields, "  allow: [\"read\", \"write\", \"exit_group\"]\n") ||
		  (strstr(fields, "  allow: \"read\"\n") && strstr(fields, "  allow: \"write\"\n") &&
		   strstr(fields, "  allow: \"exit_group\"\n")), "%s", fields);
	cr_expect(strstr(fields, "  deny: \"socket\"\n"), "%s", fields);
	free(fields);
	rm_tree(dir);
	free(dir);
	free(cfg);
}

/* ALLOW + DEFAULT KILL: the calls listed, nothing else, and a kill. */
Test(import_nsjail, allow_with_default_kill_is_that_list_and_a_kill)
{
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "ak.cfg",
		"seccomp_string: \"ALLOW { read, write, exit_group } DEFAULT KILL\"\n");
	char *fields = imported_fields(cfg);

	cr_expect(strstr(fields, "  default_action: KILL\n"), "%s", fields);
	cr_expect_null(strstr(fields, "@default"), "%s", fields);
	cr_expect_null(strstr(fields, "  deny:"), "%s", fields);
	free(fields);
	rm_tree(dir);
	free(dir);
	free(cfg);
}

/* A config that kills uname and fails socket with EPERM: sbx has one deny
 * action, and it used to be EPERM for both, so a program nsjail would kill
 * went on after a failed call.  The stricter one, KILL, is kept. */
Test(import_nsjail, a_killed_call_kills_the_run_even_next_to_an_errno_list)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "kill.cfg", SYSTEM_MOUNTS
		"seccomp_string: \"ERRNO(1) { socket } KILL { uname } DEFAULT ALLOW\"\n");
	char *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "-p", p, "--", "/bin/uname"));
	ASSERT_STATUS(&r, "seccomp");
	cr_expect_null(strstr(r.out, "Linux"), "uname ran: %s", r.out);
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(p);
}

/* A KILL list alone: killed, not EPERM. */
Test(import_nsjail, a_kill_list_kills_the_run)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir();
	char *cfg = write_cfg(dir, "k.cfg", SYSTEM_MOUNTS
		"seccomp_string: \"KILL { uname } DEFAULT ALLOW\"\n");
	char *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;

	sbx_run(&r, NULL, SBX_ARGV("run", "-p", p, "--", "/bin/uname"));
	ASSERT_STATUS(&r, "seccomp");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(cfg);
	free(p);
}

Test(import_nsjail, usage_errors)
{
	struct sbx_result r;

	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("import", "firejail", "x"));
	cr_expect_eq(r.exit_status, 125);
	cr_expect(strstr(r.err, "unknown format 'firejail'"), "%s", r.err);
	sbx_result_free(&r);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("import", "nsjail"));
	cr_expect_eq(r.exit_status, 125);
	cr_expect(strstr(r.err, "no nsjail config given"), "%s", r.err);
	sbx_result_free(&r);
}

/* all-fields.cfg sets every field of NsJailConfig (the unit suite checks
 * that against the schema); the migration page names each one. */
Test(import_nsjail, every_nsjail_field_is_in_sbx_nsjail_7)
{
	char *page = slurp_src("man/sbx-nsjail.7"), *cfg = slurp_src("tests/nsjail/all-fields.cfg");
	char *save = NULL;

	for (char *line = strtok_r(cfg, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strspn(line, "abcdefghijklmnopqrstuvwxyz_0123456789");

		if (n == 0 || (line[n] != ':' && line[n] != ' '))
			continue;
		line[n] = '\0';
		cr_expect(strstr(page, line), "nsjail field '%s' is not in man/sbx-nsjail.7", line);
	}
	free(page);
	free(cfg);
}

/* The EXAMPLES of sbx-nsjail.7, on the sample interpreter-service config. */
Test(import_nsjail, the_examples_of_sbx_nsjail_7_work)
{
	REQUIRE_USERNS();
	char *dir = make_temp_dir(), *ws = xasprintf("%s/ws", dir);
	char *cfg = xasprintf("%s/tests/nsjail/interpreter-service.cfg", src_dir());
	char *pol = xasprintf("%s/sandbox.policy", dir), *p = xasprintf("nsjail:%s", cfg);
	struct sbx_result r;

	cr_assert_eq(mkdir(ws, 0755), 0);
	/* run by root, the program is host uid 65534: the workspace must be its */
	if (geteuid() == 0)
		cr_assert_eq(chown(ws, 65534, 65534), 0);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true },
		SBX_ARGV("import", "nsjail", cfg, "-o", pol));
	cr_expect_eq(r.exit_status, 0, "%s", r.err);
	sbx_result_free(&r);
	sbx_run(&r, &(struct sbx_opts){ .no_record = true }, SBX_ARGV("check", pol));
	cr_expect_eq(r.exit_status, 0, "%s", r.err);
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", pol, "-w", ws, "-t", "5s", "--", "/bin/sh", "-c",
				   "echo in $(pwd) > /mnt/data/out; cat /mnt/data/out"));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "in /mnt/data");
	sbx_result_free(&r);
	sbx_run(&r, NULL, SBX_ARGV("run", "-p", p, "--", "/usr/bin/id", "-u"));
	ASSERT_STATUS(&r, "ok");
	assert_has_line(r.out, "65534");
	sbx_result_free(&r);
	rm_tree(dir);
	free(dir);
	free(ws);
	free(cfg);
	free(pol);
	free(p);
}
