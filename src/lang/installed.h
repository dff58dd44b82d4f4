/*
 * installed.h - every preset name sbx knows: the built-in policies, then
 * /etc/sbx/NAME.policy, then $XDG_CONFIG_HOME/sbx/NAME.policy (run by
 * root, only from the directories policy/trust.h trusts); a later one
 * replaces an earlier one of the same name, as policy_load() resolves
 * names.  `sbx langs` lists them and --lang auto chooses among them.
 */
#ifndef SBX_LANG_INSTALLED_H
#define SBX_LANG_INSTALLED_H

#include <stddef.h>

struct lang_preset {
	char *name;
	char *path;     /* NULL = built-in */
};

struct lang_preset_list {
	struct lang_preset *v;
	size_t n;
};

/* Fill L (zeroed by the caller); -1 when out of memory. */
int lang_presets_collect(struct lang_preset_list *l);
void lang_presets_free(struct lang_preset_list *l);

#endif
