/*
 * learn.c - `sbx learn [OPTIONS] -- COMMAND`: one trial run, then the
 * policy that run needed, on stdout.
 *
 * The run is `sbx run`'s (run.c) with a learning filter: every call the
 * policy allows runs as always; a call outside it that no @group keeps
 * apart (scgroups.c) is let through and counted by the supervisor
 * (notify.c); everything else is refused as under the policy, and shown
 * at the end of the output, not learned.  The printed policy is the
 * effective one, flattened as `sbx explain` prints it, with each learned
 * call added to seccomp.allow and a comment saying how often it was seen,
 * so `sbx run -p FILE ...` reruns the command under it.  The program's
 * stdout goes to stderr meanwhile: stdout is the policy's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/run.h"
#include "jail/scnotify.h"
#include "jail/seccomp.h"
#include "record/denied.h"

/* The @group (not @default) that holds NAME, or NULL. */
static const struct sc_group *group_of(const char *name)
{
	for (size_t i = 0; i < sc_groups_count; i++) {
		if (strcmp(sc_groups[i].name, "@default") == 0)
			continue;
		for (const char *const *s = sc_groups[i].syscalls; *s; s++)
			if (strcmp(*s, name) == 0)
				return &sc_groups[i];
	}
	return NULL;
}

/* Add each learned call to P's allowlist, its count as the origin. */
static int add_learned(struct policy *p, const struct learned_calls *l, size_t *added)
{
	struct origin at = { 0 };
	char name[32], text[64];

	*added = 0;
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		if (!l->seen[nr])
			continue;
		sc_syscall_name(nr, name, sizeof(name));
		snprintf(text, sizeof(text), "sbx learn: seen %" PRIu64 " time%s", l->seen[nr],
			 l->seen[nr] == 1 ? "" : "s");
		if (strlist_push(&p->interned, text, NULL) < 0)
			return -1;
		at.option = p->interned.v[p->interned.n - 1];
		if (strlist_push(&p->seccomp.allow, name, &at) < 0)
			return -1;
		(*added)++;
	}
	return 0;
}

static void print_header(FILE *out, char *const *argv, size_t added)
{
	fputs("# sbx learn: the policy one trial run of `", out);
	/* argv carries names an attacker chose: a newline must not end the comment */
	for (size_t i = 0; argv && argv[i]; i++) {
		fputs(i ? " " : "", out);
		policy_write_comment_text(out, argv[i]);
	}
	fprintf(out, "` needed:\n# its policy, plus %zu call%s the run made outside it "
		     "(\"from sbx learn\" below).\n", added, added == 1 ? "" : "s");
	fputs("# A trial run sees only the paths it took: other inputs, options or\n"
	      "# environments may need calls it never made.  Run it with\n"
	      "#   sbx run -p THIS_FILE [the same options] -- COMMAND\n", out);
}

/* The calls refused during the trial run: not learned, and why. */
static void print_refused(FILE *out, const struct denied_report *d)
{
	char err[32];

	if (!d || d->n == 0)
		return;
	fputs("# refused during the trial run and not learned (sbx(1), LEARNING):\n", out);
	for (size_t i = 0; i < d->n; i++) {
		const struct denied_call *c = &d->v[i];
		const struct sc_group *g = group_of(c->name);

		denied_errno_name(c->err, err, sizeof(err));
		/* the name and argument come from the supervisor: escaped all the same */
		fputs("#   ", out);
		policy_write_comment_text(out, c->name);
		if (c->arg >= 0) {
			fputs(" (", out);
			policy_write_comment_text(out, c->arg_text);
			fputc(')', out);
		}
		fprintf(out, ": %s x%" PRIu64 "%s%s%s%s\n", c->err ? err : "killed", c->count,
			g ? " - " : c->arg >= 0 ? " - a fixed rule of every sbx filter" : " - denied by the policy",
			g ? g->name : "", g ? ": " : "", g ? g->why : "");
	}
}

static int learn_finish(struct run_learn *l, struct policy *p, char *const *argv,
			const struct result *r, int status)
{
	size_t added = 0;

	/* nothing ran (a usage, policy or setup error): the record says why */
	if (!p || r->status == ST_CONFIG_ERROR || r->status == ST_SETUP_ERROR)
		return status;
	if (!l->calls.available) {
		fprintf(stderr, "sbx: learn: no policy printed: the trial run could not learn "
			"(%s); sbx learn needs seccomp user notification (Linux 5.0+) and no "
			"--no-syscall-report\n",
			l->calls.why_none[0] ? l->calls.why_none : "no seccomp listener");
		return 125;
	}
	if (add_learned(p, &l->calls, &added) < 0) {
		fprintf(stderr, "sbx: learn: out of memory\n");
		return 125;
	}
	print_header(stdout, argv, added);
	if (policy_write_text(p, stdout) < 0) {
		fprintf(stderr, "sbx: learn: writing the policy to stdout: %s\n", strerror(errno));
		return 125;
	}
	print_refused(stdout, r->denied);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "sbx: learn: writing the policy to stdout: %s\n", strerror(errno));
		return 125;
	}
	return status;
}

int cmd_learn(int argc, char **argv)
{
	static struct run_learn learn = { .finish = learn_finish };

	return run_main(argc, argv, &learn);
}
