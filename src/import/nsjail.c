/*
 * nsjail.c - `sbx import nsjail` and `-p nsjail:FILE`: the driver.
 *
 * parse (the policy language's parser: both are protobuf text) -> check
 * against nsjail's schema (schema.c) -> translate into lines and notes
 * (translate.c, limits.c, mounts.c, kafel.c) -> write the policy text
 * (emit.c) -> load it with the real loader.  A line the loader refuses
 * (sbx's mount rules are stricter than nsjail's) becomes a note with the
 * loader's reason and the text is written again, so what comes out always
 * loads.
 */
#include "import/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/trust.h"

static int oom(struct sbx_err *err)
{
	return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
}

/* ---- load-check: what comes out loads -------------------------------- */

/* The item whose line is at "LABEL:LINE:" at the start of MSG, or NULL. */
static struct nj_item *refused_item(struct nj_xlate *x, const char *label, const char *msg,
				    const char **reason)
{
	size_t n = strlen(label);
	char *end;
	long line;

	if (strncmp(msg, label, n) != 0 || msg[n] != ':')
		return NULL;
	line = strtol(msg + n + 1, &end, 10);
	if (*end == ':')
		strtol(end + 1, &end, 10);
	*reason = *end == ':' ? end + 1 + (end[1] == ' ') : end;
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].line && !x->v[i].dropped && !x->v[i].fixed &&
		    x->v[i].out_line == line)
			return &x->v[i];
	return NULL;
}

/* The loader's REASON names lines of the text (LABEL:16:14): say FILE's. */
static int drop(struct nj_xlate *x, struct nj_item *it, const char *label,
		const char *reason)
{
	char *c = NULL, *why = nj_unlabel(x, label, reason);
	int rc = why ? asprintf(&c, "%s%s%s%s", why, it->comment ? " (" : "",
				it->comment ? it->comment : "", it->comment ? ")" : "")
		     : -1;

	free(why);
	if (rc < 0)
		return oom(x->err);
	free(it->comment);
	it->comment = c;
	it->dropped = true;
	return 0;
}

/* Each refusal costs a load of the whole text: a hostile file full of
 * entries sbx refuses must not cost minutes. */
#define MAX_REFUSED 256

static int load_check(struct nj_xlate *x, const char *label, char **text, size_t *len)
{
	for (size_t round = 0; round <= MAX_REFUSED; round++) {
		struct sbx_err e = { 0 };
		struct policy p;
		struct nj_item *it;
		const char *reason = NULL;

		if (nj_write_text(x, text, len) < 0)
			return -1;
		if (policy_load_text(label, *text, *len, &p, &e) == 0) {
			policy_free(&p);
			return 0;
		}
		free(*text);
		*text = NULL;
		if (e.kind != ERR_CONFIG) {
			*x->err = e;
			return -1;
		}
		it = refused_item(x, label, e.msg, &reason);
		if (!it)
			return err_set(x->err, ERR_INTERNAL, 0, "%s: the translation does not "
				       "load (a bug in sbx import; please report it): %s",
				       x->file, e.msg);
		if (drop(x, it, label, reason) < 0)
			return -1;
	}
	return err_set(x->err, ERR_CONFIG, 0, "%s: more than %d entries sbx refuses (see sbx.policy(5) "
		       "for sbx's mount rules and limits)", x->file, MAX_REFUSED);
}

/* ---- the public API -------------------------------------------------- */

static void xlate_free(struct nj_xlate *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->v[i].line);
		free(x->v[i].comment);
	}
	free(x->v);
	free(x->workspace);
}

static int collect_notes(const struct nj_xlate *x, struct import_result *out)
{
	size_t n = 0;
	const struct nj_item **notes = nj_sorted_notes(x, &n);

	out->notes = notes ? calloc(n + 1, sizeof(*out->notes)) : NULL;
	for (size_t i = 0; out->notes && i < n; i++) {
		const struct nj_item *it = notes[i];
		struct import_note *nt = &out->notes[out->nnotes++];
		int rc = it->at.line > 0 ? asprintf(&nt->where, "%s:%d:%d", it->at.file,
						    it->at.line, it->at.col)
					 : asprintf(&nt->where, "%s", it->at.file);

		if (rc < 0 || (it->dropped ? asprintf(&nt->text, "sbx refuses `%s`: %s", it->line,
						      it->comment)
				       : asprintf(&nt->text, "%s", it->comment ? it->comment : "")) < 0) {
			free(notes);
			return -1;
		}
	}
	free(notes);
	return out->notes ? 0 : -1;
}

static int translate(struct nj_xlate *x)
{
	if (nj_translate_top(x) < 0 || nj_translate_limits(x) < 0 ||
	    nj_translate_mounts(x) < 0 || nj_translate_seccomp(x) < 0)
		return -1;
	return 0;
}

