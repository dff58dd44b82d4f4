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

#include <stdio.h>
#include <string.h>

void policy_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\%03o", *p); /* three digits: never eats a following digit */
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* Text inside a comment: a newline in a file name must not end the comment. */
void policy_write_comment_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
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
