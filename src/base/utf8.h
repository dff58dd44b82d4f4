/*
 * utf8.h - the one UTF-8 validator and repairer of the record writer.
 *
 * Validates by the table of well-formed byte sequences of the Unicode
 * Standard, chapter 3 (Table 3-7): overlongs (C0 AF), CESU-8 surrogates
 * (ED A0 80) and code points above U+10FFFF are ill-formed; each maximal
 * ill-formed subpart becomes one U+FFFD.  Used for the captured output (supervise/capture.c)
 * and for every other string of the record (result.c).
 */
#ifndef SBX_UTF8_H
#define SBX_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Length of the well-formed sequence starting at S (1-4), or 0 when S[0]
 * starts no well-formed sequence.  *VALID_PREFIX gets the length of the
 * maximal subpart (bytes that could still begin a valid sequence, >= 1).
 */
size_t utf8_seq_len(const unsigned char *s, size_t avail, size_t *valid_prefix);

/*
 * IN[0..LEN) as valid UTF-8, malloc'd and NUL-terminated (embedded NULs
 * are kept, counted in *OUT_LEN).  CUT: the bytes were truncated at a limit,
 * so an incomplete sequence at the very end is dropped instead of becoming
 * U+FFFD.  *LOSSY is set when anything was replaced.  NULL on ENOMEM.
 */
char *utf8_repair(const unsigned char *in, size_t len, bool cut, size_t *out_len,
		  bool *lossy);

/* Whether IN[0..LEN) is valid UTF-8 as it is. */
bool utf8_is_valid(const unsigned char *in, size_t len);

#endif
