/*
 * rts/FlagValues.h -- the values RTS options take (sizes, counts,
 * seconds, auto|always|never, ports, strings), each parsed one way and
 * each bad one told in one shape; the options are RtsOptions.c's table.
 * Every parser returns true, or false with a message naming the option
 * and the problem in err (err_len bytes).  The whole API of
 * FlagValues.c.
 */
#ifndef STRATA_FLAG_VALUES_H
#define STRATA_FLAG_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/Config.h"

/* Writes the message into err and returns false, so that a parser can
 * say `return flag_error(...)`. */
bool flag_error(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Replaces *slot (malloc'd or NULL) by a copy of s, or by NULL. */
bool flag_set_string(char **slot, const char *s, char *err, size_t err_len);

/* The whole of s is one finite number in strtod's syntax (no message). */
bool flag_parse_double(const char *s, double *out);
/* The whole of s is a decimal whole number; saturates at UINT64_MAX (no
 * message). */
bool flag_parse_u64(const char *s, uint64_t *out);

/* A size after the option name (Note [Size syntax] in FlagValues.c),
 * at least min_bytes and at most SIZE_MAX_BYTES; zero_ok lets 0 mean
 * "none".  flag_parse_bytes keeps it to the byte, flag_parse_size rounds
 * it down to whole blocks. */
bool flag_parse_bytes(const char *name, const char *arg, uint64_t min_bytes, bool zero_ok,
                      StgWord *out, char *err, size_t err_len);
bool flag_parse_size(const char *name, const char *arg, uint64_t min_bytes, bool zero_ok,
                     StgWord *out, char *err, size_t err_len);

/* A whole number of what ("generations") from min to max; example shows
 * one ("-G3"). */
bool flag_parse_count(const char *name, const char *arg, uint64_t min, uint64_t max,
                      const char *what, const char *example, unsigned *out, char *err,
                      size_t err_len);

/* Seconds, a number at least 0. */
bool flag_parse_seconds(const char *name, const char *arg, double *out, char *err,
                        size_t err_len);

/* strata's own options --<name>=<auto|always|never>. */
typedef enum { WHEN_AUTO, WHEN_ALWAYS, WHEN_NEVER } FlagWhen;
bool flag_parse_when(const char *name, const char *v, FlagWhen *when, char *err,
                     size_t err_len);

/* A TCP port, 0 to 65535, for what (an option or variable name). */
bool flag_parse_port(const char *what, const char *s, uint16_t *port, char *err,
                     size_t err_len);

#endif /* STRATA_FLAG_VALUES_H */
