/*
 * policy.h - the one effective policy every other module reads.
 *
 * Text (policy files) -> tree (parser.h) -> struct policy (schema.c), then
 * command-line overrides (override.h) are applied on top, then the policy is
 * read-only.  Every effective field remembers where it came from
 * (`struct origin`), which `sbx explain` prints and errors quote.
 *
 * Limits are an array indexed by enum limit_id so that code which treats
 * them uniformly (parsing, clamping, explain, the record) stays a loop.
 * A limit value of LIMIT_UNLIMITED means "no limit"; 0 means "not set"
 * (the policy language itself rejects 0).
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

#define LIMIT_UNLIMITED UINT64_MAX

/* Where a value came from: a file position or a command-line option. */
struct origin {
	const char *file; /* interned; "<command line>" for options, NULL = built-in default */
	int line, col;    /* 0 when not from a file */
	const char *option; /* "--time" etc. when from the command line */
};

enum limit_id {
	LIM_WALL_TIME_MS,
	LIM_CPU_TIME_MS,
	LIM_MEMORY_MB,
	LIM_PROCESSES,
	LIM_FILE_SIZE_MB,
	LIM_OPEN_FILES,
	LIM_OUTPUT_BYTES,
	LIM_STACK_MB,
	LIM_KILL_GRACE_MS,
	LIM_COUNT
};

/* Field names as in the policy language ("wall_time_ms"), for every module. */
extern const char *const limit_names[LIM_COUNT];
/* The largest value the schema accepts for each limit (inclusive). */
extern const uint64_t limit_max[LIM_COUNT];

struct limits {
	uint64_t v[LIM_COUNT];       /* 0 = not set, LIMIT_UNLIMITED = none */
	struct origin at[LIM_COUNT];
};

/* A limit lowered to max_limits by an override; the record lists these. */
struct clamp {
	enum limit_id id;
	uint64_t requested, effective;
};

enum net_mode { NET_NONE, NET_LOOPBACK, NET_HOST };
enum mount_type { MNT_BIND, MNT_TMPFS, MNT_PROC, MNT_DEV, MNT_SYMLINK };
enum sc_action { SC_ALLOW, SC_ERRNO, SC_KILL };

struct mount_entry {
	char *dst;          /* absolute path inside the jail */
	char *src;          /* host path (BIND), link target (SYMLINK), else NULL */
	enum mount_type type;
	bool rw, optional, noexec;
	uint64_t size_mb;   /* TMPFS/DEV shm size; 0 = not set */
	struct origin at;
};

/* A list of strings with the origin of each (env, env_keep, argv, ...). */
struct strlist {
	char **v;
	struct origin *at;
	size_t n, cap;
};

struct seccomp_spec {
	enum sc_action default_action; /* for syscalls outside the allowlist */
	int errno_value;               /* errno for ERRNO actions (default ENOSYS) */
	struct strlist allow;          /* syscall names or @groups */
	struct strlist deny;
	enum sc_action deny_action;    /* for deny entries (default ERRNO EPERM) */
	struct origin at_default_action, at_errno, at_deny_action;
};

struct lang_spec {
	struct strlist extensions; /* ".py" */
	struct strlist run;        /* argv template: {file} {out} {args} {workspace} */
	struct strlist compile;    /* empty for interpreted languages */
	struct strlist version;    /* argv printing the runtime's version */
	struct limits compile_limits;
	bool present;              /* the policy has a lang { } block */
};

/* The scalar fields, for origin bookkeeping and `--set` (see schema.c). */
enum scalar_id {
	F_NAME, F_DESCRIPTION, F_HOSTNAME, F_UID, F_GID, F_CWD, F_WORKSPACE,
	F_NETWORK, F_SEALED, F_SCALAR_COUNT
};

struct policy {
	char *name, *description;
	char *hostname;     /* default "sbx" */
	uint32_t uid, gid;  /* inside the jail, default 65534 */
	char *cwd;          /* NULL = the workspace */
	char *workspace;    /* default "/mnt/data" */
	enum net_mode network;
	bool sealed;
	struct origin at[F_SCALAR_COUNT];

	struct limits limits;
	struct limits max_limits;
	struct clamp clamped[LIM_COUNT];
	size_t nclamped;

	struct mount_entry *mounts; /* in order; later entries mount on top */
	size_t nmounts;

	struct strlist env;      /* "NAME=VALUE" */
	struct strlist env_keep; /* names */
	struct strlist includes; /* as written, for explain */

	struct seccomp_spec seccomp;
	struct lang_spec lang;

	/* where the base policy came from: "builtin:default" or a path */
	char *source;
	/* the command to run when none is given (exec_bin of -p nsjail:FILE);
	 * not a field of the policy language */
	struct strlist default_command;
	/* the bind directly in /tmp for which policy_move_scratch() moved the
	 * scratch tmpfs to /var/tmp, or NULL */
	char *scratch_moved_for;
	/* interned file names and options that origins point to (owned) */
	struct strlist interned;
};

