/*
 * preset.h - the policy a run starts from (-p, --lang).
 *
 * -p names the base policy; --lang LANG names a preset (a policy with a
 * lang block), "auto" picks the preset (built-in or installed) whose lang.extensions has
 * FILE's extension.  With both, a -p policy without a lang block borrows
 * the preset's.  The command line's overrides are applied afterwards
 * (policy/override.h; src/cmd/effective.c does both).
 */
#ifndef SBX_LANG_PRESET_H
#define SBX_LANG_PRESET_H

#include "base/err.h"
#include "policy/policy.h"

/*
 * Load the base policy into OUT: POLICY (-p; NULL = none), else the preset
 * LANG (--lang; NULL = none), else "default".  POLICY "nsjail:FILE" is an
 * nsjail config, translated (its notes printed on stderr as warnings, its
 * exec_bin in OUT->default_command).  FILE is the first operand
 * (NULL when there is none), which --lang auto needs.  On error OUT is
 * zeroed (nothing to free).
 */
int lang_load_base(const char *policy, const char *lang, const char *file,
		   struct policy *out, struct sbx_err *err);

/*
 * Config error when no policy named LANG can be loaded: the message says
 * why and lists the built-in language presets.
 */
int lang_check_known(const char *lang, struct sbx_err *err);

/* The file-name extension of PATH (".py"), or "" when it has none. */
const char *lang_extension(const char *path);

#endif
