/*
 * kafel.c - nsjail's seccomp_string (Kafel) -> sbx's seccomp { } block.
 *
 * Kafel is its own language, not protobuf text, hence its own small
 * scanner.  The subset that sbx's filter model can hold is translated:
 *   ACTION { name, name, ... }     ALLOW, KILL, KILL_PROCESS, KILL_THREAD,
 *                                  DENY, ERRNO(n); LOG counts as ALLOW
 *   POLICY p { ... }  USE p, q     named rule sets
 *   DEFAULT ACTION                 -> default_action (+ errno)
 * ALLOW lists become `allow`, the others `deny`.  What sbx cannot hold is
 * noted and fails closed: argument filters (an allowed call with a filter
 * is left out, a denied one is denied whatever its arguments), TRAP (its
 * SIGSYS kills, so it is KILL), TRACE and USER_NOTIF (denied), an errno
 * other than EPERM on a deny list, KILL
 * and ERRNO lists together (sbx has one deny action: all are killed).
 * `#define NAME VALUE` of one number or name is a constant, as in Kafel.
 * Text outside this subset (#include, SYSCALL[n], an expression in a
 * #define, ...) is refused: sbx's own filter allows ~300 calls, and an
 * import must never allow more than the config did.  No seccomp_string at
 * all (nsjail then runs without a filter): sbx's default filter, noted.
 */
#include "import/internal.h"

#include <ctype.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "policy/builtin.h"

#define KAFEL_MAX_TOKENS 65536
#define KAFEL_MAX_DEPTH 16
#define KAFEL_MAX_NAMES 4096 /* system call entries, USE expansions counted */
#define KAFEL_MAX_DEFINES 256

enum { K_IDENT, K_NUM, K_PUNCT, K_END };
enum { ACT_ALLOW, ACT_ERRNO, ACT_KILL, ACT_OTHER };

struct ktok {
	int kind;
	const char *s;
	size_t len, off;
};

/* #define NAME VALUE: VALUE is one number or name token. */
struct kdefine {
	struct ktok name, value;
};

struct kafel {
	struct nj_xlate *x;
	struct ppos at;          /* of the first seccomp_string */
	struct ktok *t;
	size_t n, pos;
	struct kdefine defs[KAFEL_MAX_DEFINES];
	size_t ndefs;
	int depth;
	const char *bad;         /* why the text is outside the subset */
	size_t bad_off;
	int def, def_errno;      /* -1: no DEFAULT */
	int deny_acts;           /* bit per ACT_* seen on deny lists */
	int deny_errno;          /* an errno other than EPERM seen on a deny list */
	size_t names;            /* entries read, USE expansions included */
};

static int fail_at(struct kafel *k, const char *why, size_t off)
{
	if (!k->bad) {
		k->bad = why;
		k->bad_off = off;
	}
	return -1;
}

static int fail(struct kafel *k, const char *why)
{
	return fail_at(k, why, k->pos < k->n ? k->t[k->pos].off : k->t[k->n].off);
}

/* ---- scanner ---- */

static size_t skip_space(const char *s, size_t len, size_t i)
{
	while (i < len) {
		if (isspace((unsigned char)s[i])) {
			i++;
		} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
			const char *e = memmem(s + i + 2, len - i - 2, "*/", 2);

			i = e ? (size_t)(e - s) + 2 : len;
		} else {
			break;
		}
	}
	return i;
}

/* The token at S[I] (I < LEN, not space) into *T; returns the index after it. */
static size_t scan_token(const char *s, size_t len, size_t i, struct ktok *t)
{
	size_t j = i + 1;

	if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_'))
			j++;
		t->kind = K_IDENT;
	} else if (isdigit((unsigned char)s[i])) {
		while (j < len && isalnum((unsigned char)s[j]))
			j++;
		t->kind = K_NUM;
	} else {
		t->kind = K_PUNCT;
	}
	t->s = s + i;
	t->len = j - i;
	t->off = i;
	return j;
}

