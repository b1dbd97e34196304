/*
 * rts/debug/DebugServer.h -- the debug stub's socket server and the pause
 * protocol between its thread and the mutator.  See
 * docs/design/debugger.md and Note [Pausing at a safe point] in
 * DebugServer.c.
 */
#ifndef STRATA_DEBUGSERVER_H
#define STRATA_DEBUGSERVER_H

#include <stdbool.h>

/* Starts the stub if STRATA_DEBUG_SOCKET is set or +RTS --debug-socket was
 * given (hs_init).  Returns false after a message if it cannot. */
bool debug_server_start_from_flags(void);

/* On the mutator, from the attention handler: blocks here while a client
 * has the program paused.  Cheap (one atomic load) when nobody asked. */
void debug_server_serve_attention(void);

/* Stops the server thread, disconnects the client and removes the socket
 * (hs_exit, and exits through rts_shutdown_and_exit).  Idempotent. */
void debug_server_stop(void);

#endif /* STRATA_DEBUGSERVER_H */
