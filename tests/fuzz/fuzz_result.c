/*
 * fuzz_result.c - libFuzzer target over the record writer: every string
 * in the record is valid UTF-8, whatever the caller passes.
 *
 * The input is split at NUL bytes into every string field of a struct
 * result: argv, message, policy name, hostname, file paths, skipped paths,
 * captured stdout/stderr (repaired as the supervisor does), and a compile
 * stage with its own argv; the input's first byte marks files at the
 * file-size limit or not copied by -o, whose names result_note_files()
 * writes into the message.  The record must be valid UTF-8 (checked by an
 * independent decoder, not utf8.c's), must parse back, must keep valid
 * strings byte for byte, and strings_lossy must be true exactly when some
 * field was not UTF-8.  Nothing is run.
 */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workspace/artifacts.h"
#include "record/result.h"
#include "supervise/capture.h"

#define MAX_FIELDS 24

/* An oracle independent of src/utf8.c: decode code points and range-check. */
static size_t oracle_seq(const unsigned char *s, size_t avail)
{
	unsigned c = s[0], cp;
	size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
		 : (c & 0xF8) == 0xF0 ? 4 : 0;

	if (n == 0 || n > avail)
		return 0;
	cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

static int oracle_valid(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if ((n = oracle_seq((const unsigned char *)s + i, len - i)) == 0)
			return 0;
	return 1;
}

struct fields {
	char *v[MAX_FIELDS];
	size_t n;
};

/* Field I; sets *INVALID when it is not UTF-8 (that record must say lossy). */
static const char *field(const struct fields *f, size_t i, int *invalid)
{
	const char *s = i < f->n ? f->v[i] : "";

	if (!oracle_valid(s, strlen(s)))
		*invalid = 1;
	return s;
}

/* Check a parsed string equals its valid source exactly. */
static void same_if_valid(const cJSON *node, const char *src)
{
	if (!cJSON_IsString(node))
		abort();
	if (oracle_valid(src, strlen(src)) && strcmp(node->valuestring, src) != 0)
		abort();
}

/* One stage record J of R: lossy flag right, valid strings kept as they are. */
static void check_stage(const cJSON *j, const struct result *r, int want_lossy)
{
	if (!j || cJSON_IsTrue(cJSON_GetObjectItem(j, "strings_lossy")) != want_lossy)
		abort();
	const cJSON *cmd = cJSON_GetObjectItem(j, "command");
	for (int i = 0; r->command[i]; i++)
		same_if_valid(cJSON_GetArrayItem(cmd, i), r->command[i]);
	same_if_valid(cJSON_GetObjectItem(j, "message"), r->message);
	same_if_valid(cJSON_GetObjectItem(j, "policy"), r->policy->name);
}

static void fill(struct result *r, struct policy *p, const struct fields *f, char **argv,
		 size_t first, int *invalid)
{
	result_init(r);
	memset(p, 0, sizeof(*p));
	p->name = (char *)field(f, first, invalid);
	p->hostname = (char *)field(f, first + 1, invalid);
	p->uid = p->gid = 65534;
	r->policy = p;
	r->status = ST_NONZERO_EXIT;
	r->has_exit_code = true;
	r->exit_code = 1;
	snprintf(r->message, sizeof(r->message), "%s", field(f, first + 2, invalid));
	if (!oracle_valid(r->message, strlen(r->message)))
		*invalid = 1; /* the 512-byte cut can split a character */
	for (int i = 0; i < 3; i++)
		argv[i] = (char *)field(f, first + 3 + i, invalid);
	argv[3] = NULL;
	r->command = argv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fields f = { .n = 0 };
	int bad = 0, comp_bad = 0;
	cJSON *j;
	struct result r, comp;
	struct policy p, cp;
	char *argv[4], *cargv[4], *buf, *text;
	struct art_file files[2];
	struct artifacts a;

	if (size > 8192 || !(buf = malloc(size + 1)))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size && f.n < MAX_FIELDS; i += strlen(buf + i) + 1)
		f.v[f.n++] = buf + i;
	fill(&r, &p, &f, argv, 0, &bad);
	fill(&comp, &cp, &f, cargv, 6, &comp_bad);
	memset(files, 0, sizeof(files));
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 2; i++) {
		unsigned bits = size ? data[0] >> (1 + 3 * i) : 0;

		files[i].path = (char *)field(&f, 12 + i, &bad);
		files[i].mode = S_IFREG | 0644;
		files[i].at_size_limit = bits & 1;
		files[i].copy = (enum art_copy)((bits >> 1) % 3);
		files[i].copy_reason = ART_R_OUT_FAILED;
	}
	a.v = files;
	a.n = 2;
	a.truncation.skipped[0] = (char *)field(&f, 14, &bad);
	a.truncation.nskipped = 1;
	a.truncation.skipped_count = 1;
	r.files = &a;
	size_t said = strlen(r.message);
	bool noted = files[0].at_size_limit || files[1].at_size_limit ||
		     files[0].copy == ART_COPY_MISSED || files[1].copy == ART_COPY_MISSED;
	result_note_files(&r);
	/* with room left, a marked file is always told of */
	if (noted && said < 100 && !strstr(r.message, "file-size limit") &&
	    !strstr(r.message, "-o output incomplete"))
		abort();
	if (!oracle_valid(r.message, strlen(r.message)))
		bad = 1; /* a file name, or the 512-byte cut of one */
	r.compile = &comp;
	r.stage = "run";
	r.capture = true;
	/* captured output goes through the supervisor's repair, NULs kept */
	const char *o = f.n > 15 ? f.v[15] : "", *e = f.n > 16 ? f.v[16] : "";
	if (utf8_sanitize((const unsigned char *)o, strlen(o), size && (data[0] & 1), &r.out) ||
	    utf8_sanitize((const unsigned char *)e, strlen(e), false, &r.err))
		abort();
	text = result_to_json(&r);
	if (!text || !oracle_valid(text, strlen(text)) || !(j = cJSON_Parse(text)))
		abort();
	check_stage(j, &r, bad);
	check_stage(cJSON_GetObjectItem(j, "compile"), &comp, comp_bad);
	cJSON_Delete(j);
	free(text);
	result_free(&r);
	free(buf);
	return 0;
}
