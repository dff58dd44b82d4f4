/*
 * writer.c - a struct policy in canonical text form (`sbx explain`).
 *
 * One field per line, each followed by where its value came from.  The
 * output is flattened: includes are listed as comments because their
 * content is already in the fields below.  Limits that are not set are
 * shown as comments with their default, so the reader sees every
 * effective value while the text still parses back to the same policy.
 */
#include "policy/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

/*
 * Whether the character at P (AVAIL bytes left) may be written as it is;
 * *LEN gets its length (1 for a byte that starts no UTF-8 sequence).  Not
 * plain: C0 and C1 controls and DEL (a newline would end a comment and
 * start policy text; the others move terminals), the line and paragraph
 * separators (editors break the line there), the bidirectional marks and
 * overrides (the text would show in another order than it parses), and
 * bytes that are not UTF-8.
 */
static bool plain_char(const unsigned char *p, size_t avail, size_t *len)
{
	size_t prefix, n = utf8_seq_len(p, avail, &prefix);
	uint32_t cp;

	*len = n ? n : 1;
	if (n == 0)
		return false;
	if (n == 1)
		return *p >= 0x20 && *p < 0x7f;
	cp = p[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (p[i] & 0x3f);
	return !(cp <= 0x9f || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
		 (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069));
}

/* The letter of C's one-letter escape ("\\n"), or 0; QUOTED: inside "". */
static int short_escape(unsigned char c, bool quoted)
{
	switch (c) {
	case '\n': return 'n';
	case '\t': return 't';
	case '\r': return 'r';
	case '\\': return '\\';
	case '"': return quoted ? '"' : 0;
	default: return 0;
	}
}

/* S with C escapes the lexer decodes back to the same bytes. */
static void write_escaped(FILE *out, const char *s, bool quoted)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n = 1;

	for (; left > 0; p += n, left -= n) {
		int letter = short_escape(*p, quoted);

		n = 1;
		if (letter)
			fprintf(out, "\\%c", letter);
		else if (plain_char(p, left, &n))
			fwrite(p, 1, n, out);
		else
			for (size_t i = 0; i < n; i++) /* three digits: never eats a digit after */
				fprintf(out, "\\%03o", p[i]);
	}
}

void policy_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	write_escaped(out, s, true);
	fputc('"', out);
}

/* Text inside a comment: a newline in a file name must not end the comment. */
void policy_write_comment_text(FILE *out, const char *s)
{
	write_escaped(out, s, false);
}

static void write_origin(FILE *out, const struct origin *o)
{
	fputs("  # ", out);
	if (!o->option && !o->file) {
		fputs("default\n", out);
		return;
	}
	fputs("from ", out);
	policy_write_comment_text(out, o->option ? o->option : o->file);
	if (!o->option && o->line > 0)
		fprintf(out, ":%d", o->line);
	fputc('\n', out);
}

static void write_scalar(FILE *out, const struct policy *p, const struct scalar_desc *d,
			 const char *indent, const char *name)
{
	const char *base = (const char *)p;
	const struct origin *at = (const struct origin *)(base + d->at_offset);

	fprintf(out, "%s%s: ", indent, name);
	switch (d->type) {
	case FT_STRING:
	case FT_HOSTNAME:
	case FT_PATH:
		policy_write_string(out, *(char *const *)(base + d->offset));
		break;
	case FT_ID:
		fprintf(out, "%u", *(const uint32_t *)(base + d->offset));
		break;
	case FT_ERRNO:
		fprintf(out, "%d", *(const int *)(base + d->offset));
		break;
	case FT_BOOL:
		fputs(*(const bool *)(base + d->offset) ? "true" : "false", out);
		break;
	case FT_NETWORK:
		fputs(net_names[*(const enum net_mode *)(base + d->offset)], out);
		break;
	default:
		fputs(action_names[*(const enum sc_action *)(base + d->offset)], out);
		break;
	}
	write_origin(out, at);
}

static void write_top_scalars(FILE *out, const struct policy *p)
{
	for (size_t i = 0; i < policy_scalars_count; i++) {
		const struct scalar_desc *d = &policy_scalars[i];

		if (strchr(d->name, '.'))
			continue;
		if ((d->type == FT_STRING || d->type == FT_PATH) &&
		    !*(char *const *)((const char *)p + d->offset)) {
			if (strcmp(d->name, "cwd") == 0)
				fputs("# cwd: not set (the workspace)\n", out);
			continue;
		}
		write_scalar(out, p, d, "", d->name);
	}
}

static void write_value(FILE *out, uint64_t v)
{
	if (v == LIMIT_UNLIMITED)
		fputs("unlimited", out);
	else
		fprintf(out, "%llu", (unsigned long long)v);
}

