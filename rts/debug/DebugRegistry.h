/*
 * rts/debug/DebugRegistry.h -- the debug sockets' directory, and the
 * registry in it that makes a socket at any path findable by
 * `strata-debug list` (Note [The socket registry] in DebugRegistry.c).
 */
#ifndef STRATA_DEBUG_REGISTRY_H
#define STRATA_DEBUG_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

/* The path <dir>/<pid>-<program> in this user's debug socket directory
 * ($XDG_RUNTIME_DIR/strata/debug, else /tmp/strata-<uid>/debug), made
 * mode 0700 if missing, into out[cap]: a bare --debug-socket's socket, or
 * the registry's link to a socket elsewhere.  False after a message
 * (through rts_error) saying why. */
bool debug_registry_entry_path(char *out, size_t cap);

/* Registers the socket listening at socket_path (a path the program
 * chose): a symbolic link to it at the entry path.  Best effort: a
 * failure is a warning (the socket works without it). */
void debug_registry_add(const char *socket_path);

/* Removes what debug_registry_add made, if it is still there; safe to
 * call at any time, and from an exit handler. */
void debug_registry_remove(void);

#endif /* STRATA_DEBUG_REGISTRY_H */
