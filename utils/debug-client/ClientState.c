/*
 * utils/debug-client/ClientState.c -- a client's error message: every
 * module of the library says what failed through dbg_fail, and the tools
 * read it with dbg_error (Client.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include "ClientState.h"
#include "DebugTypes.h"

int dbg_fail(DbgClient *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return -1;
}
