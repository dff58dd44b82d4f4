/*
 * effective.c - options -> the one effective policy; see effective.h.
 *
 * Four layers meet here, each doing its own part: lang/preset.c picks the
 * base, import/nsjail.c loads it (a policy, or an nsjail config it
 * translates), lang/preset.c gives it the --lang block it lacks,
 * policy/override.c applies the options (clamps, sealed
 * rule), policy/scratch.c moves the scratch /tmp aside from a bind in it,
 * policy/mounts.c checks the mount table they produce.
 */
#include "cmd/effective.h"

#include <stdio.h>
#include <string.h>

#include "import/nsjail.h"
#include "lang/preset.h"
#include "policy/override.h"

int effective_policy(const struct cli_options *o, struct policy *out,
		     struct sbx_err *err)
{
	const char *file = o->ncommand > 0 ? o->command[0] : NULL;
	const char *base = NULL, *lang = o->lang;

	memset(out, 0, sizeof(*out));
	if (lang_choose_base(o->policy, file, &base, &lang, err) < 0)
		return -1;
	/* -p nsjail:FILE is translated here; its notes go to stderr, once */
	if (import_policy_load(base, out, stderr, err) < 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (lang_complete_base(out, o->policy, lang, err) < 0)
		return -1;
	if (policy_apply_overrides(out, o->overrides, o->noverrides, o->workdir,
				   err) < 0 ||
	    policy_move_scratch(out, err) < 0 || policy_check_mounts(out, err) < 0) {
		policy_free(out);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}
