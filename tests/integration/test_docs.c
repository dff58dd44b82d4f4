/*
 * test_docs.c - the man pages and the completion stay true to the code.
 *
 * The lists checked here are read from the code itself (the options that
 * `sbx run --help` prints, the name tables of src/policy/schema.c and
 * policy.c, the @groups of src/jail/scgroups.c, policy/NAME.policy, the status
 * table of src/record/result.c, the properties of contrib/result.schema.json), so
 * a new field or option without its documentation fails here.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

/* NAME as roff writes it: every '-' becomes "\-". */
static char *roff_form(const char *name)
{
	char *out = calloc(strlen(name) * 2 + 1, 1), *o = out;

	for (; *name; name++) {
		if (*name == '-')
			*o++ = '\\';
		*o++ = *name;
	}
	return out;
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether PAGE mentions NAME (in roff form) as a whole word. */
static bool page_mentions(const char *page, const char *name)
{
	char *want = roff_form(name);
	size_t n = strlen(want);
	bool found = false;

	for (const char *p = page; !found && (p = strstr(p, want)) != NULL; p++)
		found = (p == page || !is_word_char(p[-1])) && !is_word_char(p[n]);
	free(want);
	return found;
}

/* ---- sbx.1 and `sbx run --help` ------------------------------------- */

/* Words of LINE that look like options: "-p," "--policy" "--set=F" ... */
static int check_help_line(char *line, const char *page)
{
	int n = 0;

	for (char *w = strtok(line, " \t,[]|"); w; w = strtok(NULL, " \t,[]|")) {
		if (!(w[0] == '-' && (isalpha((unsigned char)w[1]) ||
				      (w[1] == '-' && isalpha((unsigned char)w[2])))))
			continue;
		w[strcspn(w, "=")] = '\0';
		cr_expect(page_mentions(page, w), "option %s of `sbx run --help` is not in man/sbx.1", w);
		n++;
	}
	return n;
}

Test(docs, every_option_of_run_help_is_in_sbx_1)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	char *page = slurp_src("man/sbx.1"), *save = NULL;
	int n = 0;

	sbx_run(&r, &o, SBX_ARGV("run", "--help"));
	cr_assert_eq(r.exit_status, 0, "sbx run --help exited %d: %s", r.exit_status, r.err);
	for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t lead = strspn(line, " \t");
		if (lead > 0 && line[lead] == '-')
			n += check_help_line(line + lead, page);
	}
	cr_assert_geq(n, 25, "only %d options found in `sbx run --help`:\n%s", n, r.out);
	sbx_result_free(&r);
	free(page);
}

/* ---- sbx.policy.5 and the schema ------------------------------------ */

/* Check every quoted word of every `NAME_names[...] = { ... };` table. */
static int check_name_tables(const char *text, const char *what, const char *page)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, "_names[")) != NULL; p++) {
		const char *open = strstr(p, "] = {"), *end;
		if (!open || strchr(p, '\n') < open)
			continue;
		end = strstr(open, "};");
		for (const char *q = strchr(open, '"'); q && q < end; q = strchr(q + 1, '"')) {
			size_t len = strcspn(q + 1, "\"");
			char *name = strndup(q + 1, len);
			cr_expect(page_mentions(page, name),
				  "%s '%s' is not described in man/sbx.policy.5", what, name);
			free(name);
			n++;
			q += len + 1;
		}
	}
	return n;
}

Test(docs, every_policy_field_and_enum_is_in_sbx_policy_5)
{
	char *page = slurp_src("man/sbx.policy.5");
	char *schema = slurp_src("src/policy/schema.c"), *policy = slurp_src("src/policy/policy.c");
	int n = check_name_tables(schema, "field or enum value", page) +
		check_name_tables(policy, "limit", page);

	/* 17 top-level fields + mount, seccomp, lang, enums; 9 limits */
	cr_assert_geq(n, 50, "only %d names found in the schema tables", n);
	cr_expect(page_mentions(page, "unlimited"), "'unlimited' is not described");
	free(page);
	free(schema);
	free(policy);
}

