/*
 * support/SocketPath.c -- the check before listening on a Unix socket at
 * a path the user gave (SocketPath.h).  Relies on os/File.h's lstat and
 * os/Socket.h's probe; the listening itself is os_socket_listen_unix's.
 */
#include "SocketPath.h"

#include <errno.h>
#include <string.h>

#include "Messages.h"
#include "os/File.h"
#include "os/Socket.h"

bool socket_path_usable(const char *who, const char *path)
{
    OsPathInfo st;
    if (os_path_lstat(path, &st) != 0)
        return true;   /* nothing there */
    if (st.kind != OS_PATH_SOCKET) {
        rts_error("%s: %s exists and is not a socket; refusing to replace it", who, path);
        return false;
    }
    int err = os_socket_probe_unix(path);
    if (err == 0) {
        rts_error("%s: %s is in use: another program listens on it", who, path);
        return false;
    }
    if (err != ECONNREFUSED) {
        rts_error("%s: cannot tell whether the socket %s is stale (errno=%d: %s)", who, path,
                  err, strerror(err));
        return false;
    }
    return true;   /* stale: os_socket_listen_unix replaces it */
}