/* Blanks (not newlines) and comments that stay on the line, from S[I]. */
static size_t skip_blanks(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i + 1 < len && s[i] == '/' && s[i + 1] == '/')
		while (i < len && s[i] != '\n')
			i++;
	return i;
}

static bool same_name(const struct ktok *a, const struct ktok *b)
{
	return a->len == b->len && strncmp(a->s, b->s, a->len) == 0;
}

static const struct kdefine *find_define(const struct kafel *k, const struct ktok *name)
{
	for (size_t i = 0; i < k->ndefs; i++)
		if (same_name(&k->defs[i].name, name))
			return &k->defs[i];
	return NULL;
}

/* "#define NAME VALUE" at S[I], one number or name to the end of the line:
 * a constant.  Any other '#' line (#include, a macro with an expression)
 * is outside the subset.  Returns the index after the line, or -1. */
static long scan_define(struct kafel *k, const char *s, size_t len, size_t i)
{
	struct kdefine d;
	size_t start = i;

	if (len - i > 8 && strncmp(s + i, "#include", 8) == 0)
		return fail_at(k, "#include (sbx reads no other file)", start);
	if (len - i < 8 || strncmp(s + i, "#define", 7) != 0 || (s[i + 7] != ' ' && s[i + 7] != '\t'))
		return fail_at(k, "a '#' line other than #define", start);
	if (k->ndefs == KAFEL_MAX_DEFINES)
		return fail_at(k, "more than 256 #define lines", start);
	i = skip_blanks(s, len, i + 7);
	if (i >= len || (i = scan_token(s, len, i, &d.name), d.name.kind != K_IDENT))
		return fail_at(k, "a #define without a name", start);
	i = skip_blanks(s, len, i);
	if (i >= len || (i = scan_token(s, len, i, &d.value), d.value.kind == K_PUNCT))
		return fail_at(k, "a #define of something other than one number or name", start);
	i = skip_blanks(s, len, i);
	if (i < len && s[i] != '\n')
		return fail_at(k, "a #define of something other than one number or name", start);
	if (find_define(k, &d.name))
		return fail_at(k, "a name defined twice with #define", start);
	k->defs[k->ndefs++] = d;
	return (long)i;
}

static int scan(struct kafel *k, const char *s, size_t len)
{
	size_t i = 0;

	k->t = calloc(KAFEL_MAX_TOKENS + 1, sizeof(*k->t));
	if (!k->t)
		return nj_add(k->x, SECT_SECCOMP, NULL, NULL, NULL);
	while ((i = skip_space(s, len, i)) < len) {
		if (s[i] == '#') {
			long next = scan_define(k, s, len, i);

			if (next < 0)
				return -1;
			i = (size_t)next;
			continue;
		}
		if (k->n == KAFEL_MAX_TOKENS)
			return fail_at(k, "more than 65536 tokens", i);
		i = scan_token(s, len, i, &k->t[k->n++]);
	}
	k->t[k->n] = (struct ktok){ K_END, s + len, 0, len };
	return 0;
}

/* ---- parser ---- */

static const struct ktok *peek(const struct kafel *k)
{
	return &k->t[k->pos];
}

static bool is(const struct ktok *t, const char *word)
{
	return t->len == strlen(word) && strncmp(t->s, word, t->len) == 0;
}

static bool take(struct kafel *k, const char *word)
{
	if (!is(peek(k), word))
		return false;
	k->pos++;
	return true;
}

/* Skip from an opening bracket to its match: an argument list or filter. */
static int skip_group(struct kafel *k, const char *open, const char *close)
{
	int level = 0;

	do {
		if (peek(k)->kind == K_END)
			return fail(k, "an unclosed bracket");
		level += is(peek(k), open) - is(peek(k), close);
		k->pos++;
	} while (level > 0);
	return 0;
}