int import_nsjail_text(const char *file, const char *text, size_t len,
		       struct import_result *out, struct sbx_err *err)
{
	struct nj_xlate x = { .file = file, .err = err };
	struct ptree t;
	struct pvalue top = { .kind = PV_MESSAGE, .at = { file, 0, 0 } };
	char *label = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (ptree_parse_as("nsjail config", file, text, len, &t, err) < 0)
		return -1;
	top.fields = t.fields;
	top.nfields = t.nfields;
	x.top = &top;
	rc = nj_check(&top, &nj_config, err);
	if (rc == 0)
		rc = translate(&x);
	if (rc == 0 && asprintf(&label, IMPORT_NSJAIL_PREFIX "%s", file) < 0)
		rc = oom(err);
	if (rc == 0)
		rc = load_check(&x, label, &out->text, &out->len);
	if (rc == 0 && nj_line_map(&x, out) < 0)
		rc = oom(err);
	if (rc == 0 && collect_notes(&x, out) < 0)
		rc = oom(err);
	out->argv = x.argv;
	x.argv = NULL;
	free(label);
	xlate_free(&x);
	ptree_free(&t);
	if (rc < 0)
		import_result_free(out);
	return rc;
}

/* PATH into a malloc'd buffer: a regular file of at most POLICY_MAX_FILE. */
static int read_config(const char *path, char **text, size_t *len, struct sbx_err *err)
{
	/* O_NONBLOCK: a FIFO named as the config must not hang sbx */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char reason[512];
	const char *why;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return err_set(err, ERR_CONFIG, errno, "%s: cannot open the nsjail config: %s",
			       path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > POLICY_MAX_FILE) {
		close(fd);
		return err_set(err, ERR_CONFIG, 0, "%s: not a regular file of at most %u bytes",
			       path, POLICY_MAX_FILE);
	}
	/* run by root, a config another user can write is a root escalation */
	if ((why = policy_file_untrusted(fd, path, reason, sizeof(reason)))) {
		close(fd);
		return err_set(err, ERR_CONFIG, 0, "%s: refusing the nsjail config: %s (run by "
			       "root, sbx reads only files root owns and only root can write)",
			       path, why);
	}
	*text = malloc((size_t)st.st_size + 1);
	n = *text ? read(fd, *text, (size_t)st.st_size + 1) : -1;
	close(fd);
	if (!*text)
		return oom(err);
	if (n < 0 || n > st.st_size)
		return err_set(err, ERR_CONFIG, 0, "%s: cannot read the nsjail config: %s", path,
			       n < 0 ? strerror(errno) : "it grew while being read");
	*len = (size_t)n;
	return 0;
}

int import_nsjail_file(const char *path, struct import_result *out, struct sbx_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = read_config(path, &text, &len, err);
	if (rc == 0)
		rc = import_nsjail_text(path, text, len, out, err);
	free(text);
	return rc;
}

int import_nsjail_policy(const char *path, struct policy *p, struct import_result *out,
			 struct sbx_err *err)
{
	char *label = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	if (import_nsjail_file(path, out, err) < 0)
		return -1;
	if (asprintf(&label, IMPORT_NSJAIL_PREFIX "%s", path) < 0) {
		import_result_free(out);
		return oom(err);
	}
	rc = policy_load_text(label, out->text, out->len, p, err);
	if (rc == 0 && (rc = nj_remap_origins(p, label, path, out, err)) < 0)
		policy_free(p);
	free(label);
	if (rc < 0)
		import_result_free(out);
	return rc;
}

int import_policy_load(const char *name_or_path, struct policy *out, FILE *warn,
		       struct sbx_err *err)
{
	size_t n = strlen(IMPORT_NSJAIL_PREFIX);
	struct import_result r;

	if (strncmp(name_or_path, IMPORT_NSJAIL_PREFIX, n) != 0)
		return policy_load(name_or_path, out, err);
	if (!name_or_path[n])
		return err_set(err, ERR_USAGE, 0, "-p nsjail: needs a file (-p nsjail:FILE)");
	if (import_nsjail_policy(name_or_path + n, out, &r, err) < 0)
		return -1;
	for (size_t i = 0; warn && i < r.nnotes; i++)
		fprintf(warn, "sbx: warning: %s: %s\n", r.notes[i].where, r.notes[i].text);
	for (char **a = r.argv; a && *a; a++)
		if (strlist_push(&out->default_command, *a, NULL) < 0) {
			import_result_free(&r);
			policy_free(out);
			return oom(err);
		}
	import_result_free(&r);
	return 0;
}

void import_result_free(struct import_result *r)
{
	free(r->text);
	for (size_t i = 0; i < r->nnotes; i++) {
		free(r->notes[i].where);
		free(r->notes[i].text);
	}
	free(r->notes);
	if (r->argv)
		for (char **a = r->argv; *a; a++)
			free(*a);
	free(r->argv);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}
