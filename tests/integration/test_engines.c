/*
 * test_engines.c - the examples of contrib/engines/: the GNU parallel one
 * runs here (one jail per task, a record each); the others are checked for
 * the settings their comments promise, and the seccomp profile that sbx's
 * messages name must be a profile a runtime can load (JSON with the
 * namespace syscalls not refused).
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	cr_assert_not_null(f, "cannot open %s", path);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(engines, gnu_parallel_runs_one_jail_per_task, .timeout = 300)
{
	char *dir = make_temp_dir(), *cmd;
	int st;

	if (system("command -v parallel >/dev/null 2>&1") != 0)
		cr_skip_test("SKIP: GNU parallel is not installed (make deps installs it)");
	cmd = xasprintf("cd / && SBX='%s' timeout 240 sh '%s/contrib/engines/parallel.sh' "
			"'%s' 2 3 4 >/dev/null 2>&1", sbx_path(), src_dir(), dir);
	st = system(cmd);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "parallel.sh exited %d", st);
	for (int n = 2; n <= 4; n++) {
		char *out = xasprintf("%s/%d.out", dir, n), *rec = xasprintf("%s/%d.json", dir, n);
		char *text = slurp(out), *json = slurp(rec), *want = xasprintf("%d\n", n * n);
		cJSON *r = cJSON_Parse(json);
		const char *log = getenv("SBX_RECORDS");

		cr_assert_str_eq(text, want, "task %d printed '%s'", n, text);
		cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "ok");
		if (log) {
			FILE *l = fopen(log, "ae");
			if (l) {
				fputs(json, l);
				fclose(l);
			}
		}
		cJSON_Delete(r);
		free(out), free(rec), free(text), free(json), free(want);
	}
	free(cmd);
	rm_tree(dir);
	free(dir);
}

Test(engines, the_seccomp_profile_sbx_names_allows_namespaces)
{
	char *path = xasprintf("%s/contrib/engines/seccomp-sbx.json", src_dir());
	char *text = slurp(path);
	cJSON *p = cJSON_Parse(text), *rule, *name;

	cr_assert_not_null(p, "%s is not JSON", path);
	cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "defaultAction")),
			 "SCMP_ACT_ALLOW");
	cJSON_ArrayForEach(rule, cJSON_GetObjectItem(p, "syscalls"))
		cJSON_ArrayForEach(name, cJSON_GetObjectItem(rule, "names"))
			for (const char *const *n = (const char *const[]){ "clone", "clone3",
			     "unshare", "mount", "umount2", "pivot_root", "setns", NULL }; *n; n++)
				cr_assert(strcmp(name->valuestring, *n) != 0,
					  "the profile refuses %s, which sbx needs", *n);
	cJSON_Delete(p);
	free(text);
	free(path);
}

Test(engines, kubernetes_and_slurm_examples_carry_their_settings)
{
	char *k = xasprintf("%s/contrib/engines/kubernetes-job.yaml", src_dir());
	char *s = xasprintf("%s/contrib/engines/slurm.sbatch", src_dir());
	char *kt = slurp(k), *st = slurp(s);

	for (const char *const *n = (const char *const[]){ "hostUsers: false",
	     "localhostProfile: sbx.json", "procMount: Unmasked", "sbx doctor", NULL }; *n; n++)
		cr_assert(strstr(kt, *n), "%s lacks '%s'", k, *n);
	cr_assert(strstr(st, "srun") && strstr(st, "sbx run") && strstr(st, "#SBATCH --array"),
		  "%s is no array job of sbx runs", s);
	free(kt), free(st), free(k), free(s);
}
