/*
 * units.h - the DUR, SIZE and N values of the command line.
 *
 * DUR: 250ms, 2s, 1.5s, 3m, 1h; a bare number means seconds.
 * SIZE: 4096, 64K, 512M, 2G, 1T (binary units, optional B/iB); bare = bytes.
 * N: a plain decimal integer.
 * Every value here is a limit, so 0 is refused; so are negatives, junk,
 * fractions that do not land on a whole ms/byte, and overflow.  OPTION names
 * the option in messages ("--time").  Errors are ERR_USAGE.
 */
#ifndef SBX_UNITS_H
#define SBX_UNITS_H

#include <stdint.h>

#include "base/err.h"

#define UNITS_DUR_FORMS "use 250ms, 2s, 1.5s, 3m, 1h or a bare number of seconds"
#define UNITS_SIZE_FORMS "use 4096, 64K, 512M, 2G, 1T or a bare number of bytes"

/* Parse DUR into milliseconds. */
int units_duration_ms(const char *option, const char *text, uint64_t *ms,
		      struct sbx_err *err);

/* Parse SIZE into bytes. */
int units_size_bytes(const char *option, const char *text, uint64_t *bytes,
		     struct sbx_err *err);

/* Parse SIZE and require a whole number of MiB; *mib gets the MiB count. */
int units_size_mib(const char *option, const char *text, uint64_t *mib,
		   struct sbx_err *err);

/* Parse a positive decimal count. */
int units_count(const char *option, const char *text, uint64_t *n,
		struct sbx_err *err);

#endif