/* A number, or a name #define'd as one (through other names): into *OUT. */
static int parse_number(struct kafel *k, int *out)
{
	const struct ktok *t = peek(k);
	const struct kdefine *d;
	char digits[24], *end;
	long v;

	for (size_t hops = 0; t->kind == K_IDENT && (d = find_define(k, t)); hops++) {
		if (hops == KAFEL_MAX_DEFINES)
			return fail(k, "#define names that define each other");
		t = &d->value;
	}
	if (t->kind != K_NUM || t->len >= sizeof(digits))
		return fail(k, "a number was expected");
	snprintf(digits, sizeof(digits), "%.*s", (int)t->len, t->s);
	v = strtol(digits, &end, 0);
	if (*end || v < 0 || v > 0xffff)
		return fail(k, "a number from 0 to 65535 was expected");
	*out = (int)v;
	k->pos++;
	return 0;
}

/* ACTION [ '(' number ')' ]: ACT_* and the errno for ERRNO. */
static int parse_action(struct kafel *k, int *act, int *eno, char *name, size_t size)
{
	const struct ktok *t = peek(k);
	static const char *const kill[] = { "KILL", "KILL_PROCESS", "KILL_THREAD", "DENY", NULL };

	if (t->kind != K_IDENT)
		return fail(k, "an action was expected");
	snprintf(name, size, "%.*s", (int)(t->len < 40 ? t->len : 40), t->s);
	k->pos++;
	*eno = 0;
	*act = is(t, "ALLOW") || is(t, "LOG") ? ACT_ALLOW : is(t, "ERRNO") ? ACT_ERRNO : ACT_OTHER;
	for (size_t i = 0; kill[i]; i++)
		if (is(t, kill[i]))
			*act = ACT_KILL;
	if (*act == ACT_OTHER && !is(t, "TRAP") && !is(t, "TRACE") && !is(t, "USER_NOTIF"))
		return fail_at(k, "an unknown action", t->off);
	if (take(k, "(")) {
		if (parse_number(k, eno) < 0)
			return -1;
		if (!take(k, ")"))
			return fail(k, "')' was expected");
	}
	return 0;
}

/* Kafel's own names for x86-64 calls that the kernel's table spells otherwise. */
static const char *kernel_name(const char *name)
{
	static const char *const alias[][2] = {
		{ "newstat", "stat" }, { "newfstat", "fstat" }, { "newlstat", "lstat" },
		{ "newuname", "uname" }, { "umount", "umount2" },
	};

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i][0]))
			return alias[i][1];
	return name;
}

/* "FIELD: \"NAME\"", malloc'd; NULL when out of memory. */
static char *list_line(struct nj_xlate *x, const char *field, const char *name)
{
	char *q = nj_quote(name);
	char *line = q ? nj_fmt(x, "%s: %s", field, q) : NULL;

	free(q);
	return line;
}

static int add_name(struct kafel *k, bool allow, const char *kafel_name, const char *why)
{
	const char *name = kernel_name(kafel_name);
	char *line = list_line(k->x, allow ? "allow" : "deny", name);

	for (size_t i = 0; line && i < k->x->n; i++)
		if (k->x->v[i].sect == SECT_SECCOMP && !strcmp(k->x->v[i].line, line)) {
			free(line);
			return 0; /* listed twice: once is enough */
		}
	/* the kernel's table decides: an unknown name would fail every run */
	if (line && seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR) {
		free(line);
		return nj_note(k->x, &k->at, "seccomp_string: '%s' is no system call here; left "
			       "out", name);
	}
	return why ? nj_add(k->x, SECT_SECCOMP, &k->at, line, "%s", why)
		   : nj_add(k->x, SECT_SECCOMP, &k->at, line, NULL);
}

