/*
 * support/SocketPeer.h -- who may connect to a debug socket: the
 * program's own user only, checked on each connection (SO_PEERCRED), by
 * strata's debug stub and the GHC stub alike.
 */
#ifndef STRATA_SOCKET_PEER_H
#define STRATA_SOCKET_PEER_H

#include <stdbool.h>
#include <stddef.h>

/* True when the peer of the connected socket fd is this process's user;
 * else why[why_len] says why not, for the refusal sent back. */
bool socket_peer_allowed(int fd, char *why, size_t why_len);

#endif /* STRATA_SOCKET_PEER_H */