Test(docs, every_seccomp_group_is_in_sbx_policy_5)
{
	char *page = slurp_src("man/sbx.policy.5"), *sc = slurp_src("src/jail/scgroups.c");
	int n = 0;

	for (const char *q = strstr(sc, "\"@"); q; q = strstr(q + 1, "\"@")) {
		size_t len = strcspn(q + 1, "\"");
		char *name = strndup(q + 1, len);
		/* "@" alone, or format strings, are not group names */
		if (len > 1 && strspn(name + 1, "abcdefghijklmnopqrstuvwxyz0123456789-") == len - 1) {
			cr_expect(page_mentions(page, name), "seccomp group %s is not in sbx.policy.5", name);
			n++;
		}
		free(name);
	}
	cr_assert_geq(n, 5, "only %d @groups found in src/jail/scgroups.c", n);
	free(page);
	free(sc);
}

Test(docs, every_builtin_policy_is_in_sbx_policy_5)
{
	char *page = slurp_src("man/sbx.policy.5"), *dir = xasprintf("%s/policy", src_dir());
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d, "no %s", dir);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len <= 7 || strcmp(e->d_name + len - 7, ".policy") != 0)
			continue;
		char *name = strndup(e->d_name, len - 7);
		cr_expect(page_mentions(page, name), "built-in policy '%s' is not in sbx.policy.5", name);
		free(name);
		n++;
	}
	closedir(d);
	cr_assert_geq(n, 2, "no built-in policies found in %s", dir);
	free(dir);
	free(page);
}

/* ---- sbx-result.5 ---------------------------------------------------- */

Test(docs, every_status_is_in_sbx_result_5)
{
	char *page = slurp_src("man/sbx-result.5"), *res = slurp_src("src/record/result.c");
	const char *table = strstr(res, "status_names[]"), *end;
	int n = 0;

	cr_assert_not_null(table, "no status_names table in src/record/result.c");
	end = strstr(table, "};");
	for (const char *q = strstr(table, "= \""); q && q < end; q = strstr(q + 1, "= \"")) {
		char *name = strndup(q + 3, strcspn(q + 3, "\""));
		cr_expect(page_mentions(page, name), "status '%s' is not in sbx-result.5", name);
		free(name);
		n++;
	}
	/* the twelve statuses of a run, and compile-error for a compiled language */
	cr_assert_eq(n, 13, "expected the 13 statuses (12 of a run + compile-error), found %d", n);
	free(page);
	free(res);
}

Test(docs, every_record_key_is_in_sbx_result_5)
{
	char *page = slurp_src("man/sbx-result.5"), *text = slurp_src("contrib/result.schema.json");
	cJSON *schema = cJSON_Parse(text), *key;
	int n = 0;

	cr_assert_not_null(schema, "contrib/result.schema.json is not JSON");
	/* the keys live in $defs.stage_record, shared by the record and its compile section */
	cJSON *stage = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "$defs"), "stage_record");
	cJSON_ArrayForEach(key, cJSON_GetObjectItem(stage, "properties")) {
		cr_expect(page_mentions(page, key->string), "record key '%s' is not in sbx-result.5",
			  key->string);
		n++;
	}
	cr_assert_geq(n, 15, "only %d properties in the schema", n);
	cJSON_Delete(schema);
	free(text);
	free(page);
}

/* ---- rendering ------------------------------------------------------- */

/* Render man/PAGE with groff (or lint it with mandoc): no output allowed. */
static void assert_renders_clean(bool mandoc, const char *page)
{
	const char *tool = mandoc ? "mandoc" : "groff";
	char *cmd, *out;
	int status;

	cmd = xasprintf("command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) != 0) {
		free(cmd);
		cr_skip_test("SKIP: %s is not installed", tool);
	}
	free(cmd);
	if (mandoc)
		cmd = xasprintf("mandoc -Tlint -Wstyle '%s/man/%s' 2>&1", src_dir(), page);
	else
		cmd = xasprintf("groff -man -Tutf8 -ww -z '%s/man/%s' 2>&1", src_dir(), page);
	status = host_sh(cmd, &out);
	cr_expect(status == 0 && out[0] == '\0',
		  "`%s` complained:\n%s", cmd, out);
	free(out);
	free(cmd);
}

Test(docs, sbx_1_renders_without_warnings) { assert_renders_clean(false, "sbx.1"); }
Test(docs, sbx_policy_5_renders_without_warnings) { assert_renders_clean(false, "sbx.policy.5"); }
Test(docs, sbx_result_5_renders_without_warnings) { assert_renders_clean(false, "sbx-result.5"); }
Test(docs, sbx_1_passes_mandoc_lint) { assert_renders_clean(true, "sbx.1"); }
Test(docs, sbx_policy_5_passes_mandoc_lint) { assert_renders_clean(true, "sbx.policy.5"); }
Test(docs, sbx_result_5_passes_mandoc_lint) { assert_renders_clean(true, "sbx-result.5"); }
Test(docs, sbx_nsjail_7_renders_without_warnings) { assert_renders_clean(false, "sbx-nsjail.7"); }
Test(docs, sbx_nsjail_7_passes_mandoc_lint) { assert_renders_clean(true, "sbx-nsjail.7"); }

