/*
 * load.c - policy files, built-ins and includes -> one struct policy.
 *
 * A name resolves to, in order: $XDG_CONFIG_HOME/sbx/NAME.policy (default
 * ~/.config; run by root, see trust.h), /etc/sbx/NAME.policy, the built-in NAME, NAME.policy next to
 * the including file.  The user's and the system's files come first so
 * they can override a preset; a candidate already being loaded is skipped,
 * so ~/.config/sbx/default.policy may itself `include: "default"` to
 * extend the built-in one.  An include with a '/' or ending in ".policy" is
 * a path, relative to the including file.  Each file's includes are applied
 * before its own fields.  Run by root, every file read is checked by
 * trust.c first.
 */
#include "base/cleanup.h"
#include "policy/builtin.h"
#include "policy/internal.h"
#include "policy/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct frame {
	char *id;            /* realpath or "builtin:NAME": cycle identity */
	const char *display; /* interned: how errors name the file */
};

struct loader {
	struct policy *p;
	struct frame stack[POLICY_MAX_INCLUDE_DEPTH + 1];
	int depth;
	struct sbx_err *err;
};

/* One policy text to load, from a file or from the built-in table. */
struct source {
	char *id, *display, *dir; /* dir: for relative includes; NULL for built-ins */
	char *text;               /* owned unless builtin */
	size_t len;
	const struct builtin_policy *builtin;
};

static void source_free(struct source *s)
{
	free(s->id);
	free(s->display);
	free(s->dir);
	if (!s->builtin)
		free(s->text);
	memset(s, 0, sizeof(*s));
}

#define cleanup_source __attribute__((cleanup(source_free)))

static int oom(struct sbx_err *err)
{
	return err_set(err, ERR_INTERNAL, 0, "out of memory");
}

/* Read PATH into S; 1 when it does not exist, -1 on any other failure. */
static int read_policy_file(const char *path, struct source *s, const struct ppos *at,
			    struct sbx_err *err)
{
	/* O_NONBLOCK: a FIFO planted as a policy must not hang the loader */
	int fd cleanup_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char reason[512];
	const char *why;
	struct stat st;
	ssize_t n;

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 1;
	/* a HOME the user cannot read (`su user` from root keeps HOME=/root)
	 * stops every run at its config candidate: say how to get past it */
	if (fd < 0 && errno == EACCES)
		return perr(err, at, "cannot open policy %s: %s (make it and the directories "
			    "above it readable; found through HOME or XDG_CONFIG_HOME, set "
			    "them to your own directories)", path, strerror(errno));
	if (fd < 0)
		return perr(err, at, "cannot open policy %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > POLICY_MAX_FILE)
		return perr(err, at, "policy %s is not a regular file of at most %u bytes",
			    path, POLICY_MAX_FILE);
	/* run by root, a policy another user can write is a root escalation */
	if ((why = policy_file_untrusted(fd, path, reason, sizeof(reason))))
		return perr(err, at, "refusing policy %s: %s; run by root, sbx loads only "
			    "policies that root owns and only root can write, in directories "
			    "likewise (chown root: and chmod go-w the file and the directories above it)",
			    path, why);
	s->text = malloc((size_t)st.st_size + 1);
	if (!s->text)
		return oom(err);
	n = read(fd, s->text, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size)
		return perr(err, at, "cannot read policy %s: %s", path,
			    n < 0 ? strerror(errno) : "it grew while being read");
	s->len = (size_t)n;
	return 0;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Fill S from the file PATH; 1 when it does not exist. */
static int source_from_file(const char *path, struct source *s, const struct ppos *at,
			    struct sbx_err *err)
{
	char real[PATH_MAX];
	int rc;

	memset(s, 0, sizeof(*s));
	rc = read_policy_file(path, s, at, err);
	if (rc != 0)
		return rc;
	s->id = strdup(realpath(path, real) ? real : path);
	s->display = strdup(path);
	s->dir = dir_of(path);
	if (!s->id || !s->display || !s->dir)
		return oom(err);
	return 0;
}

static int source_from_builtin(const struct builtin_policy *b, struct source *s,
			       struct sbx_err *err)
{
	memset(s, 0, sizeof(*s));
	s->builtin = b;
	s->text = (char *)b->text;
	s->len = b->len;
	if (asprintf(&s->id, "builtin:%s", b->name) < 0)
		s->id = NULL;
	if (asprintf(&s->display, "%s.policy", b->name) < 0)
		s->display = NULL;
	if (!s->id || !s->display)
		return oom(err);
	return 0;
}

static int on_stack(const struct loader *ld, const char *id)
{
	for (int i = 0; i < ld->depth; i++)
		if (strcmp(ld->stack[i].id, id) == 0)
			return i;
	return -1;
}

static int cycle_error(const struct loader *ld, int from, const char *again,
		       const struct ppos *at)
{
	char chain[768] = "";
	size_t off = 0;

	for (int i = from; i < ld->depth && off < sizeof(chain); i++)
		off += (size_t)snprintf(chain + off, sizeof(chain) - off, "%s -> ",
					ld->stack[i].display);
	if (off < sizeof(chain))
		snprintf(chain + off, sizeof(chain) - off, "%s", again);
	return perr(ld->err, at, "include cycle: %s", chain);
}

static char *path_join(const char *dir, const char *name)
{
	char *s = NULL;

	if (name[0] == '/' || !dir || strcmp(dir, ".") == 0)
		return strdup(name);
	if (asprintf(&s, "%s/%s", dir, name) < 0)
		return NULL;
	return s;
}

static bool is_path_name(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n > 7 && strcmp(name + n - 7, ".policy") == 0);
}

/* NAME as a path; 1 when it does not exist. */
static int resolve_path(struct loader *ld, const char *name, const char *dir,
			const struct ppos *at, struct source *s)
{
	char *path cleanup_free = NULL;
	int rc, idx;

	if (!dir)
		return perr(ld->err, at, "built-in policies include others by name only, not \"%s\"",
			    name);
	path = path_join(dir, name);
	if (!path)
		return oom(ld->err);
	rc = source_from_file(path, s, at, ld->err);
	if (rc == 0 && (idx = on_stack(ld, s->id)) >= 0) {
		rc = cycle_error(ld, idx, s->display, at);
		source_free(s);
	}
	return rc;
}

static char *config_path(const char *name)
{
	char *dir cleanup_free = policy_config_dir(), *s = NULL;

	if (dir && asprintf(&s, "%s/%s.policy", dir, name) < 0)
		s = NULL;
	return s;
}

struct lookup {
	char looked[768];
	int cycle_from; /* stack index of a skipped candidate, or -1 */
	char cycle_display[256];
};

static void note_looked(struct lookup *lk, const char *what)
{
	size_t off = strlen(lk->looked);

	snprintf(lk->looked + off, sizeof(lk->looked) - off, "%s%s", off ? ", " : "", what);
}

/*
 * S was found: 0 to use it, or 1 to look further when it is already being
 * loaded (an include of itself: the first such one is remembered, so a real
 * cycle can be reported if nothing else matches).
 */
static int unless_loading(struct loader *ld, struct lookup *lk, struct source *s)
{
	int idx = on_stack(ld, s->id);

	if (idx < 0)
		return 0;
	if (lk->cycle_from < 0) {
		lk->cycle_from = idx;
		snprintf(lk->cycle_display, sizeof(lk->cycle_display), "%s", s->display);
	}
	source_free(s);
	return 1;
}

/* A file candidate: 0 found, 1 absent or skipped, -1 error. */
static int try_file(struct loader *ld, const char *path, const struct ppos *at,
		    struct lookup *lk, struct source *s)
{
	int rc;

