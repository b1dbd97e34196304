/*
 * support/DebugRegistry.h -- the debug sockets' directory, and the
 * registry in it that makes a socket at any path findable by
 * `strata-debug list` (Note [The socket registry] in DebugRegistry.c).
 * Shared by strata's debug stub (rts/debug/DebugServer.c) and the GHC
 * stub (ghc/StubServer.c).  The directory itself is named by
 * wire/DebugSocketDir.h's rule, which the caller applies: dir is
 * debug_socket_dir_first's path and parent its return (0 when there was
 * none).  Messages go through rts_error, prefixed "who: ".
 */
#ifndef STRATA_DEBUG_REGISTRY_H
#define STRATA_DEBUG_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

/* The path <dir>/<pid>-<program> in this user's debug socket directory
 * (made mode 0700 if missing, with its parent dir[0..parent)) into
 * out[cap]: a socket made without a path of its own, or the registry's
 * link to a socket elsewhere.  False after a message saying why. */
bool debug_registry_entry_path(const char *who, const char *dir, size_t parent, char *out,
                               size_t cap);

/* Registers the socket listening at socket_path (a path the program
 * chose): a symbolic link to it at the entry path.  Best effort: a
 * failure is a warning (the socket works without it). */
void debug_registry_add(const char *who, const char *dir, size_t parent,
                        const char *socket_path);

/* Removes what debug_registry_add made, if it is still there; safe to
 * call at any time, and from an exit handler. */
void debug_registry_remove(void);

#endif /* STRATA_DEBUG_REGISTRY_H */
