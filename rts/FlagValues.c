/*
 * rts/FlagValues.c -- the values RTS options take, each written one way
 * whatever the option: whole numbers, numbers, sizes (Note [Size syntax]),
 * counts within bounds, seconds, auto|always|never, ports and strings;
 * and the message a bad one gets.  The options themselves are
 * RtsOptions.c's table.  Relies on nothing of the runtime but the block
 * size.
 */
#include "FlagValues.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Flags.h"

/* Writes the message into err and returns false, so that a parser can
 * say `return flag_error(...)`. */
bool flag_error(char *err, size_t err_len, const char *fmt, ...)
{
    if (err != NULL && err_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Replaces *slot (malloc'd or NULL) by a copy of s, or by NULL. */
bool flag_set_string(char **slot, const char *s, char *err, size_t err_len)
{
    char *copy = NULL;
    if (s != NULL) {
        copy = strdup(s);
        if (copy == NULL)
            return flag_error(err, err_len, "rts_flags: out of memory (bytes=%zu)",
                              strlen(s) + 1);
    }
    free(*slot);
    *slot = copy;
    return true;
}

/* The whole of s is one finite number in strtod's syntax. */
bool flag_parse_double(const char *s, double *out)
{
    char *end;
    double d;

    if (*s == '\0' || isspace((unsigned char)*s))
        return false;
    errno = 0;
    d = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* A decimal whole number; saturates at UINT64_MAX instead of overflowing. */
bool flag_parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    if (!all_digits(s))
        return false;
    errno = 0;
    v = strtoull(s, NULL, 10);
    *out = errno == ERANGE ? UINT64_MAX : (uint64_t)v;
    return true;
}

typedef enum { SIZE_OK, SIZE_BAD, SIZE_TOO_LARGE } SizeResult;

/* Note [Size syntax]
 * ~~~~~~~~~~~~~~~~~~
 * A size is digits with an optional fraction (1, 1.5, .5) and at most one
 * suffix: k, m, g, t (powers of 1024, either case) or w (words), as in
 * GHC.  Unlike GHC, which runs atof over the text and so reads "-Mfoo" as
 * 0 and "-A1x" as 1, anything else is an error.  Fractional bytes are
 * truncated. */
static SizeResult parse_size(const char *s, uint64_t *out_bytes)
{
    const char *p = s, *num_end;
    size_t digits = 0;
    double mult = 1.0, bytes;
    char *end;

    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (digits == 0)
        return SIZE_BAD;
    num_end = p;
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': mult = 1024.0; p++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; p++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; p++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; p++; break;
    case 'w': case 'W': mult = (double)WORD_SIZE; p++; break;
    default: return SIZE_BAD;
    }
    if (*p != '\0')
        return SIZE_BAD;
    bytes = strtod(s, &end);
    if (end != num_end)
        return SIZE_BAD;
    bytes *= mult;
    if (!(bytes <= (double)SIZE_MAX_BYTES))
        return SIZE_TOO_LARGE;
    *out_bytes = (uint64_t)bytes;
    return SIZE_OK;
}

/* "8k", "1m", "128t": bytes in the largest unit that divides it. */
static void format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char units[] = "kmgt";
    int u = -1;
    while (u < 3 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}

/* Parses the size after the flag name, to the byte; zero_ok lets 0 mean
 * "none".  The example shows the name with a size after it, '=' between
 * them for a long option (--alloc-sample=64k). */
bool flag_parse_bytes(const char *name, const char *arg, uint64_t min_bytes, bool zero_ok,
                      StgWord *out, char *err, size_t err_len)
{
    uint64_t bytes = 0;
    char min_text[32], max_text[32];

    format_size(min_bytes, min_text, sizeof min_text);
    format_size(SIZE_MAX_BYTES, max_text, sizeof max_text);
    switch (parse_size(arg, &bytes)) {
    case SIZE_BAD:
        return flag_error(err, err_len,
                          "%s: bad size '%s' (expected a number with an optional "
                          "k, m, g, t or w suffix, e.g. %s%s64m)",
                          name, arg, name, name[1] == '-' ? "=" : "");
    case SIZE_TOO_LARGE:
        return flag_error(err, err_len, "%s: size must be at most %s (got %s)",
                          name, max_text, arg);
    case SIZE_OK:
        break;
    }
    if (zero_ok && bytes == 0) {
        *out = 0;
        return true;
    }
    if (bytes < min_bytes) {
        if (zero_ok)
            return flag_error(err, err_len,
                              "%s: size must be 0 (unlimited) or at least %s (got %s)",
                              name, min_text, arg);
        return flag_error(err, err_len, "%s: size must be at least %s (got %s)",
                          name, min_text, arg);
    }
    *out = (StgWord)bytes;
    return true;
}

/* The same, rounded down to whole blocks, as GHC keeps these in blocks. */
bool flag_parse_size(const char *name, const char *arg, uint64_t min_bytes, bool zero_ok,
                     StgWord *out, char *err, size_t err_len)
{
    if (!flag_parse_bytes(name, arg, min_bytes, zero_ok, out, err, err_len))
        return false;
    *out &= ~(StgWord)BLOCK_MASK;
    return true;
}

bool flag_parse_count(const char *name, const char *arg, uint64_t min, uint64_t max,
                      const char *what, const char *example, unsigned *out, char *err,
                      size_t err_len)
{
    uint64_t n;
    if (!flag_parse_u64(arg, &n))
        return flag_error(err, err_len, "%s: bad number '%s' (expected a whole number of %s, "
                          "e.g. %s)", name, arg, what, example);
    if (n < min)
        return flag_error(err, err_len, "%s: number of %s must be at least %llu (got %s)", name,
                          what, (unsigned long long)min, arg);
    if (n > max)
        return flag_error(err, err_len, "%s: number of %s must be at most %llu (got %s)", name,
                          what, (unsigned long long)max, arg);
    *out = (unsigned)n;
    return true;
}

bool flag_parse_seconds(const char *name, const char *arg, double *out, char *err,
                        size_t err_len)
{
    double secs;
    if (!flag_parse_double(arg, &secs) || secs < 0)
        return flag_error(err, err_len, "bad value for %s", name);
    *out = secs;
    return true;
}

bool flag_parse_when(const char *name, const char *v, FlagWhen *when, char *err,
                     size_t err_len)
{
    if (strcmp(v, "auto") == 0)
        *when = WHEN_AUTO;
    else if (strcmp(v, "always") == 0)
        *when = WHEN_ALWAYS;
    else if (strcmp(v, "never") == 0)
        *when = WHEN_NEVER;
    else
        return flag_error(err, err_len, "%s: expected auto, always or never (got '%s')", name,
                          v);
    return true;
}

bool flag_parse_port(const char *what, const char *s, uint16_t *port, char *err,
                     size_t err_len)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > 65535)
        return flag_error(err, err_len, "%s: expected a port from 0 to 65535 (got '%s')", what,
                          s);
    *port = (uint16_t)v;
    return true;
}
