/*
 * support/SocketConn.c -- a debug client's connection (SocketConn.h).
 */
#include "SocketConn.h"

#include "SocketPeer.h"
#include "os/Socket.h"

int socket_conn_accept(int listen_fd, int wake_fd, SocketConn *c)
{
    int err = os_socket_accept(listen_fd, &c->fd);
    if (err != 0)
        return err;
    c->wake_fd = wake_fd;
    if (socket_peer_allowed(c->fd, c->refused, sizeof c->refused))
        c->refused[0] = '\0';
    return 0;
}

/* Until fd has input (or is closed): false if wake_fd came first or the
 * poll failed. */
static bool wait_readable(int fd, int wake_fd)
{
    OsPollFd p[2] = {{fd, 0}, {wake_fd, 0}};
    for (;;) {
        if (os_poll(p, 2) != 0 || (p[1].ready & OS_POLL_READABLE))
            return false;
        if (p[0].ready)
            return true;
    }
}

bool socket_conn_read(void *conn, void *buf, size_t n)
{
    const SocketConn *c = conn;
    for (size_t done = 0; done < n;) {
        if (c->wake_fd >= 0 && !wait_readable(c->fd, c->wake_fd))
            return false;
        size_t got;
        if (os_socket_recv(c->fd, (char *)buf + done, n - done, &got) != 0 || got == 0)
            return false;
        done += got;
    }
    return true;
}

bool socket_conn_write(void *conn, const void *buf, size_t n)
{
    const SocketConn *c = conn;
    return os_socket_send_all(c->fd, buf, n) == 0;
}

void socket_conn_close(void *conn)
{
    SocketConn *c = conn;
    os_socket_close(c->fd);
    c->fd = -1;
}
