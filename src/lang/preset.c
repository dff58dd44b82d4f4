/*
 * preset.c - which policy a run starts from: -p, a --lang preset, or the
 * preset --lang auto picks by the file's extension; see preset.h.
 *
 * The choice is preset knowledge (extensions, lang blocks, the built-in
 * list), so it lives with the presets; loading what was chosen (-p
 * nsjail:FILE through the importer) and applying the command line's
 * overrides on top are src/cmd/effective.c's, for run and explain.
 */
#include "lang/preset.h"

#include <stdio.h>
#include <string.h>

#include "lang/installed.h"
#include "policy/builtin.h"
#include "policy/override.h"

const char *lang_extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return (dot && dot != base) ? dot : "";
}

int lang_check_known(const char *lang, struct sbx_err *err)
{
	char avail[256] = "";
	struct policy p;

	if (!strcmp(lang, "auto") || policy_load(lang, &p, err) == 0) {
		if (strcmp(lang, "auto") != 0)
			policy_free(&p);
		return 0;
	}
	if (err->cause != CAUSE_NOT_FOUND)
		return -1; /* it exists but is invalid (or includes what is missing): that message says why */
	for (size_t i = 0; i < builtin_policies_count; i++) {
		struct sbx_err ignored;
		size_t len = strlen(avail);

		if (policy_load(builtin_policies[i].name, &p, &ignored) < 0)
			continue;
		if (p.lang.present)
			snprintf(avail + len, sizeof(avail) - len, "%s%s",
				 len ? ", " : "", builtin_policies[i].name);
		policy_free(&p);
	}
	return err_prefix(err, "--lang %s: unknown language (available: %s, or auto; 'sbx langs' shows installed presets too)",
			  lang, avail);
}

/* ---- --lang auto -------------------------------------------------------- */

static bool has_extension(const struct policy *p, const char *ext)
{
	for (size_t i = 0; i < p->lang.extensions.n; i++)
		if (strcmp(p->lang.extensions.v[i], ext) == 0)
			return true;
	return false;
}

/* "bash (.sh .bash), py (.py)" for the error that lists the presets. */
static void append_preset(char *buf, size_t size, const struct policy *p,
			  const char *name)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s (", len ? ", " : "", name);
	for (size_t i = 0; i < p->lang.extensions.n; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "",
			 p->lang.extensions.v[i]);
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, ")");
}

/*
 * --lang auto: the preset (built-in or installed, as `sbx langs` lists
 * them) whose lang.extensions has FILE's extension; a preset named like
 * the extension (".sh" -> sh) wins a tie.  *NAME points to a static copy.
 */
static int pick_auto_lang(const char *file, const char **name,
			  struct sbx_err *err)
{
	static char picked[256];
	const char *ext = lang_extension(file);
	struct lang_preset_list l = { 0 };
	char avail[768] = "";
	struct sbx_err ignored;

	*name = NULL;
	if (lang_presets_collect(&l) < 0)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	for (size_t i = 0; i < l.n; i++) {
		struct policy p = { 0 };
		const char *n = l.v[i].name;

		if (policy_load(n, &p, &ignored) < 0)
			continue;
		if (p.lang.present) {
			append_preset(avail, sizeof(avail), &p, n);
			if (*ext && has_extension(&p, ext) && strlen(n) < sizeof(picked) &&
			    (!*name || strcmp(n, ext + 1) == 0))
				*name = strcpy(picked, n);
		}
		policy_free(&p);
	}
	lang_presets_free(&l);
	if (*name)
		return 0;
	return err_set(err, ERR_CONFIG, 0,
		       "--lang auto: no language preset for '%s' files (available: %s; name one with --lang)",
		       *ext ? ext : file, *avail ? avail : "none");
}

/* ---- the base policy: -p, --lang L, --lang auto ------------------------- */

/* -p P --lang L where P has no lang block: take L's. */
static int borrow_lang(struct policy *p, const char *lang, struct sbx_err *err)
{
	struct policy donor = { 0 };
	int rc = 0;

	if (policy_load(lang, &donor, err) < 0)
		return err_prefix(err, "--lang %s", lang);
	if (!donor.lang.present)
		rc = err_set(err, ERR_CONFIG, 0,
			     "--lang %s: policy '%s' has no lang block (it is not a language preset)",
			     lang, lang);
	if (rc == 0)
		rc = policy_borrow_lang(p, &donor, err);
	policy_free(&donor);
	return rc;
}

int lang_choose_base(const char *policy, const char *file, const char **base,
		     const char **lang, struct sbx_err *err)
{
	if (*lang && strcmp(*lang, "auto") == 0) {
		if (!file)
			return err_set(err, ERR_USAGE, 0,
				       "--lang auto needs FILE to pick a preset by its extension");
		if (!strcmp(file, "-"))
			return err_set(err, ERR_USAGE, 0, "--lang auto cannot pick a preset for "
				       "a program on stdin (it has no extension); name one, "
				       "e.g. --lang py -");
		if (pick_auto_lang(file, lang, err) < 0)
			return -1;
	}
	*base = policy ? policy : (*lang ? *lang : "default");
	return 0;
}

int lang_complete_base(struct policy *p, const char *policy, const char *lang,
		       struct sbx_err *err)
{
	int rc = 0;

	if (lang && !p->lang.present) {
		if (!policy)
			rc = err_set(err, ERR_CONFIG, 0, "--lang %s: policy '%s' has no lang block "
				     "(it is not a language preset; see 'sbx langs')", lang, lang);
		else
			rc = borrow_lang(p, lang, err);
	}
	if (rc < 0) {
		policy_free(p);
		memset(p, 0, sizeof(*p));
	}
	return rc;
}
