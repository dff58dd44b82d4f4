/*
 * installed.c - the built-in and installed preset names; see installed.h.
 */
#include "lang/installed.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtin.h"
#include "policy/trust.h"

/* Add or override NAME; later calls win (higher precedence). */
static int preset_put(struct lang_preset_list *l, const char *name, const char *path)
{
	char *n = strdup(name), *p = path ? strdup(path) : NULL;
	struct lang_preset *v;

	if (!n || (path && !p))
		goto oom;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name)) {
			free(n);
			free(l->v[i].path);
			l->v[i].path = p;
			return 0;
		}
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		goto oom;
	l->v = v;
	v[l->n++] = (struct lang_preset){ n, p };
	return 0;
oom:
	free(n);
	free(p);
	return -1;
}

static int scan_dir(struct lang_preset_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0; /* no such directory: nothing installed there */
	while (rc == 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *path, *name;

		if (len <= 7 || strcmp(e->d_name + len - 7, ".policy") != 0)
			continue;
		name = strndup(e->d_name, len - 7);
		if (!name || asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			free(name);
			rc = -1;
			break;
		}
		rc = preset_put(l, name, path);
		free(name);
		free(path);
	}
	closedir(d);
	return rc;
}

int lang_presets_collect(struct lang_preset_list *l)
{
	/* the same directory policy_load reads: as root, never one another
	 * user controls (trust.h); each file is checked again as it loads */
	char *dir = policy_config_dir();
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < builtin_policies_count; i++)
		rc = preset_put(l, builtin_policies[i].name, NULL);
	if (rc == 0)
		rc = scan_dir(l, "/etc/sbx");
	if (rc == 0 && dir)
		rc = scan_dir(l, dir);
	free(dir);
	return rc;
}

void lang_presets_free(struct lang_preset_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
