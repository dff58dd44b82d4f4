/*
 * lexer.c - tokens of protocol-buffer text format, with positions.
 *
 * Strings are decoded here (C escapes); numbers keep their text so that
 * "got 1.5" messages quote what the user wrote.  Every input byte is
 * checked: a policy is untrusted text and must never crash the loader.
 */
#include "policy/parser.h"
#include "base/cleanup.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NUMBER_TEXT 64

void lex_init(struct lexer *lx, const char *file, const char *s, size_t len)
{
	lx->file = file;
	lx->s = s;
	lx->len = len;
	lx->pos = 0;
	lx->line = 1;
	lx->col = 1;
}

static int peekc(const struct lexer *lx, size_t ahead)
{
	if (lx->pos + ahead >= lx->len)
		return -1;
	return (unsigned char)lx->s[lx->pos + ahead];
}

static void advance(struct lexer *lx)
{
	if (lx->s[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

static struct ppos here(const struct lexer *lx)
{
	struct ppos at = { lx->file, lx->line, lx->col };

	return at;
}

static void skip_space_and_comments(struct lexer *lx)
{
	int c;

	while ((c = peekc(lx, 0)) >= 0) {
		if (c == '#') {
			while ((c = peekc(lx, 0)) >= 0 && c != '\n')
				advance(lx);
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
			   c == '\f' || c == '\v') {
			advance(lx);
		} else {
			return;
		}
	}
}

static bool is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int copy_text(struct token *t, const char *s, size_t n, struct sbx_err *err)
{
	t->text = malloc(n + 1);
	if (!t->text)
		return err_set(err, ERR_INTERNAL, 0, "out of memory");
	memcpy(t->text, s, n);
	t->text[n] = '\0';
	t->len = n;
	return 0;
}

static int lex_ident(struct lexer *lx, struct token *t, struct sbx_err *err)
{
	size_t start = lx->pos;

	while (is_ident_char(peekc(lx, 0)))
		advance(lx);
	t->kind = T_IDENT;
	return copy_text(t, lx->s + start, lx->pos - start, err);
}

/* Decimal digits only; a leading zero is refused because protobuf reads it as octal. */
static int number_value(struct token *t, const char *digits, struct sbx_err *err)
{
	uint64_t v = 0;

	if (digits[0] == '0' && digits[1] != '\0')
		return perr(err, &t->at, "invalid number '%s' (write decimal without leading zeros)",
			    t->text);
	for (const char *p = digits; *p; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return perr(err, &t->at,
				    "number '%s' is out of range (at most 18446744073709551615)",
				    t->text);
		v = v * 10 + d;
	}
	t->is_int = true;
	t->num = v;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* "1.5", "2e3", "1.5e-3": a real number, which no sbx field accepts. */
static bool is_real(const char *s)
{
	size_t n = strspn(s, "0123456789");
	bool frac = false;

	if (n == 0)
		return false;
	s += n;
	if (*s == '.') {
		n = strspn(++s, "0123456789");
		s += n;
		frac = true;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		n = strspn(s, "0123456789");
		if (n == 0)
			return false;
		s += n;
		frac = true;
	}
	return frac && *s == '\0';
}

static int lex_number(struct lexer *lx, struct token *t, struct sbx_err *err)
{
	size_t start = lx->pos;
	const char *body;
	int c, prev = 0;

	if (peekc(lx, 0) == '-') {
		t->negative = true;
		advance(lx);
	}
	while ((c = peekc(lx, 0)) >= 0 &&
	       (is_ident_char(c) || c == '.' ||
		((c == '+' || c == '-') && (prev == 'e' || prev == 'E')))) {
		prev = c;
		advance(lx);
		if (lx->pos - start > MAX_NUMBER_TEXT)
			return perr(err, &t->at, "number longer than %d characters",
				    MAX_NUMBER_TEXT);
	}
	t->kind = T_NUMBER;
	if (copy_text(t, lx->s + start, lx->pos - start, err) < 0)
		return -1;
	body = t->text + (t->negative ? 1 : 0);
	if (all_digits(body))
		return number_value(t, body, err);
	if (is_real(body))
		return 0;
	return perr(err, &t->at, "invalid number '%s'", t->text);
}

struct strbuf {
	char *s;
	size_t len, cap;
};

static void strbuf_free(struct strbuf *b)
{
	free(b->s);
}

static int sb_put(struct strbuf *b, char c, const struct ppos *at, struct sbx_err *err)
{
	if (b->len >= POLICY_MAX_STRING)
		return perr(err, at, "string longer than %u bytes", POLICY_MAX_STRING);
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char *s = realloc(b->s, cap);

		if (!s)
			return err_set(err, ERR_INTERNAL, 0, "out of memory");
		b->s = s;
		b->cap = cap;
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int simple_escape(int c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case '\\': return '\\';
	case '\'': return '\'';
	case '"': return '"';
	case '?': return '?';
	default: return -1;
	}
}

/* After the backslash: decode one escape into *out. */
static int lex_escape(struct lexer *lx, int *out, struct sbx_err *err)
{
	struct ppos at = here(lx);
	int c = peekc(lx, 0), v = 0, n;

	at.col--; /* point at the backslash */
	if (c < 0 || c == '\n')
		return perr(err, &at, "unterminated escape at end of line");
	if (simple_escape(c) >= 0) {
		*out = simple_escape(c);
		advance(lx);
		return 0;
	}
	if (c == 'x') {
		advance(lx);
		for (n = 0; n < 2 && hexval(peekc(lx, 0)) >= 0; n++) {
			v = v * 16 + hexval(peekc(lx, 0));
			advance(lx);
		}
		if (n == 0)
			return perr(err, &at, "'\\x' needs one or two hex digits");
		*out = v;
		return 0;
	}
	if (c >= '0' && c <= '7') {
		for (n = 0; n < 3 && (c = peekc(lx, 0)) >= '0' && c <= '7'; n++) {
			v = v * 8 + (c - '0');
			advance(lx);
		}
		if (v > 255)
			return perr(err, &at, "octal escape above \\377");
		*out = v;
		return 0;
	}
	if (c >= 0x20 && c < 0x7f)
		return perr(err, &at, "unknown escape '\\%c' (use \\n \\t \\\\ \\\" \\' \\xHH or \\ooo)", c);
	return perr(err, &at, "unknown escape (byte 0x%02x after '\\')", (unsigned)c);
}

static int lex_string(struct lexer *lx, struct token *t, struct sbx_err *err)
{
	struct strbuf b __attribute__((cleanup(strbuf_free))) = { 0 };
	int quote = peekc(lx, 0), c;

	advance(lx);
	for (;;) {
		c = peekc(lx, 0);
		if (c < 0 || c == '\n')
			return perr(err, &t->at, "unterminated string (missing closing %c)", quote);
		advance(lx);
		if (c == quote)
			break;
		if (c == '\\' && lex_escape(lx, &c, err) < 0)
			return -1;
		if (sb_put(&b, (char)c, &t->at, err) < 0)
			return -1;
	}
	t->kind = T_STRING;
	if (!b.s)
		return copy_text(t, "", 0, err);
	t->len = b.len;
	t->text = steal_ptr(&b.s);
	return 0;
}

static int lex_punct(struct lexer *lx, struct token *t, int c, struct sbx_err *err)
{
	static const char chars[] = "{}[]:;,";
	static const enum tok_kind kinds[] = {
		T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET, T_COLON, T_SEMI, T_COMMA
	};
	const char *p = c > 0 ? strchr(chars, c) : NULL;

	if (!p) {
		if (c >= 0x21 && c < 0x7f)
			return perr(err, &t->at, "unexpected character '%c'", c);
		return perr(err, &t->at, "unexpected byte 0x%02x outside a string", (unsigned)c);
	}
	t->kind = kinds[p - chars];
	advance(lx);
	return 0;
}

int lex_next(struct lexer *lx, struct token *t, struct sbx_err *err)
{
	int c;

	memset(t, 0, sizeof(*t));
	skip_space_and_comments(lx);
	t->at = here(lx);
	c = peekc(lx, 0);
	if (c < 0) {
		t->kind = T_EOF;
		return 0;
	}
	if (is_ident_start(c))
		return lex_ident(lx, t, err);
	if ((c >= '0' && c <= '9') || c == '-')
		return lex_number(lx, t, err);
	if (c == '"' || c == '\'')
		return lex_string(lx, t, err);
	return lex_punct(lx, t, c, err);
}

const char *tok_describe(const struct token *t, char *buf, size_t size)
{
	static const char *const names[] = {
		[T_EOF] = "end of file", [T_LBRACE] = "'{'", [T_RBRACE] = "'}'",
		[T_LBRACKET] = "'['", [T_RBRACKET] = "']'", [T_COLON] = "':'",
		[T_SEMI] = "';'", [T_COMMA] = "','",
	};

	switch (t->kind) {
	case T_IDENT:
		snprintf(buf, size, "'%.40s'", t->text);
		return buf;
	case T_NUMBER:
		snprintf(buf, size, "number %.40s", t->text);
		return buf;
	case T_STRING:
		return "a string";
	default:
		return names[t->kind];
	}
}

bool utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i], need, min, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1; min = 0x80; cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2; min = 0x800; cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3; min = 0x10000; cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= need)
			return false;
		for (unsigned k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		/* overlongs, UTF-16 surrogates and > U+10FFFF are not UTF-8 */
		if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += need + 1;
	}
	return true;
}

int perr(struct sbx_err *err, const struct ppos *at, const char *fmt, ...)
{
	char msg[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at && at->file && at->line > 0)
		return err_set(err, ERR_CONFIG, 0, "%s:%d:%d: %s", at->file, at->line,
			       at->col, msg);
	if (at && at->file)
		return err_set(err, ERR_CONFIG, 0, "%s: %s", at->file, msg);
	return err_set(err, ERR_CONFIG, 0, "%s", msg);
}
