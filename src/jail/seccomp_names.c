/*
 * seccomp_names.c - the names in a policy's seccomp lists: syscalls (the
 * kernel's table of the architecture sbx is built for, through libseccomp)
 * and @groups, resolved into a set of numbers, with "did you mean" for a
 * name that is neither.
 *
 * sc_spec_check() is everything `sbx run` refuses about a seccomp block
 * before a jail exists, so that `sbx check` and `sbx explain` refuse the
 * same: unknown names, a block that allows nothing (no seccomp block at
 * all), and command-line allows of what sbx denies whatever the options.
 */
#include "jail/seccomp.h"
#include "jail/seccomp_names.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/*
 * Never allowed from the command line: each would break a promise of
 * sbx(1)'s SECURITY section (or reach memory the meter cannot see).  A
 * policy file may still allow them; the caller who writes one owns the
 * choice.
 */
static const struct { const char *name; const char *why; } never_allowed[] = {
	{ "@mount", "mounting" }, { "@keyring", "kernel keyrings" },
	{ "@module", "loading kernel modules" }, { "@reboot", "reboot and kexec" },
	{ "@swap", "swap" }, { "@privileged-ns", "new namespaces, bpf and userfaultfd" },
	{ "@io-uring", "io_uring" }, { "perf_event_open", "perf" },
	{ "@shared-memory", "memory outside the memory meter" },
};

const char *sc_origin_text(const struct origin *at, char *buf, size_t len)
{
	if (at && at->file && at->line)
		snprintf(buf, len, "%s:%d:%d: ", at->file, at->line, at->col);
	else if (at && at->option)
		snprintf(buf, len, "%s: ", at->option);
	else
		buf[0] = '\0';
	return buf;
}

/*
 * Calls the native table lacks though another architecture has them:
 * aarch64 has no open, mkdir, chmod, stat, pipe, poll..., and its libc
 * makes each with the *at or newer call.  libseccomp resolves such a name
 * to a negative pseudo-number without an error, so a rule for it would
 * guard nothing there ("deny: mkdir" left mkdir(2) working): the name
 * stands for the call that has the same effect on this architecture.  A
 * name with no such call (fork: libc forks with clone, on x86_64 too) has
 * no effect to guard, and is left out as before.
 */
static const struct { const char *name, *native; } stand_ins[] = {
	{ "open", "openat" }, { "creat", "openat" }, { "mkdir", "mkdirat" },
	{ "mknod", "mknodat" }, { "chmod", "fchmodat" }, { "chown", "fchownat" },
	{ "lchown", "fchownat" }, { "unlink", "unlinkat" }, { "rmdir", "unlinkat" },
	{ "rename", "renameat" }, { "link", "linkat" }, { "symlink", "symlinkat" },
	{ "readlink", "readlinkat" }, { "stat", "newfstatat" }, { "lstat", "newfstatat" },
	{ "access", "faccessat" }, { "utime", "utimensat" }, { "utimes", "utimensat" },
	{ "futimesat", "utimensat" }, { "pipe", "pipe2" }, { "dup2", "dup3" },
	{ "poll", "ppoll" }, { "select", "pselect6" }, { "epoll_create", "epoll_create1" },
	{ "epoll_wait", "epoll_pwait" }, { "eventfd", "eventfd2" },
	{ "signalfd", "signalfd4" }, { "inotify_init", "inotify_init1" },
	{ "getdents", "getdents64" },
};

const char *sc_native_stand_in(const char *name)
{
	if (seccomp_syscall_resolve_name(name) >= 0)
		return NULL;
	for (size_t i = 0; i < sizeof(stand_ins) / sizeof(stand_ins[0]); i++)
		if (strcmp(stand_ins[i].name, name) == 0)
			return stand_ins[i].native;
	return NULL;
}

int sc_mark_syscall(bool *set, const char *name)
{
	const char *stand_in = sc_native_stand_in(name);
	int nr = seccomp_syscall_resolve_name(stand_in ? stand_in : name);

	if (nr == __NR_SCMP_ERROR)
		return -1;
	if (nr >= 0 && nr < SC_NR_MAX)
		set[nr] = true;
	return 0;
}

/* The known name nearest to NAME: a group for "@...", else a syscall. */
static const char *nearest(const char *name, char **names)
{
	size_t n = 0;

	if (name[0] == '@') {
		for (size_t i = 0; i < sc_groups_count; i++)
			names[n++] = (char *)sc_groups[i].name;
		return err_suggest(name, (const char *const *)names, n);
	}
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		char *s = seccomp_syscall_resolve_num_arch(SC_SCMP_ARCH, nr);

		if (s)
			names[n++] = s;
	}
	const char *near = err_suggest(name, (const char *const *)names, n);
	static char kept[64];

	snprintf(kept, sizeof(kept), "%s", near ? near : "");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return kept[0] ? kept : NULL;
}

static int unknown_name(const struct strlist *list, size_t i, const char *what,
			struct sbx_err *err)
{
	const char *name = list->v[i];
	char where[300], hint[96] = "";
	char **names = calloc(SC_NR_MAX + sc_groups_count, sizeof(*names));
	const char *near = names ? nearest(name, names) : NULL;

