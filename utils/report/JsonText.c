/*
 * utils/report/JsonText.c -- the JSON report's strings and numbers
 * (ReportJson.c): UTF-8 written as code points, safe inside the page's <script>
 * element; numbers without a fraction as integers, non-finite as null.
 */
#include <math.h>
#include <stdio.h>

#include "JsonText.h"

/* Note [JSON strings are code points]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Labels, markers and file names are UTF-8 as GHC writes them.  Each
 * well-formed UTF-8 sequence is written as the code point it encodes
 * (\uXXXX, a surrogate pair past U+FFFF), so "fase \u00e9" reads "fase é"
 * in every view; escaping each byte instead showed the Latin-1 reading of
 * the bytes ("Ã©").  A byte that does not start a well-formed sequence
 * (a stray continuation byte, a sequence cut short, an overlong form, a
 * surrogate, past U+10FFFF) becomes one U+FFFD and decoding resumes at the
 * next byte, so bad input is visible but never breaks the JSON.  The output
 * stays ASCII, and '<', '>', '&' are escaped too, so the text is safe
 * inside the page's <script> element.
 */

/* The code point of the UTF-8 sequence at s (NUL-terminated), and its
 * length in *len; -1 with *len = 1 if s does not start a well-formed one. */
static long utf8_decode(const unsigned char *s, size_t *len)
{
    *len = 1;
    unsigned c = s[0];
    if (c < 0x80)
        return (long)c;
    size_t n;
    unsigned long cp, min;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2; cp = c & 0x1f; min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3; cp = c & 0x0f; min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4; cp = c & 0x07; min = 0x10000;
    } else {
        return -1;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)     /* also stops at the NUL */
            return -1;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *len = n;
    return (long)cp;
}

/* A JSON string: see Note [JSON strings are code points]. */
void json_string(FILE *out, const char *s)
{
    if (s == NULL) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    const unsigned char *c = (const unsigned char *)s;
    while (*c) {
        size_t len;
        long cp = utf8_decode(c, &len);
        c += len;
        if (cp < 0)
            fputs("\\ufffd", out);
        else if (cp == '"' || cp == '\\')
            fprintf(out, "\\%c", (int)cp);
        else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp >= 0x7f) {
            if (cp > 0xffff) {
                long v = cp - 0x10000;
                fprintf(out, "\\u%04lx\\u%04lx", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
            } else {
                fprintf(out, "\\u%04lx", cp);
            }
        } else {
            fputc((int)cp, out);
        }
    }
    fputc('"', out);
}

void json_number(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.6g", v);
}
