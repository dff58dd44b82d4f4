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
 * The name of the base policy in *BASE: POLICY (-p; NULL = none), else the
 * preset *LANG (--lang; NULL = none), else "default".  --lang auto picks
 * the preset by FILE's extension (FILE: the first operand, NULL when there
 * is none) and leaves its name in *LANG.  The caller loads *BASE (an
 * "nsjail:FILE" through the importer), then lang_complete_base().
 */
int lang_choose_base(const char *policy, const char *file, const char **base,
		     const char **lang, struct sbx_err *err);
/*
 * The loaded base P with --lang LANG: a preset already, or -p POLICY with
 * no lang block of its own takes LANG's.  On error P is freed and zeroed.
 */
int lang_complete_base(struct policy *p, const char *policy, const char *lang,
		       struct sbx_err *err);

/*
 * Config error when no policy named LANG can be loaded: the message says
 * why and lists the built-in language presets.
 */
int lang_check_known(const char *lang, struct sbx_err *err);

/* The file-name extension of PATH (".py"), or "" when it has none. */
const char *lang_extension(const char *path);

#endif