/* An unset limit of P, as a comment: its default, or how it is derived. */
static void write_unset_limit(FILE *out, const struct policy *p, enum limit_id id)
{
	fprintf(out, "  # %s: ", limit_names[id]);
	write_value(out, policy_limit(p, id));
	if (id == LIM_CPU_TIME_MS)
		fprintf(out, "  (not set: derived from wall_time_ms x %u CPUs%s)\n",
			policy_cpu_count(), policy_limit(p, id) == p->max_limits.v[id]
			? ", lowered to max_limits" : "");
	else
		fputs("  (default)\n", out);
}

/* P (not NULL): show P's unset limits as comments holding the default. */
static void write_limits(FILE *out, const char *indent, const char *name,
			 const struct limits *l, const struct policy *p)
{
	fprintf(out, "%s%s {\n", indent, name);
	for (int i = 0; i < LIM_COUNT; i++) {
		if (l->v[i]) {
			fprintf(out, "%s  %s: ", indent, limit_names[i]);
			write_value(out, l->v[i]);
			write_origin(out, &l->at[i]);
		} else if (p) {
			write_unset_limit(out, p, (enum limit_id)i);
		}
	}
	fprintf(out, "%s}\n", indent);
}

static void write_mount(FILE *out, const struct mount_entry *m)
{
	fputs("mount { dst: ", out);
	policy_write_string(out, m->dst);
	fprintf(out, " type: %s", mount_type_names[m->type]);
	if (m->src) {
		fputs(" src: ", out);
		policy_write_string(out, m->src);
	}
	if (m->rw)
		fputs(" rw: true", out);
	if (m->optional)
		fputs(" optional: true", out);
	if (m->noexec)
		fputs(" noexec: true", out);
	if (m->size_mb)
		fprintf(out, " size_mb: %llu", (unsigned long long)m->size_mb);
	fputs(" }", out);
	write_origin(out, &m->at);
}

static bool same_origin(const struct origin *a, const struct origin *b)
{
	return a->file == b->file && a->line == b->line && a->option == b->option;
}

/* Runs of entries from the same place share one line: name: ["a", "b"]. */
static void write_list(FILE *out, const char *indent, const char *name,
		       const struct strlist *l)
{
	for (size_t i = 0, j; i < l->n; i = j) {
		for (j = i + 1; j < l->n && same_origin(&l->at[i], &l->at[j]); j++)
			;
		fprintf(out, "%s%s: %s", indent, name, j - i > 1 ? "[" : "");
		for (size_t k = i; k < j; k++) {
			if (k > i)
				fputs(", ", out);
			policy_write_string(out, l->v[k]);
		}
		fputs(j - i > 1 ? "]" : "", out);
		write_origin(out, &l->at[i]);
	}
}

static void write_seccomp(FILE *out, const struct policy *p)
{
	fputs("seccomp {\n", out);
	for (size_t i = 0; i < policy_scalars_count; i++)
		if (strncmp(policy_scalars[i].name, "seccomp.", 8) == 0)
			write_scalar(out, p, &policy_scalars[i], "  ", policy_scalars[i].name + 8);
	write_list(out, "  ", "allow", &p->seccomp.allow);
	write_list(out, "  ", "deny", &p->seccomp.deny);
	fputs("}\n", out);
}

static void write_lang(FILE *out, const struct lang_spec *l)
{
	if (!l->present)
		return;
	fputs("lang {\n", out);
	write_list(out, "  ", "extensions", &l->extensions);
	if (l->run.n == 0)
		fputs("  # run: not set\n", out);
	write_list(out, "  ", "run", &l->run);
	write_list(out, "  ", "compile", &l->compile);
	write_list(out, "  ", "version", &l->version);
	for (int i = 0; i < LIM_COUNT; i++) {
		if (l->compile_limits.v[i]) {
			write_limits(out, "  ", "compile_limits", &l->compile_limits, NULL);
			break;
		}
	}
	fputs("}\n", out);
}

int policy_write_text(const struct policy *p, FILE *out)
{
	fputs("# effective policy", out);
	if (p->source) {
		fputs(" from ", out);
		policy_write_comment_text(out, p->source);
	}
	fputs("; includes are already applied below\n", out);
	for (size_t i = 0; i < p->includes.n; i++) {
		fputs("# include: ", out);
		policy_write_string(out, p->includes.v[i]);
		write_origin(out, &p->includes.at[i]);
	}
	write_top_scalars(out, p);
	write_limits(out, "", "limits", &p->limits, p);
	write_limits(out, "", "max_limits", &p->max_limits, NULL);
	for (size_t i = 0; i < p->nmounts; i++)
		write_mount(out, &p->mounts[i]);
	write_list(out, "", "env", &p->env);
	write_list(out, "", "env_keep", &p->env_keep);
	write_seccomp(out, p);
	write_lang(out, &p->lang);
	fflush(out);
	return ferror(out) ? -1 : 0;
}
