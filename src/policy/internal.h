/*
 * internal.h - pieces shared by the files of src/policy/ (not a public API).
 *
 *   lexer.c    tokens of protocol-buffer text format, with positions
 *   parser.c   tokens -> a tree of fields (parser.h)
 *   values.c   one typed, validated value out of a tree node (every check
 *              the language makes on a single value lives there)
 *   schema.c   a parsed file applied on top of a struct policy: scalars,
 *              limits, lists, mounts, seccomp and lang
 *   mounts.c   the rules of a mount table, from a file or the command line
 *   scratch.c  the scratch /tmp moved aside when a bind lands in it
 *   load.c     files, built-ins (builtin.c) and includes
 *   trust.c    which files sbx believes when it runs as root (trust.h)
 *   set.c      --set FIELD=VALUE
 *   override.c the command line's overrides (override.h)
 *   writer.c   a policy in canonical text, with origins (sbx explain)
 *   policy.c   defaults, limits tables, interning, freeing, comparing
 */
#ifndef SBX_POLICY_INTERNAL_H
#define SBX_POLICY_INTERNAL_H

#include "policy/parser.h"
#include "policy/policy.h"

#define POLICY_MAX_INCLUDE_DEPTH 16
#define POLICY_MAX_INCLUDES 256  /* include lines in one load, all files */
#define POLICY_MAX_ENTRIES 4096  /* per repeated field (mounts, env, allow, ...) */
#define ID_MAX 65535 /* uid/gid: one-id maps only */
#define OUTPUT_BYTES_MIN 64 /* the truncation marker must fit */

enum field_type {
	FT_STRING, FT_HOSTNAME, FT_ID, FT_PATH, FT_NETWORK, FT_BOOL,
	FT_ACTION, FT_ERRNO, FT_LIMIT
};

/* A scalar field: where it lives in struct policy, for schema.c and set.c. */
struct scalar_desc {
	const char *name;    /* as in the language, e.g. "hostname" */
	enum field_type type;
	size_t offset;       /* of the value in struct policy */
	size_t at_offset;    /* of its struct origin */
};

extern const struct scalar_desc policy_scalars[];
extern const size_t policy_scalars_count;
extern const char *const net_names[3];
extern const char *const action_names[3];
extern const char *const mount_type_names[5];

/* Apply one converted value V for D to P (frees an old string). */
int scalar_store(struct policy *p, const struct scalar_desc *d,
		 const struct pvalue *v, const struct origin *at, struct sbx_err *err);

/* values.c: each returns 0 or -1 with a positioned ERR_CONFIG message. */
int val_string(const struct pvalue *v, const char *field, char **out, struct sbx_err *err);
int val_bool(const struct pvalue *v, const char *field, bool *out, struct sbx_err *err);
int val_uint(const struct pvalue *v, const char *field, uint64_t min, uint64_t max,
	     uint64_t *out, struct sbx_err *err);
int val_limit(const struct pvalue *v, enum limit_id id, uint64_t *out, struct sbx_err *err);
int val_enum(const struct pvalue *v, const char *field, const char *const *names,
	     size_t n, int *out, struct sbx_err *err);
int val_path(const struct pvalue *v, const char *field, char **out, struct sbx_err *err);
int val_hostname(const struct pvalue *v, char **out, struct sbx_err *err);
int val_env(const struct pvalue *v, char **out, struct sbx_err *err);
int val_env_name(const struct pvalue *v, char **out, struct sbx_err *err);
int val_syscall(const struct pvalue *v, const char *field, char **out, struct sbx_err *err);
int val_extension(const struct pvalue *v, char **out, struct sbx_err *err);
/* "path must be ..." reason, or NULL when S is an absolute normalized path. */
const char *path_problem(const char *s);
/* "unknown field 'x' in 'limits' (did you mean 'y'?)" */
int unknown_field(struct sbx_err *err, const struct ppos *at, const char *word,
		  const char *where, const char *const *names, size_t n);

/* schema.c: fields seen in one file (duplicate detection, list replacing). */
struct seen {
	char *key;
	struct ppos at;
};

struct file_state {
	struct seen *v;
	size_t n, cap;
};

void file_state_free(struct file_state *fs);
/* Apply every field of T except include to P. */
int schema_apply(struct policy *p, const struct ptree *t, struct file_state *fs,
		 struct sbx_err *err);

/* policy.c */
void policy_init(struct policy *p);
const char *policy_intern(struct policy *p, const char *s, struct sbx_err *err);
struct origin origin_at(const struct ppos *at);
/* Equal effective content (origins, includes and source ignored). */
bool policy_equal(const struct policy *a, const struct policy *b);

#endif
