/*
 * base/Utf8.h -- UTF-8 as RFC 3629 has it: the one decoder the runtime,
 * the reader and the tools share (no overlong forms, no surrogates,
 * nothing above U+10FFFF).  The whole API of Utf8.c.
 */
#ifndef STRATA_BASE_UTF8_H
#define STRATA_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1 to 4) of the well-formed UTF-8 sequence at s[0 .. avail),
 * or 0 when none starts there (a stray continuation byte, a sequence cut
 * short, an overlong form, a surrogate, past U+10FFFF).  A NUL byte is a
 * sequence of one; avail must be at least 1. */
size_t utf8_valid_len(const unsigned char *s, size_t avail);

/* The code point of the well-formed sequence s[0 .. n) (n as
 * utf8_valid_len gave it). */
uint32_t utf8_code_point(const unsigned char *s, size_t n);

#endif /* STRATA_BASE_UTF8_H */
