/*
 * env.c - the environment of the program `sbx run` starts; see env.h.
 */
#include "cmd/env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/argv.h"

/* Add "NAME=VALUE", replacing an earlier entry for NAME. */
static int env_set(struct argv_builder *b, const char *entry, struct sbx_err *err)
{
	size_t name_len = strcspn(entry, "=");
	char *copy = strdup(entry);

	for (size_t i = 0; copy && i < b->n; i++)
		if (!strncmp(b->v[i], entry, name_len + 1)) {
			free(b->v[i]);
			b->v[i] = copy;
			return 0;
		}
	return argv_push(b, copy, err);
}

static int env_keep_host(struct argv_builder *b, const char *name,
			 struct sbx_err *err)
{
	const char *value = getenv(name);
	char *entry;
	int rc;

	if (!value)
		return 0;
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	rc = env_set(b, entry, err);
	free(entry);
	return rc;
}

int env_build(const struct policy *p, bool terminal, char ***envp, struct sbx_err *err)
{
	struct argv_builder b = { 0 };
	int rc = 0;

	/* -i: full-screen programs draw for the caller's terminal type; a
	 * policy or --env TERM, set after, still wins */
	if (terminal && getenv("TERM"))
		rc = env_keep_host(&b, "TERM", err);

	for (size_t i = 0; rc == 0 && i < p->env.n; i++)
		if (!p->env.at[i].option)
			rc = env_set(&b, p->env.v[i], err);
	for (size_t i = 0; rc == 0 && i < p->env_keep.n; i++)
		rc = env_keep_host(&b, p->env_keep.v[i], err);
	for (size_t i = 0; rc == 0 && i < p->env.n; i++)
		if (p->env.at[i].option)
			rc = env_set(&b, p->env.v[i], err);
	if (rc < 0) {
		argv_free(b.v);
		return -1;
	}
	*envp = argv_finish(&b, err);
	return *envp ? 0 : -1;
}
