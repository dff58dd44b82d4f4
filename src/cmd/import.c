/*
 * import.c - `sbx import nsjail FILE [-o OUT]`: an nsjail config as an sbx
 * policy (the translation lives in src/import/).
 *
 * The policy goes to stdout or OUT; one line on stderr says how many
 * fields were not translated (they are listed at the end of the policy).
 * An error (a config nsjail would not load either) is one `sbx: ...` line
 * naming FILE:LINE:COL, exit 125.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/help.h"
#include "import/nsjail.h"

#define USAGE "usage: sbx import nsjail FILE [-o OUT]"

static int usage_error(const char *what)
{
	fprintf(stderr, "sbx: import: %s (" USAGE ")\n", what);
	return 125;
}

static int write_policy(const char *out, const struct import_result *r)
{
	FILE *f = out ? fopen(out, "we") : stdout;

	if (!f) {
		fprintf(stderr, "sbx: import: -o %s: %s\n", out, strerror(errno));
		return -1;
	}
	bool ok = fwrite(r->text, 1, r->len, f) == r->len && fflush(f) == 0;

	if (out && fclose(f) != 0)
		ok = false;
	if (!ok)
		fprintf(stderr, "sbx: import: writing %s: %s\n", out ? out : "stdout",
			strerror(errno));
	return ok ? 0 : -1;
}

/* FILE and -o OUT (also -oOUT, --output OUT, --output=OUT), in any order. */
static int parse_args(int argc, char **argv, const char **file, const char **out)
{
	bool dashdash = false;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!dashdash && !strcmp(a, "--")) {
			dashdash = true;
		} else if (!dashdash && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
			if (++i == argc)
				return usage_error("-o needs a file name");
			*out = argv[i];
		} else if (!dashdash && !strncmp(a, "--output=", 9)) {
			*out = a + 9;
		} else if (!dashdash && !strncmp(a, "-o", 2)) {
			*out = a + 2;
		} else if (!dashdash && a[0] == '-' && a[1]) {
			fprintf(stderr, "sbx: import: unknown option '%s' (" USAGE ")\n", a);
			return 125;
		} else if (*file) {
			return usage_error("one FILE only");
		} else {
			*file = a;
		}
	}
	if (!*file)
		return usage_error("no nsjail config given");
	return 0;
}

int cmd_import(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	struct import_result r;
	struct sbx_err err = { 0 };
	int rc;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help_print_command("import", stdout);
		return 0;
	}
	if (argc < 2)
		return usage_error("which format? only 'nsjail' is known");
	if (strcmp(argv[1], "nsjail") != 0) {
		fprintf(stderr, "sbx: import: unknown format '%s' (only 'nsjail' is known; "
			USAGE ")\n", argv[1]);
		return 125;
	}
	if ((rc = parse_args(argc, argv, &file, &out)) != 0)
		return rc;
	if (import_nsjail_file(file, &r, &err) < 0) {
		err_print(stderr, "sbx: ", err.msg);
		return 125;
	}
	rc = write_policy(out, &r);
	if (rc == 0)
		fprintf(stderr, "sbx: import: %s: %zu nsjail field%s not translated as nsjail "
			"does them (listed at the end of the policy)\n", file, r.nnotes,
			r.nnotes == 1 ? "" : "s");
	import_result_free(&r);
	return rc == 0 ? 0 : 125;
}
