/*
 * support/SocketPath.h -- whether a Unix socket may be made at a path
 * the user gave: the one check that the eventlog socket and the debug
 * stub share, so that neither replaces a file it did not make.
 */
#ifndef STRATA_SOCKET_PATH_H
#define STRATA_SOCKET_PATH_H

#include <stdbool.h>

/* True when nothing is at path, or a stale socket (one that nobody
 * listens on) that os_socket_listen_unix may replace.  Anything else --
 * a file, a directory, a symbolic link (to anything), a socket another
 * program listens on -- is refused with a message through rts_error,
 * prefixed "who: " (a component name such as "debug"). */
bool socket_path_usable(const char *who, const char *path);

#endif /* STRATA_SOCKET_PATH_H */
