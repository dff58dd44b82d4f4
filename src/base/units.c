/*
 * units.c - parse the DUR, SIZE and N values of the command line; see units.h.
 *
 * A value is DIGITS[.DIGITS] followed by a unit.  The arithmetic is exact
 * (128-bit), so "1.5s" is 1500 ms, "1.0001ms" is refused instead of rounded,
 * and anything that does not fit in 64 bits is refused instead of wrapping
 * (a wrapped limit would silently be tiny or huge).
 */
#include "base/units.h"

#include <stdbool.h>
#include <string.h>

#define MAX_FRAC_DIGITS 18

struct decimal {
	unsigned __int128 whole; /* digits before the point */
	uint64_t frac;           /* digits after it, trailing zeros dropped */
	unsigned frac_digits;
	const char *rest;        /* the unit suffix */
};

/* Read DIGITS[.DIGITS]; false on a missing digit or more than 38 digits. */
static bool read_decimal(const char *s, struct decimal *d)
{
	unsigned n = 0, fd = 0, zeros = 0;

	memset(d, 0, sizeof(*d));
	for (; *s >= '0' && *s <= '9'; s++, n++) {
		if (n >= 38)
			return false;
		d->whole = d->whole * 10 + (unsigned)(*s - '0');
	}
	if (n == 0)
		return false;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (*s == '0') {
				zeros++;
				continue;
			}
			/* a nonzero digit: the zeros before it are significant */
			for (; zeros; zeros--, fd++)
				if (fd < MAX_FRAC_DIGITS + 1)
					d->frac = d->frac * 10;
			if (fd < MAX_FRAC_DIGITS + 1)
				d->frac = d->frac * 10 + (uint64_t)(*s - '0');
			fd++;
		}
	}
	d->frac_digits = fd;
	d->rest = s;
	return true;
}

/*
 * whole*mult + frac*mult/10^fd, exactly.  Returns 0 ok, 1 not whole,
 * 2 overflow.
 */
static int scale(const struct decimal *d, uint64_t mult, uint64_t *out)
{
	unsigned __int128 v, f, p = 1;

	if (d->frac_digits > MAX_FRAC_DIGITS)
		return 1;
	for (unsigned i = 0; i < d->frac_digits; i++)
		p *= 10;
	f = (unsigned __int128)d->frac * mult;
	if (f % p != 0)
		return 1;
	if (d->whole > (unsigned __int128)UINT64_MAX)
		return 2;
	v = d->whole * mult + f / p;
	if (v > UINT64_MAX)
		return 2;
	*out = (uint64_t)v;
	return 0;
}

static int duration_unit(const char *u, uint64_t *mult)
{
	static const struct { const char *name; uint64_t ms; } units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 },
		{ "m", 60000 }, { "h", 3600000 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0) {
			*mult = units[i].ms;
			return 0;
		}
	return -1;
}

/* K/M/G/T (either case) then optional "B" or "iB"; or a lone "B"; or "". */
static int size_unit(const char *u, uint64_t *mult)
{
	static const char letters[] = "kmgt";
	const char *hit;

	*mult = 1;
	if (*u == '\0' || strcmp(u, "B") == 0)
		return 0;
	hit = (*u >= 'A' && *u <= 'Z') ? strchr(letters, *u - 'A' + 'a')
				       : strchr(letters, *u);
	if (!hit || *u == '\0')
		return -1;
	*mult = (uint64_t)1 << (10 * (hit - letters + 1));
	u++;
	if (*u == '\0' || strcmp(u, "B") == 0 || strcmp(u, "iB") == 0)
		return 0;
	return -1;
}

static int check_result(int rc, const char *option, const char *text,
			const char *what, struct sbx_err *err)
{
	if (rc == 1)
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is not a whole number of %s", option,
			       text, what);
	if (rc == 2)
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' is too large", option, text);
	return 0;
}

static int positive(const char *option, const char *text, uint64_t v,
		    struct sbx_err *err)
{
	if (v == 0)
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' must be greater than 0", option, text);
	return 0;
}

int units_duration_ms(const char *option, const char *text, uint64_t *ms,
		      struct sbx_err *err)
{
	struct decimal d;
	uint64_t mult;

	if (!text || !read_decimal(text, &d) || duration_unit(d.rest, &mult) < 0)
		return err_set(err, ERR_USAGE, 0,
			       "%s: invalid duration '%s' (%s)", option,
			       text ? text : "", UNITS_DUR_FORMS);
	if (check_result(scale(&d, mult, ms), option, text, "milliseconds",
			 err) < 0)
		return -1;
	return positive(option, text, *ms, err);
}

int units_size_bytes(const char *option, const char *text, uint64_t *bytes,
		     struct sbx_err *err)
{
	struct decimal d;
	uint64_t mult;

	if (!text || !read_decimal(text, &d) || size_unit(d.rest, &mult) < 0)
		return err_set(err, ERR_USAGE, 0,
			       "%s: invalid size '%s' (%s)", option,
			       text ? text : "", UNITS_SIZE_FORMS);
	if (check_result(scale(&d, mult, bytes), option, text, "bytes", err) < 0)
		return -1;
	return positive(option, text, *bytes, err);
}

int units_size_mib(const char *option, const char *text, uint64_t *mib,
		   struct sbx_err *err)
{
	uint64_t bytes;

	if (units_size_bytes(option, text, &bytes, err) < 0)
		return -1;
	/* no silent rounding: the value enforced is the value asked for */
	if (bytes % (1u << 20) != 0)
		return err_set(err, ERR_USAGE, 0,
			       "%s: '%s' must be a multiple of 1M (e.g. 64M, 2G)",
			       option, text);
	*mib = bytes >> 20;
	return 0;
}

int units_count(const char *option, const char *text, uint64_t *n,
		struct sbx_err *err)
{
	struct decimal d;

	if (!text || !read_decimal(text, &d) || *d.rest != '\0' ||
	    d.frac_digits != 0 || strchr(text, '.'))
		return err_set(err, ERR_USAGE, 0,
			       "%s: invalid number '%s' (use a positive integer)",
			       option, text ? text : "");
	if (check_result(scale(&d, 1, n), option, text, "units", err) < 0)
		return -1;
	return positive(option, text, *n, err);
}