/* ---- bash completion ------------------------------------------------- */

/* What _sbx offers for the words WORDS (the last one being completed). */
static char *complete(const char *words)
{
	char *cmd = xasprintf("bash --norc -c 'source \"%s/contrib/bash-completion/sbx\"; "
			      "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
			      "_sbx; echo \"${COMPREPLY[*]}\"' 2>&1", src_dir(), words);
	char *out = NULL;
	int status = host_sh(cmd, &out);

	free(cmd);
	cr_assert(status == 0, "completion failed: %s", out);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static void expect_completion(const char *words, const char *want)
{
	char *got = complete(words);

	cr_expect_str_eq(got, want, "completing (%s)", words);
	free(got);
}

Test(docs, bash_completion_completes_options_and_values)
{
	if (system("command -v bash >/dev/null 2>&1") != 0)
		cr_skip_test("SKIP: bash is not installed");
	expect_completion("sbx run --ne", "--net");
	expect_completion("sbx run --net \"\"", "none loopback host");
	expect_completion("sbx explain --net lo", "loopback");
	expect_completion("sbx ex", "explain");
	expect_completion("sbx doctor --j", "--json");
	expect_completion("sbx run --set limits.wall", "limits.wall_time_ms=");
	expect_completion("sbx run -p defa", "default");
}

Test(docs, bash_completion_knows_every_option_of_run_help)
{
	struct sbx_opts o = { .no_record = true };
	struct sbx_result r;
	char *opts = complete("sbx run -"), *save = NULL;

	sbx_run(&r, &o, SBX_ARGV("run", "--help"));
	for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t lead = strspn(line, " \t");
		if (lead == 0 || line[lead] != '-')
			continue;
		for (char *w = strtok(line + lead, " \t,[]|"); w; w = strtok(NULL, " \t,[]|")) {
			if (strncmp(w, "--", 2) != 0 || !isalpha((unsigned char)w[2]))
				continue;
			w[strcspn(w, "=")] = '\0';
			char *padded = xasprintf(" %s ", opts), *want = xasprintf(" %s ", w);
			cr_expect_not_null(strstr(padded, want), "completion lacks %s", w);
			free(padded);
			free(want);
		}
	}
	sbx_result_free(&r);
	free(opts);
}

/*
 * A file name with a space was split into two words (an unquoted command
 * substitution), and a directory got no trailing "/".  Each name is one
 * element of COMPREPLY, and the completion asks readline to treat them as
 * file names (-o filenames: quoted on insertion, "/" after a directory);
 * compopt is recorded here, as readline alone can act on it.
 */
Test(docs, bash_completion_keeps_a_file_name_with_a_space_one_word)
{
	char dir[] = "/tmp/sbx-compl-XXXXXX";
	char *out = NULL, *src = realpath(src_dir(), NULL);

	if (system("command -v bash >/dev/null 2>&1") != 0)
		cr_skip_test("SKIP: bash is not installed");
	cr_assert_not_null(src);
	cr_assert_not_null(mkdtemp(dir));
	char *cmd = xasprintf("cd '%s' && : >'my prog.py' && mkdir 'my dir' && "
			      "bash --norc -c 'source \"%s/contrib/bash-completion/sbx\"; "
			      "compopt() { asked=\"$asked $*\"; }; "
			      "for w in \"sbx run --lang py my\" \"sbx run -o my\" \"sbx check my\"; do "
			      "asked=; read -ra COMP_WORDS <<<\"$w\"; COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
			      "_sbx; printf \"%%s|\" \"${COMPREPLY[@]}\"; echo \"$asked\"; done' 2>&1",
			      dir, src);
	int status = host_sh(cmd, &out);

	cr_assert(status == 0, "completion failed: %s", out);
	cr_expect_str_eq(out, "my dir|my prog.py| -o filenames\n"
			      "my dir| -o filenames\n"
			      "my dir|my prog.py| -o filenames\n");
	free(out);
	free(cmd);
	free(src);
	char *rm = xasprintf("rm -rf '%s'", dir);
	cr_assert(system(rm) == 0);
	free(rm);
}
