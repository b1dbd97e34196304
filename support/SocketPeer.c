/*
 * support/SocketPeer.c -- who may connect to a debug socket
 * (SocketPeer.h).
 */
#include "SocketPeer.h"

#include <stdint.h>
#include <stdio.h>

#include "os/Process.h"
#include "os/Socket.h"

bool socket_peer_allowed(int fd, char *why, size_t why_len)
{
    uint32_t uid;
    int err = os_socket_peer_uid(fd, &uid);
    if (err != 0) {
        snprintf(why, why_len, "cannot read the peer's credentials (errno=%d)", err);
        return false;
    }
    if (uid != os_process_uid()) {
        snprintf(why, why_len, "refused: uid %u may not debug a program of uid %u",
                 (unsigned)uid, (unsigned)os_process_uid());
        return false;
    }
    return true;
}
