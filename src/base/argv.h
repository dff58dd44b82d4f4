/*
 * argv.h - NULL-terminated string vectors (argv, envp) built one string at
 * a time.  Every argv sbx hands to a jail is built here and freed with
 * argv_free(): the command, a preset's templates, the target environment.
 */
#ifndef SBX_ARGV_H
#define SBX_ARGV_H

#include <stddef.h>

#include "base/err.h"

/* An argv being built: V is NULL until the first push, then NULL-terminated. */
struct argv_builder {
	char **v;
	size_t n, cap;
};

/* Append S, which the builder then owns (NULL = out of memory, reported
 * in ERR; S is freed when the append fails). */
int argv_push(struct argv_builder *b, char *s, struct sbx_err *err);

/* The vector built so far, handed to the caller: never NULL when it
 * succeeds, an empty vector when nothing was pushed (an empty envp). */
char **argv_finish(struct argv_builder *b, struct sbx_err *err);

/* Free a NULL-terminated vector of allocated strings (NULL is fine). */
void argv_free(char **argv);

#endif
