/*
 * base/Utf8.c -- well-formed UTF-8 (RFC 3629): the decoder that the
 * eventlog reader checks logs with, the eventlog writer repairs labels
 * with and every tool's output writes strings with (wire/TextOut.c).
 */
#include "Utf8.h"

size_t utf8_valid_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;   /* the second byte's range */
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;   /* overlong */
        if (c == 0xed)
            hi = 0x9f;   /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;   /* overlong */
        if (c == 0xf4)
            hi = 0x8f;   /* above U+10FFFF */
    } else {
        return 0;        /* a continuation byte, 0xc0, 0xc1, 0xf5 .. 0xff */
    }
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    return n;
}

uint32_t utf8_code_point(const unsigned char *s, size_t n)
{
    if (n <= 1)
        return s[0];
    uint32_t cp = s[0] & (0x7fu >> n);
    for (size_t k = 1; k < n; k++)
        cp = cp << 6 | (s[k] & 0x3fu);
    return cp;
}
