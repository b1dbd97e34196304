/*
 * support/Messages.c -- error, panic and debug-trace output (see Messages.h).
 * Relies only on stdio; never exits except through rts_panic's abort.
 */
#include "Messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rts_prog_name = "strata";
unsigned rts_debug_flags = 0;

void rts_set_prog_name(const char *argv0)
{
    if (argv0 == NULL || argv0[0] == '\0')
        return;
    const char *slash = strrchr(argv0, '/');
    rts_prog_name = slash ? slash + 1 : argv0;
}

/* "<prog>: <kind><message>" on stderr, the caller ending the line: every
 * kind of message starts the same way. */
static void put_message(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s", rts_prog_name, kind);
    vfprintf(stderr, fmt, ap);
}

void rts_verror(const char *fmt, va_list ap)
{
    put_message("", fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void rts_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rts_verror(fmt, ap);
    va_end(ap);
}

void rts_panic_at(const char *func, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_message("internal error: ", fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n    (in %s, %s:%d)\n", func, file, line);
    fflush(stderr);
    abort();
}

void rts_debug_belch(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_message("[debug] ", fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
