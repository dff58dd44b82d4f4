/*
 * fuzz_writer.c - libFuzzer target for the policy text writers.
 *
 * Any bytes (up to a NUL) written as a comment and as a string literal must
 * give text that is one line each (no raw control byte, nothing that is
 * not UTF-8) and that parses back to the fields written, in order: the
 * comment adds nothing, and the string decodes to the same bytes.  Bytes
 * that are not UTF-8 cannot be a value: then the parse must fail at the
 * string itself, never earlier.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

static char *written(const char *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	fputs("# ", f);
	policy_write_comment_text(f, s);
	fputs("\nname: \"end\"  # ", f);
	policy_write_comment_text(f, s);
	fputs("\ndescription: ", f);
	policy_write_string(f, s);
	fputc('\n', f);
	if (fclose(f) != 0)
		abort();
	return buf;
}

static void check_one_line_each(const char *text, size_t len)
{
	size_t newlines = 0;

	if (!utf8_valid(text, len)) {
		fprintf(stderr, "the writer's text is not UTF-8:\n%s", text);
		abort();
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		newlines += c == '\n';
		if ((c < 0x20 && c != '\n') || c == 0x7f) {
			fprintf(stderr, "raw control byte 0x%02x at %zu:\n%s", c, i, text);
			abort();
		}
	}
	if (newlines != 3) {
		fprintf(stderr, "%zu lines, want 3:\n%s", newlines, text);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size), *text;
	size_t len = 0, slen;
	struct sbx_err err = { 0 };
	struct ptree t;

	if (!s)
		abort();
	slen = strlen(s);
	text = written(s, &len);
	check_one_line_each(text, len);
	if (ptree_parse("w.policy", text, len, &t, &err) < 0) {
		/* only the string may fail, and only for bytes that are not UTF-8 */
		if (utf8_valid(s, slen) || !strstr(err.msg, "w.policy:3:")) {
			fprintf(stderr, "written text does not parse: %s\n%s", err.msg, text);
			abort();
		}
	} else {
		const struct pvalue *d = t.nfields == 2 ? &t.fields[1].value : NULL;

		if (!d || strcmp(t.fields[0].name, "name") != 0 ||
		    strcmp(t.fields[1].name, "description") != 0 || d->kind != PV_STRING ||
		    d->len != slen || memcmp(d->text, s, slen) != 0) {
			fprintf(stderr, "the parse is not what was written:\n%s", text);
			abort();
		}
		ptree_free(&t);
	}
	free(text);
	free(s);
	return 0;
}