	if (!path)
		return 1;
	note_looked(lk, path);
	rc = source_from_file(path, s, at, ld->err);
	if (rc != 0)
		return rc;
	return unless_loading(ld, lk, s);
}

static int try_builtin(struct loader *ld, const char *name, struct lookup *lk,
		       struct source *s)
{
	const struct builtin_policy *b = builtin_find(name);
	char what[128];

	snprintf(what, sizeof(what), "built-in '%.80s'", name);
	note_looked(lk, what);
	if (!b)
		return 1;
	if (source_from_builtin(b, s, ld->err) < 0)
		return -1;
	return unless_loading(ld, lk, s);
}

static bool valid_policy_name(const char *name)
{
	return name[0] && strlen(name) <= 64 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
		       strlen(name);
}

static int resolve_name(struct loader *ld, const char *name, const char *dir,
			const struct ppos *at, struct source *s)
{
	struct lookup lk = { .cycle_from = -1 };
	char *paths[3] = { config_path(name), NULL, NULL };
	int rc;

	if (asprintf(&paths[1], "/etc/sbx/%s.policy", name) < 0)
		paths[1] = NULL;
	if (dir && asprintf(&paths[2], "%s/%s.policy", dir, name) < 0)
		paths[2] = NULL;
	rc = try_file(ld, paths[0], at, &lk, s);
	if (rc == 1)
		rc = try_file(ld, paths[1], at, &lk, s);
	if (rc == 1)
		rc = try_builtin(ld, name, &lk, s);
	if (rc == 1)
		rc = try_file(ld, paths[2], at, &lk, s);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
	if (rc == 1 && lk.cycle_from >= 0)
		return cycle_error(ld, lk.cycle_from, lk.cycle_display, at);
	if (rc == 1) {
		perr(ld->err, at, "policy '%s' not found (looked for %s)", name, lk.looked);
		if (!at)
			ld->err->cause = CAUSE_NOT_FOUND; /* asked for, not included */
		return -1;
	}
	return rc;
}

static int resolve(struct loader *ld, const char *name, const char *dir,
		   const struct ppos *at, struct source *s)
{
	int rc;

	if (is_path_name(name)) {
		rc = resolve_path(ld, name, dir, at, s);
		if (rc == 1) {
			perr(ld->err, at, "policy file %s not found", name);
			if (!at)
				ld->err->cause = CAUSE_NOT_FOUND;
			return -1;
		}
		return rc;
	}
	if (!valid_policy_name(name))
		return perr(ld->err, at, "'%.80s' is not a policy name ([A-Za-z0-9_-]+) or a path "
			    "(with '/' or ending in .policy)", name);
	return resolve_name(ld, name, dir, at, s);
}

static int load_source(struct loader *ld, struct source *s, const struct ppos *at);

static int load_include(struct loader *ld, const struct pvalue *v, const char *dir)
{
	struct origin o = origin_at(&v->at);
	struct source s cleanup_source = { 0 };
	int rc;

	if (v->kind != PV_STRING)
		return perr(ld->err, &v->at, "'include' expects a policy name or path string");
	/* each include re-parses a file: bound the total work of one load */
	if (ld->p->includes.n >= POLICY_MAX_INCLUDES)
		return perr(ld->err, &v->at, "too many includes (at most %d in one policy)",
			    POLICY_MAX_INCLUDES);
	if (strlist_push(&ld->p->includes, v->text, &o) < 0)
		return oom(ld->err);
	if (ld->depth >= POLICY_MAX_INCLUDE_DEPTH)
		return perr(ld->err, &v->at, "includes nested deeper than %d levels",
			    POLICY_MAX_INCLUDE_DEPTH);
	rc = resolve(ld, v->text, dir, &v->at, &s);
	if (rc == 0)
		rc = load_source(ld, &s, &v->at);
	return rc;
}

static int load_includes(struct loader *ld, const struct ptree *t, const char *dir)
{
	for (size_t i = 0; i < t->nfields; i++) {
		const struct pfield *f = &t->fields[i];
		const struct pvalue *items = f->value.kind == PV_LIST ? f->value.items : &f->value;
		size_t n = f->value.kind == PV_LIST ? f->value.nitems : 1;

		if (strcmp(f->name, "include") != 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (load_include(ld, &items[k], dir) < 0)
				return -1;
	}
	return 0;
}

/* Parse S, apply its includes, then its own fields. */
static int load_source(struct loader *ld, struct source *s, const struct ppos *at)
{
	struct file_state fs __attribute__((cleanup(file_state_free))) = { 0 };
	struct ptree t __attribute__((cleanup(ptree_free))) = { 0 };
	const char *display = policy_intern(ld->p, s->display, ld->err);
	int rc;

	if (!display)
		return -1;
	if (ptree_parse(display, s->text, s->len, &t, ld->err) < 0)
		return -1;
	ld->stack[ld->depth].id = s->id;
	ld->stack[ld->depth].display = display;
	ld->depth++;
	rc = load_includes(ld, &t, s->dir);
	if (rc == 0)
		rc = schema_apply(ld->p, &t, &fs, ld->err);
	ld->depth--;
	return rc;
}

static int load_top(struct policy *out, struct source *s, const char *source_name,
		    struct sbx_err *err)
{
	struct loader ld = { .p = out, .err = err };
	int rc;

	policy_init(out);
	if (!out->hostname || !out->workspace || !(out->source = strdup(source_name)))
		rc = oom(err);
	else
		rc = load_source(&ld, s, NULL);
	/* the whole table, after includes: sbx check refuses what run would */
	if (rc == 0) {
		policy_sort_mounts(out);
		rc = policy_check_mounts(out, err);
	}
	if (rc < 0)
		policy_free(out);
	return rc;
}

/* A bare name the lookup does not know may still be a file in the cwd. */
static int resolve_top(struct loader *ld, const char *name, struct source *s)
{
	struct sbx_err keep;
	int rc = resolve(ld, name, ".", NULL, s);

	if (rc == 0 || is_path_name(name) || access(name, F_OK) != 0)
		return rc;
	keep = *ld->err;
	rc = source_from_file(name, s, NULL, ld->err);
	if (rc == 1) {
		*ld->err = keep;
		return -1;
	}
	return rc;
}

int policy_load(const char *name_or_path, struct policy *out, struct sbx_err *err)
{
	struct loader ld = { .p = out, .err = err };
	struct source s cleanup_source = { 0 };
	char *source_name cleanup_free = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (resolve_top(&ld, name_or_path, &s) != 0)
		return -1;
	if (s.builtin)
		rc = asprintf(&source_name, "builtin:%s", s.builtin->name);
	else
		rc = asprintf(&source_name, "%s", s.display);
	if (rc < 0) {
		source_name = NULL; /* asprintf leaves it undefined */
		return oom(err);
	}
	return load_top(out, &s, source_name, err);
}

int policy_load_text(const char *filename, const char *text, size_t len,
		     struct policy *out, struct sbx_err *err)
{
	struct source s = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	s.builtin = NULL;
	s.text = (char *)text;
	s.len = len;
	s.id = strdup(filename);
	s.display = strdup(filename);
	s.dir = dir_of(filename);
	if (!s.id || !s.display || !s.dir)
		rc = oom(err);
	else
		rc = load_top(out, &s, filename, err);
	s.text = NULL; /* the caller's */
	source_free(&s);
	return rc;
}