static int one_syscall(struct kafel *k, int act, const char *aname)
{
	char name[64];
	const struct ktok *t = peek(k);
	bool filtered = false;

	if (is(t, "SYSCALL") && is(&k->t[k->pos + 1], "["))
		return fail(k, "SYSCALL[n], a call by number");
	if (t->kind != K_IDENT || t->len >= sizeof(name))
		return fail(k, "a system call name was expected");
	/* Kafel names calls by name or SYSCALL[n]: a constant here is no call */
	if (find_define(k, t))
		return fail(k, "a #define'd name where a system call name was expected");
	/* USE can repeat a body many times over: the work stays bounded */
	if (++k->names > KAFEL_MAX_NAMES)
		return fail(k, "more than 4096 system call entries");
	snprintf(name, sizeof(name), "%.*s", (int)t->len, t->s);
	k->pos++;
	if (is(peek(k), "(")) {
		if (skip_group(k, "(", ")") < 0)
			return -1;
		filtered = true;
	}
	if (is(peek(k), "{")) {
		if (skip_group(k, "{", "}") < 0)
			return -1;
		filtered = true;
	}
	if (filtered && act == ACT_ALLOW)
		return nj_note(k->x, &k->at, "seccomp_string: %s %s with an argument filter: sbx "
			       "filters no arguments, so it is left out of allow", aname, name);
	if (act == ACT_ALLOW)
		return add_name(k, true, name, strcmp(aname, "LOG") ? NULL : "LOG: allowed, not logged");
	if (filtered && nj_note(k->x, &k->at, "seccomp_string: %s %s with an argument filter: "
				"sbx denies it whatever the arguments", aname, name) < 0)
		return -1;
	if (act == ACT_OTHER && nj_note(k->x, &k->at, "seccomp_string: %s { %s }: sbx has no %s; "
					"it denies the call", aname, name, aname) < 0)
		return -1;
	return add_name(k, false, name, NULL);
}

/* ACTION '{' name [args] [filter] {',' ...} '}' */
static int parse_rule(struct kafel *k)
{
	char aname[48];
	int act, eno;

	if (parse_action(k, &act, &eno, aname, sizeof(aname)) < 0 || !take(k, "{"))
		return fail(k, "'{' was expected after an action");
	/* TRAP's SIGSYS ends a program that does not catch it, as KILL
	 * does: the stricter of sbx's two deny actions; TRACE and
	 * USER_NOTIF with no tracer or listener fail the call */
	if (act == ACT_OTHER && !strcmp(aname, "TRAP"))
		act = ACT_KILL;
	if (act != ACT_ALLOW) {
		k->deny_acts |= 1 << (act == ACT_OTHER ? ACT_ERRNO : act);
		if (act == ACT_ERRNO && eno != 1)
			k->deny_errno = eno;
	}
	while (!take(k, "}")) {
		if (one_syscall(k, act, aname) < 0)
			return -1;
		if (!is(peek(k), "}") && !take(k, ","))
			return fail(k, "',' or '}' was expected");
	}
	return 0;
}

static int parse_body(struct kafel *k, const char *end);

/* USE p, q: the bodies of earlier POLICY definitions, parsed again. */
static int parse_use(struct kafel *k)
{
	do {
		const struct ktok *name = peek(k);
		size_t back;
		int rc = -1;

		if (name->kind != K_IDENT)
			return fail(k, "a policy name was expected after USE");
		k->pos++;
		back = k->pos;
		for (size_t i = 0; i + 2 < back; i++)
			if (is(&k->t[i], "POLICY") && k->t[i + 1].len == name->len &&
			    !strncmp(k->t[i + 1].s, name->s, name->len) && is(&k->t[i + 2], "{")) {
				k->pos = i + 3;
				rc = parse_body(k, "}");
				break;
			}
		if (rc < 0)
			return k->bad ? -1 : fail(k, "USE names no POLICY defined before it");
		k->pos = back;
		/* "USE a, ALLOW { ... }": the comma ends the USE, not its list */
	} while (is(peek(k), ",") && k->t[k->pos + 1].kind == K_IDENT &&
		 !is(&k->t[k->pos + 2], "{") && !is(&k->t[k->pos + 2], "(") && take(k, ","));
	return 0;
}

static int parse_body(struct kafel *k, const char *end)
{
	/* bounded: USE inside POLICY bodies may recurse */
	if (++k->depth > KAFEL_MAX_DEPTH)
		return fail(k, "USE nested deeper than 16");
	while (!(end ? take(k, end) : peek(k)->kind == K_END)) {
		char aname[48];
		int rc;

		if (peek(k)->kind == K_END)
			return fail(k, "'}' was expected");
		if (take(k, "POLICY")) {
			/* a definition is read when USE names it */
			k->pos++;
			rc = is(peek(k), "{") ? skip_group(k, "{", "}") : fail(k, "'{' was expected");
		} else if (take(k, "USE")) {
			rc = parse_use(k);
		} else if (take(k, "DEFAULT")) {
			rc = parse_action(k, &k->def, &k->def_errno, aname, sizeof(aname));
		} else {
			rc = parse_rule(k);
		}
		if (rc < 0)
			return -1;
		take(k, ",");
	}
	k->depth--;
	return 0;
}