/* Built-in defaults used when neither policy nor command line sets a limit. */
uint64_t limit_default(enum limit_id id);
/*
 * The effective value: the set value, or limit_default(); an unset
 * cpu_time_ms is derived from the wall limit: wall x policy_cpu_count()
 * (unlimited with it), at most max_limits.cpu_time_ms.
 */
uint64_t policy_limit(const struct policy *p, enum limit_id id);
/* The CPUs sbx (and so the jail) may run on: its affinity mask, at least 1. */
unsigned policy_cpu_count(void);

/*
 * The one bound on kill_grace_ms: the schema's maximum, and what
 * "unlimited" means.  The init (SIGTERM -> grace -> SIGKILL) and the
 * supervisor (its own SIGKILL after grace + margin) both take the grace
 * from policy_kill_grace_ms(), so neither kills before the other expects.
 */
#define KILL_GRACE_MAX_MS (3600ull * 1000)
uint64_t policy_kill_grace_ms(const struct policy *p);

/*
 * Load NAME_OR_PATH: a built-in name, $XDG_CONFIG_HOME/sbx/NAME.policy,
 * /etc/sbx/NAME.policy, or a path to a file.  Includes are resolved the
 * same way, paths relative to the including file.  Returns 0, or -1 with
 * err->kind == ERR_CONFIG and a "FILE:LINE:COL: message".
 */
int policy_load(const char *name_or_path, struct policy *out, struct sbx_err *err);

/* Parse policy text directly (tests, fuzzing); FILENAME is for messages. */
int policy_load_text(const char *filename, const char *text, size_t len,
		     struct policy *out, struct sbx_err *err);

void policy_free(struct policy *p);

/*
 * Print P in canonical text form, each field followed by a comment naming
 * its origin ("# from py.policy:4" / "# from --time" / "# default").
 * The output parses back to the same policy.
 */
int policy_write_text(const struct policy *p, FILE *out);
/*
 * Every writer of policy text goes through these two.  S as a policy
 * string literal ("..." with C escapes that parse back to S's bytes); S
 * inside a comment, escaped the same way (quotes as they are) so that a
 * newline cannot end the comment.  Both escape controls, bytes that are
 * not UTF-8, U+2028/U+2029 and the bidirectional overrides: the text
 * shows what it parses as.
 */
void policy_write_string(FILE *out, const char *s);
void policy_write_comment_text(FILE *out, const char *s);

/* Field path helpers for --set: "limits.wall_time_ms=2000", "hostname=x". */
int policy_set_field(struct policy *p, const char *assignment,
		     const struct origin *at, struct sbx_err *err);

/*
 * The mount table rules (mounts.c), the same for policy files and -b, -B,
 * --tmpfs.  policy_path_clean() rewrites a command-line path in place to
 * the normalized form ("//", "/./", a trailing "/" or "/." removed; ".."
 * is kept, to be refused); policy_path_problem() says why a path is not
 * an absolute normalized UTF-8 path, or NULL; policy_check_mounts() checks
 * the final table (ERR_CONFIG naming the entry's file:line:col or option).
 */
void policy_path_clean(char *path);
const char *policy_path_problem(const char *path);
/* Parents before children (fewer '/' first), else in the order written. */
void policy_sort_mounts(struct policy *p);
int policy_check_mounts(const struct policy *p, struct sbx_err *err);
/*
 * A host directory bound directly in the scratch /tmp would have that
 * tmpfs beside it, where a write next to it (../FILE) vanishes with the
 * jail: then the scratch moves to /var/tmp (with the variables pointing
 * into it) and /tmp only holds mount points, so such a write fails
 * (scratch.c).  ERR_CONFIG when /var/tmp is taken.
 */
int policy_move_scratch(struct policy *p, struct sbx_err *err);

/* Most TMPFS and DEV mounts a policy may have: with the jail's root they
 * are the tmpfs the memory meter charges, handed over in one message. */
#define POLICY_MAX_TMPFS 13

/* Why VALUE is not allowed for limit ID ("must be at least 64 ..."), or
 * NULL; LIMIT_UNLIMITED is always allowed.  Policies and options agree. */
const char *policy_limit_problem(enum limit_id id, uint64_t value, char *buf, size_t len);

/* A variable name as env and env_keep (and -e, --env-keep) take it:
 * [A-Za-z_][A-Za-z0-9_]*, LEN bytes of S. */
bool env_name_valid(const char *s, size_t len);

/* strlist helpers */
int strlist_push(struct strlist *l, const char *s, const struct origin *at);
void strlist_free(struct strlist *l);

#endif