	if (near)
		snprintf(hint, sizeof(hint), " (did you mean '%s'?)", near);
	free(names);
	return err_set(err, ERR_CONFIG, 0,
		       "%sseccomp %s: unknown %s '%s'%s; see 'man sbx.policy' for the @groups",
		       sc_origin_text(list->at ? &list->at[i] : NULL, where, sizeof(where)),
		       what, name[0] == '@' ? "group" : "syscall", name, hint);
}

int sc_expand_one(const struct strlist *list, size_t i, bool *set, const char *what,
		  struct sbx_err *err)
{
	const char *name = list->v[i];
	const struct sc_group *g = name[0] == '@' ? sc_group_find(name) : NULL;
	int bad = 0;

	if (g) {
		for (const char *const *s = g->syscalls; *s; s++)
			bad |= sc_mark_syscall(set, *s);
	} else if (name[0] != '@') {
		bad = sc_mark_syscall(set, name);
	}
	if (bad || (name[0] == '@' && !g))
		return unknown_name(list, i, what, err);
	return 0;
}

int sc_expand(const struct strlist *list, bool *set, const char *what, struct sbx_err *err)
{
	for (size_t i = 0; i < list->n; i++)
		if (sc_expand_one(list, i, set, what, err) < 0)
			return -1;
	return 0;
}

bool sc_from_command_line(const struct strlist *list, size_t i)
{
	return list->at && list->at[i].option;
}

/* NAME (a syscall or @group) holds one of the never-allowed names. */
static const char *never_reason(const char *name, const char **which)
{
	const struct sc_group *g = name[0] == '@' ? sc_group_find(name) : NULL;

	for (size_t k = 0; k < sizeof(never_allowed) / sizeof(never_allowed[0]); k++) {
		const char *nv = never_allowed[k].name;
		bool hit = strcmp(name, nv) == 0;

		for (const char *const *s = g && nv[0] != '@' ? g->syscalls : NULL; s && *s; s++)
			hit |= strcmp(*s, nv) == 0;
		if (hit) {
			*which = nv;
			return never_allowed[k].why;
		}
	}
	return NULL;
}

static int refuse_never(const struct strlist *l, size_t i, const char *which,
			const char *why, struct sbx_err *err)
{
	char where[300];
	bool member = strcmp(which, l->v[i]) != 0;

	return err_set(err, ERR_CONFIG, 0,
		       "%s'%s' is refused: %s%s stays denied whatever the options (no %s "
		       "is one of sbx's security promises)%s",
		       sc_origin_text(&l->at[i], where, sizeof(where)), l->v[i],
		       member ? "its member " : "", which, why,
		       member ? "; allow the other members by name" : "");
}

int sc_spec_rules(const struct seccomp_spec *spec, struct sbx_err *err)
{
	const struct strlist *l = &spec->allow;

	/* fail closed, with a message: a filter that allows nothing would let
	 * the program start and die of its first call (SIGSEGV) */
	if (spec->default_action != SC_ALLOW && l->n == 0)
		return err_set(err, ERR_CONFIG, 0,
			       "seccomp: the policy allows no system call (it has no seccomp "
			       "block, or one without 'allow'), so nothing could run; include "
			       "\"default\" or add seccomp { allow: \"@default\" }");
	for (size_t i = 0; i < l->n; i++) {
		const char *which = NULL, *why;

		if (sc_from_command_line(l, i) && (why = never_reason(l->v[i], &which)))
			return refuse_never(l, i, which, why, err);
	}
	return 0;
}

/*
 * --seccomp-allow NAME wins over the policy's deny list (the command line
 * is the last layer): without this, `--seccomp-allow ptrace` under the
 * default policy's deny of @debug changed nothing, silently.  A sealed
 * policy refuses the option before this (policy/override.c).
 */
int sc_lift_cmdline_allows(const struct seccomp_spec *spec, bool *deny, struct sbx_err *err)
{
	bool *lift = calloc(SC_NR_MAX, sizeof(*lift));

	if (!lift)
		return err_set(err, ERR_INTERNAL, ENOMEM, "seccomp: out of memory");
	for (size_t i = 0; i < spec->allow.n; i++) {
		if (!sc_from_command_line(&spec->allow, i))
			continue;
		if (sc_expand_one(&spec->allow, i, lift, "allow", err) < 0) {
			free(lift);
			return -1;
		}
	}
	for (int nr = 0; nr < SC_NR_MAX; nr++)
		if (lift[nr])
			deny[nr] = false;
	free(lift);
	return 0;
}

int sc_spec_check(const struct seccomp_spec *spec, struct sbx_err *err)
{
	bool *set = calloc(SC_NR_MAX, sizeof(*set));
	int rc;

	if (!set)
		return err_set(err, ERR_INTERNAL, ENOMEM, "seccomp: out of memory");
	rc = sc_expand(&spec->allow, set, "allow", err) < 0 ||
	     sc_expand(&spec->deny, set, "deny", err) < 0 ? -1 : 0;
	free(set);
	return rc < 0 ? -1 : sc_spec_rules(spec, err);
}