/* ---- emitting ---- */

static int add_fixed(struct nj_xlate *x, const struct ppos *at, char *line, const char *why)
{
	if (nj_add(x, SECT_SECCOMP, at, line, "%s", why) < 0)
		return -1;
	x->v[x->n - 1].fixed = true;
	return 0;
}

static int emit_head(struct kafel *k)
{
	static const char *const names[] = { "ALLOW", "ERRNO", "KILL" };
	int def = k->def < 0 || k->def == ACT_OTHER ? ACT_KILL : k->def;
	/* one deny action for all lists: KILL when any list kills, never looser */
	bool kill = k->deny_acts & (1 << ACT_KILL);

	if (k->def < 0 && nj_note(k->x, &k->at, "seccomp_string: no DEFAULT: Kafel's is KILL") < 0)
		return -1;
	if (k->def == ACT_OTHER && nj_note(k->x, &k->at, "seccomp_string: DEFAULT: sbx has "
					   "only ALLOW, ERRNO and KILL; KILL is used") < 0)
		return -1;
	if (add_fixed(k->x, &k->at, nj_fmt(k->x, "default_action: %s", names[def]),
		      "seccomp_string DEFAULT") < 0)
		return -1;
	if (def == ACT_ERRNO && k->def_errno >= 1 && k->def_errno <= 4095 &&
	    add_fixed(k->x, &k->at, nj_fmt(k->x, "errno: %d", k->def_errno), "DEFAULT ERRNO") < 0)
		return -1;
	if (def == ACT_ERRNO && (k->def_errno < 1 || k->def_errno > 4095) &&
	    nj_note(k->x, &k->at, "seccomp_string: DEFAULT ERRNO(%d): sbx takes 1 to 4095; "
		    "ENOSYS (38) is used", k->def_errno) < 0)
		return -1;
	if (k->deny_acts == ((1 << ACT_KILL) | (1 << ACT_ERRNO)) &&
	    nj_note(k->x, &k->at, "seccomp_string: KILL and ERRNO lists: sbx has one action for "
		    "its deny list; every listed call kills the program, the ERRNO ones too") < 0)
		return -1;
	if (k->deny_errno && !kill &&
	    nj_note(k->x, &k->at, "seccomp_string: ERRNO(%d) list: sbx's deny list fails calls "
		    "with EPERM (1)", k->deny_errno) < 0)
		return -1;
	return add_fixed(k->x, &k->at, nj_fmt(k->x, "deny_action: %s", kill ? "KILL" : "ERRNO"),
			 "seccomp_string");
}

/* No seccomp_string, or one outside the subset: sbx's default filter. */
static int emit_default_filter(struct nj_xlate *x, const struct ppos *at, const char *why)
{
	const struct builtin_policy *b = builtin_find("default");
	struct sbx_err e = { 0 };
	struct policy p;
	const struct seccomp_spec *s = &p.seccomp;
	int rc;

	if (!b || policy_load_text("builtin:default", b->text, b->len, &p, &e) < 0)
		return err_set(x->err, ERR_INTERNAL, 0, "the built-in default policy: %s", e.msg);
	rc = nj_note(x, at, "%s", why);
	if (rc == 0)
		rc = add_fixed(x, at, nj_fmt(x, "default_action: %s", s->default_action == SC_ALLOW
					     ? "ALLOW" : s->default_action == SC_KILL ? "KILL" : "ERRNO"),
			       "sbx's default filter");
	if (rc == 0)
		rc = add_fixed(x, at, nj_fmt(x, "errno: %d", s->errno_value), "sbx's default");
	for (size_t i = 0; rc == 0 && i < s->allow.n; i++)
		rc = add_fixed(x, at, list_line(x, "allow", s->allow.v[i]), "sbx's default");
	for (size_t i = 0; rc == 0 && i < s->deny.n; i++)
		rc = add_fixed(x, at, list_line(x, "deny", s->deny.v[i]), "sbx's default");
	if (rc == 0)
		rc = add_fixed(x, at, nj_fmt(x, "deny_action: %s", s->deny_action == SC_KILL
					     ? "KILL" : "ERRNO"), "sbx's default");
	policy_free(&p);
	return rc;
}

