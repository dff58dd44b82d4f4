/*
 * argv.c - NULL-terminated string vectors; see argv.h.
 */
#include "base/argv.h"

#include <errno.h>
#include <stdlib.h>

void argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

int argv_push(struct argv_builder *b, char *s, struct sbx_err *err)
{
	if (!s)
		return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	if (b->n + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		char **v = realloc(b->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			return err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
		}
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = s;
	b->v[b->n] = NULL;
	return 0;
}

char **argv_finish(struct argv_builder *b, struct sbx_err *err)
{
	char **v = b->v ? b->v : calloc(1, sizeof(*v));

	if (!v)
		err_set(err, ERR_INTERNAL, ENOMEM, "out of memory");
	*b = (struct argv_builder){ 0 };
	return v;
}
