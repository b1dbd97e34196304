/*
 * wire/DebugSocketDir.h -- where debug sockets are found: the directories
 * in which a program started with a bare --debug-socket makes its socket
 * <pid>-<program>, and registers one at a path of its own choosing (Note
 * [The socket registry] in support/DebugRegistry.c), and which
 * `strata-debug list` reads.  Pure: the caller passes the environment's
 * XDG_RUNTIME_DIR and its uid, so the runtime and the tools share the rule.
 */
#ifndef STRATA_DEBUG_SOCKET_DIR_H
#define STRATA_DEBUG_SOCKET_DIR_H

#include <stddef.h>

/* How many directories there are to look in. */
#define DEBUG_SOCKET_DIRS 2

/* Debug socket directory `which` into out[cap]: 0 is
 * $XDG_RUNTIME_DIR/strata/debug (only when xdg_runtime_dir is an absolute
 * path), 1 is /tmp/strata-<uid>/debug.  A program uses the first there
 * is; list reads both.  Returns the length of the directory's parent
 * (".../strata", "/tmp/strata-<uid>"), which is made first; 0 when there
 * is no such directory or it does not fit in cap. */
size_t debug_socket_dir(int which, const char *xdg_runtime_dir, unsigned uid, char *out,
                        size_t cap);

/* The directory a program uses: the first of them there is, as
 * debug_socket_dir returns it (0: none fits in cap). */
size_t debug_socket_dir_first(const char *xdg_runtime_dir, unsigned uid, char *out, size_t cap);

#endif /* STRATA_DEBUG_SOCKET_DIR_H */
