/*
 * lang.c - language presets at run time; see lang.h.
 *
 * Templates expand {file}, {out}, {workspace} inside an element and {args}
 * as whole elements (the user's arguments pass verbatim, one element each,
 * never through a shell).  Nothing here runs a jail: the compile stage is
 * src/cmd/run.c's, the version probe src/cmd/langs.c's.
 */
#include "lang/lang.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/argv.h"

struct subst {
	const char *file, *out, *ws;
};

static const char *placeholder(const char *t, const struct subst *s, size_t *len)
{
	static const char *const names[] = { "{file}", "{out}", "{workspace}" };
	const char *values[] = { s->file, s->out, s->ws };

	for (size_t i = 0; i < 3; i++) {
		*len = strlen(names[i]);
		if (strncmp(t, names[i], *len) == 0)
			return values[i];
	}
	return NULL;
}

static char *expand_one(const char *t, const struct subst *s, const char *what,
			struct sbx_err *err)
{
	char *out = NULL;
	size_t size = 0, len;
	FILE *f = open_memstream(&out, &size);

	if (!f) {
		err_set(err, ERR_INTERNAL, errno, "open_memstream: %s", strerror(errno));
		return NULL;
	}
	while (*t) {
		const char *v = placeholder(t, s, &len);
		if (v) {
			fputs(v, f);
			t += len;
		} else if (strncmp(t, "{args}", 6) == 0) {
			fclose(f);
			free(out);
			err_set(err, ERR_CONFIG, 0,
				"%s: {args} must be a whole element of the template", what);
			return NULL;
		} else {
			fputc(*t++, f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		return NULL;
	}
	return out;
}

int lang_expand(const struct policy *p, const struct strlist *tmpl,
		const char *what, const char *file, char *const *args,
		int nargs, char ***out, struct sbx_err *err)
{
	const char *ws = p->workspace ? p->workspace : "/mnt/data";
	const char *base = strrchr(file, '/');
	struct argv_builder b = { 0 };
	struct subst s = { .ws = ws };
	char *file_in = NULL, *out_in = NULL;
	int rc = 0;

	*out = NULL;
	base = base ? base + 1 : file;
	if (tmpl->n == 0)
		return err_set(err, ERR_CONFIG, 0, "the preset has no %s template", what);
	if (asprintf(&file_in, "%s/%s", ws, base) < 0 ||
	    asprintf(&out_in, "%s/%s", ws, LANG_OUT_NAME) < 0) {
		free(file_in);
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	}
	s.file = file_in;
	s.out = out_in;
	for (size_t i = 0; rc == 0 && i < tmpl->n; i++) {
		if (strcmp(tmpl->v[i], "{args}") != 0) {
			char *e = expand_one(tmpl->v[i], &s, what, err);
			rc = e ? argv_push(&b, e, err) : -1;
			continue;
		}
		for (int a = 0; rc == 0 && a < nargs; a++)
			rc = argv_push(&b, strdup(args[a]), err);
	}
	free(file_in);
	free(out_in);
	if (rc == 0 && (b.n == 0 || !b.v[0][0]))
		rc = err_set(err, ERR_CONFIG, 0, "%s: the command is empty", what);
	if (rc < 0) {
		argv_free(b.v);
		return -1;
	}
	*out = b.v;
	return 0;
}

int lang_check_operands(char *const *operands, int n, struct sbx_err *err)
{
	if (n < 1)
		return err_set(err, ERR_USAGE, 0,
			       "missing FILE (usage: sbx run [OPTIONS] --lang LANG FILE [ARG...])");
	/* execve of "" fails oddly inside the jail; say so here instead */
	if (operands[0][0] == '\0')
		return err_set(err, ERR_USAGE, 0, "FILE is empty");
	return 0;
}

bool lang_is_compiled(const struct policy *p)
{
	return p->lang.present && p->lang.compile.n > 0;
}

void lang_compile_policy(const struct policy *p, struct policy *out)
{
	*out = *p;
	/* cc1, as and ld need more than the program: the preset says how much */
	for (int i = 0; i < LIM_COUNT; i++)
		if (p->lang.compile_limits.v[i]) {
			out->limits.v[i] = p->lang.compile_limits.v[i];
			out->limits.at[i] = p->lang.compile_limits.at[i];
		}
}

const char *lang_runtime(const struct policy *p)
{
	const struct strlist *l = p->lang.compile.n ? &p->lang.compile
			       : p->lang.run.n ? &p->lang.run : &p->lang.version;

	return l->n && l->v[0][0] == '/' ? l->v[0] : NULL;
}

bool lang_host_has(const char *bin)
{
	struct stat st;

	return stat(bin, &st) == 0 && S_ISREG(st.st_mode) && access(bin, X_OK) == 0;
}

int lang_check_runtime(const struct policy *p, const char *lang, struct sbx_err *err)
{
	const char *bin = lang_runtime(p);

	if (!bin || strchr(bin, '{') || lang_host_has(bin))
		return 0;
	return err_set(err, ERR_CONFIG, ENOENT,
		       "--lang %s: the runtime %s is not installed on this host (install it, or pick another preset: 'sbx langs' lists them)",
		       lang ? lang : p->name, bin);
}