/* The seccomp_string values joined by newlines; START[i]: where value i begins. */
static char *joined_strings(struct nj_xlate *x, size_t *len, size_t *start, size_t n)
{
	char *s = NULL;
	FILE *f = open_memstream(&s, len);
	const struct pvalue *v;

	if (!f)
		return NULL;
	for (size_t i = 0; i < n && (v = nj_nth(x->top, "seccomp_string", i)); i++) {
		start[i] = (size_t)ftell(f);
		fprintf(f, "%s\n", v->text);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* The text at OFF, for a message: its line, printable, cut at 40 bytes. */
static void quote_at(const char *text, size_t len, size_t off, char *buf, size_t size)
{
	size_t n = 0, i = off;

	for (; i < len && text[i] != '\n' && i - off < 40 && n + 8 < size; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c >= 0x20 && c < 0x7f)
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
	}
	buf[n] = '\0';
	if (i < len && text[i] != '\n')
		strcpy(buf + n, "...");
}

/* Text outside the subset: refused at its place in the nsjail file. */
static int refuse(struct kafel *k, const char *text, size_t len, const size_t *start,
		  size_t nstart)
{
	const struct pvalue *v;
	size_t i = 0, line = 1;
	char what[128], where[48] = "";

	while (i + 1 < nstart && start[i + 1] <= k->bad_off)
		i++;
	v = nj_nth(k->x->top, "seccomp_string", i);
	for (size_t p = start[i]; p < k->bad_off && p < len; p++)
		line += text[p] == '\n';
	if (line > 1)
		snprintf(where, sizeof(where), " (line %zu of this string)", line);
	quote_at(text, len, k->bad_off, what, sizeof(what));
	return err_set(k->x->err, ERR_CONFIG, 0, "%s:%d:%d: seccomp_string: %s at '%s'%s: sbx "
		       "translates ALLOW, ERRNO and KILL lists, POLICY, USE, DEFAULT and #define "
		       "of one number or name, and refuses what it cannot hold rather than allow "
		       "more; rewrite that part, or drop seccomp_string and write the imported "
		       "policy's seccomp block (sbx.policy(5))",
		       v->at.file, v->at.line, v->at.col, k->bad, what, where);
}

int nj_translate_seccomp(struct nj_xlate *x)
{
	struct kafel k = { .x = x, .def = -1 };
	size_t len = 0, nstart = 0, *start;
	char *text;
	int rc;

	k.at = nj_at(x, x->top, "seccomp_string");
	if (!nj_nth(x->top, "seccomp_string", 0))
		return emit_default_filter(x, &k.at, "no seccomp_string: nsjail ran without a "
					   "filter; sbx's default filter is used (widen it "
					   "with --seccomp-allow)");
	k.at = nj_nth(x->top, "seccomp_string", 0)->at;
	while (nj_nth(x->top, "seccomp_string", nstart))
		nstart++;
	start = calloc(nstart, sizeof(*start));
	text = start ? joined_strings(x, &len, start, nstart) : NULL;
	if (!text) {
		free(start);
		return nj_add(x, SECT_SECCOMP, NULL, NULL, NULL);
	}
	rc = scan(&k, text, len);
	if (rc == 0)
		rc = parse_body(&k, NULL);
	if (rc == 0)
		rc = emit_head(&k);
	/* outside the subset: a broader filter (sbx's own) would allow more */
	if (k.bad)
		rc = refuse(&k, text, len, start, nstart);
	free(k.t);
	free(text);
	free(start);
	return rc;
}
