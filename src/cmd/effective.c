/*
 * effective.c - options -> the one effective policy; see effective.h.
 *
 * Three layers meet here, each doing its own part: lang/preset.c picks and
 * loads the base, policy/override.c applies the options (clamps, sealed
 * rule), policy/scratch.c moves the scratch /tmp aside from a bind in it,
 * policy/mounts.c checks the mount table they produce.
 */
#include "cmd/effective.h"

#include <string.h>

#include "lang/preset.h"
#include "policy/override.h"

int effective_policy(const struct cli_options *o, struct policy *out,
		     struct sbx_err *err)
{
	const char *file = o->ncommand > 0 ? o->command[0] : NULL;

	if (lang_load_base(o->policy, o->lang, file, out, err) < 0)
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
