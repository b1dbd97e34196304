/*
 * strata/Debug.h -- the heap debugger's stub: its API for programs, and
 * (through strata/DebugProtocol.h) the wire protocol's numbers.
 * docs/debug-protocol.md describes the framing and every field;
 * docs/design/debugger.md the design.
 */
#ifndef STRATA_DEBUG_H
#define STRATA_DEBUG_H

#include "strata/Closures.h"
#include "strata/DebugProtocol.h"

/* ----------------------------------------------------------------------
 * The API for programs
 * ---------------------------------------------------------------------- */

/* Starts the debug stub: listens on a Unix socket at the path given by
 * +RTS --debug-socket=PATH, else $STRATA_DEBUG_SOCKET, else
 * $XDG_RUNTIME_DIR/strata/debug/<pid>-<program> (else under
 * /tmp/strata-<uid>/debug/).  Returns 0 (also if it already runs) or -1
 * after a message naming what failed.  After hs_init. */
STRATA_API int rts_debug_start(void);

/* Marks c as an object of interest: the debugger lists it among the roots
 * (kind "saved").  Keeps c alive, like a stable pointer, for the rest of the
 * run. */
STRATA_API void rts_debug_save(StgClosure *c);

/* The path the stub listens on, or NULL when it is not running. */
STRATA_API const char *rts_debug_socket_path(void);

#endif /* STRATA_DEBUG_H */
