/*
 * doc_extract.h - the examples of sbx's documentation, read from the files
 * themselves, for test_doc_examples.c.
 *
 * Markdown: every line of a ```sh block, every "$ " line of a ```console
 * block (with the lines it shows below it).  Roff: every .EX/.EE block,
 * unescaped; "$ " lines as in markdown, a block starting with "sbx " as
 * one script, a Makefile, a record, a "FILE:LINE:COL: message", or else a
 * policy.  Help: every quoted 'sbx ...' command and "e.g." option of
 * `sbx help` and `sbx help COMMAND`.
 */
#ifndef SBX_TEST_DOC_EXTRACT_H
#define SBX_TEST_DOC_EXTRACT_H

#include <stddef.h>

enum ex_kind { EX_SHELL, EX_POLICY, EX_MAKEFILE, EX_RECORD, EX_MESSAGE };

struct example {
	char where[160];   /* "README.md:31" */
	enum ex_kind kind;
	char *text;        /* the command or script, policy, Makefile, ... */
	char *shown;       /* output a console block shows, or NULL */
};

struct ex_list {
	struct example *v;
	size_t n;
};

/* Append the examples of the file REL (relative to the source tree). */
void ex_from_markdown(struct ex_list *l, const char *rel);
void ex_from_roff(struct ex_list *l, const char *rel);
/* Append the examples of the help texts of SBX (a path). */
void ex_from_help(struct ex_list *l, const char *sbx);
void ex_list_free(struct ex_list *l);

/* The first line of TEXT, malloc'd (what expectations are keyed by). */
char *ex_first_line(const char *text);

#endif
