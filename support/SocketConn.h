/*
 * support/SocketConn.h -- a debug client's connection as both debug stubs
 * serve it (strata's, rts/debug/DebugServer.c, and the GHC stub,
 * ghc/StubServer.c): accepting it and checking who it is, and reading and
 * writing whole frames, closing it.  socket_conn_read, _write and _close
 * are the callbacks of wire/DebugServe.h's DebugConn, with a SocketConn
 * as its env (support/ does not see wire/: each stub pairs them).
 */
#ifndef STRATA_SOCKET_CONN_H
#define STRATA_SOCKET_CONN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int fd;              /* the connected socket */
    int wake_fd;         /* readable when the stub stops (a read then gives up), or -1 */
    char refused[128];   /* why its peer may not connect, or "" */
} SocketConn;

/* Accepts one connection on listen_fd into *c (with wake_fd) and checks
 * whether its peer may connect (socket_peer_allowed, SocketPeer.h: if
 * not, c->refused says why, for the stub to tell it).  Returns 0, or
 * accept's errno. */
int socket_conn_accept(int listen_fd, int wake_fd, SocketConn *c);

/* Reads exactly n bytes from the SocketConn conn, waiting for each part
 * (and for its wake_fd); false when the peer is gone or wake_fd became
 * readable. */
bool socket_conn_read(void *conn, void *buf, size_t n);

/* Writes all n bytes to the SocketConn conn; false when the peer is gone. */
bool socket_conn_write(void *conn, const void *buf, size_t n);

/* Closes the SocketConn conn. */
void socket_conn_close(void *conn);

#endif /* STRATA_SOCKET_CONN_H */
