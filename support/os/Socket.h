/*
 * support/os/Socket.h -- the sockets of the debug stub
 * (rts/debug/DebugServer.c) and of the eventlog socket writer
 * (eventlog/EventLogSocket.c): a Unix listening socket that appears at its
 * path already private, a loopback or named-host TCP listener, accepting a
 * client and asking who it is, sending and receiving bytes (blocking, or
 * as much as fits), and waiting on several descriptors at once.  Linux only
 * (AF_UNIX, SO_PEERCRED, accept4, poll), like the rest of support/os/.
 * Every call returns 0 or an errno value; none prints.
 *
 * Preconditions: fd arguments are open sockets made here (or, for
 * os_poll, any open descriptor); no two threads use one socket at once.
 */
#ifndef STRATA_OS_SOCKET_H
#define STRATA_OS_SOCKET_H

#include <stddef.h>
#include <stdint.h>

/* The longest socket path, without its NUL (sun_path less one). */
#define OS_SOCKET_PATH_MAX 107

/* The step of os_socket_listen_unix that failed. */
typedef enum {
    OS_LISTEN_SOCKET,   /* socket() */
    OS_LISTEN_BIND,     /* bind() of bind_path */
    OS_LISTEN_SETUP,    /* chmod, listen, link into place, lstat */
} OsListenStep;

/* A listening socket (os_socket_listen_unix's result). */
typedef struct {
    int fd;                                   /* on success: the socket */
    uint64_t dev, ino;                        /* on success: the file at path */
    OsListenStep failed_step;                 /* on failure: what failed */
    char bind_path[OS_SOCKET_PATH_MAX + 1];   /* the name bind() was given */
} OsListener;

/* Creates a Unix stream socket listening at path (at most
 * OS_SOCKET_PATH_MAX bytes) with mode 0600 and the given backlog, closed
 * on exec.  See Note [The socket appears with mode 0600] in Socket.c: the
 * socket is bound under a temporary name beside path and linked into
 * place: a stale socket at path is replaced, anything else there fails
 * the call (EEXIST or EADDRINUSE), so callers check the path first with
 * socket_path_usable (support/SocketPath.h) to say why.  Returns 0 and fills l->fd,
 * l->dev and l->ino (to tell later whether path is still this socket), or
 * the errno with l->failed_step and l->bind_path saying where; nothing is
 * left behind on failure. */
int os_socket_listen_unix(const char *path, int backlog, OsListener *l);

/* Accepts one connection on listen_fd (closed on exec). */
int os_socket_accept(int listen_fd, int *fd_out);

/* The user id of the process at the other end of the connection fd. */
int os_socket_peer_uid(int fd, uint32_t *uid_out);

/* Receives up to n bytes, retrying EINTR; *got_out is 0 when the peer
 * closed the connection. */
int os_socket_recv(int fd, void *buf, size_t n, size_t *got_out);

/* Sends all n bytes, retrying EINTR and short sends, without SIGPIPE
 * (EPIPE instead when the peer is gone). */
int os_socket_send_all(int fd, const void *buf, size_t n);

int os_socket_close(int fd);

/* os_poll's per-descriptor result bits. */
#define OS_POLL_READABLE 1u   /* data (or a connection) to read */
#define OS_POLL_OTHER 2u      /* hang-up, error or invalid descriptor */

typedef struct {
    int fd;          /* in: the descriptor to watch for input */
    unsigned ready;  /* out: OS_POLL_* bits, 0 if nothing happened to it */
} OsPollFd;

/* Waits without a time limit until one of the n descriptors (n <= 8;
 * EINVAL otherwise) has input or an error, retrying EINTR, and sets each
 * one's ready bits. */
int os_poll(OsPollFd *fds, size_t n);

/* Whether something listens at the Unix socket path: 0 if a connection
 * succeeded (the socket is in use), ECONNREFUSED if it is a socket nobody
 * listens on (stale: a dead run's), ENOENT if nothing is there, another
 * errno otherwise.  The probe connection is closed at once. */
int os_socket_probe_unix(const char *path);

/* A TCP socket listening on host:port (IPv4 or IPv6, whatever host
 * resolves to first; host "" = 127.0.0.1) with SO_REUSEADDR, closed on
 * exec.  Returns 0 and *fd_out, or an errno value (EADDRNOTAVAIL when the
 * host does not resolve).  *port_out receives the bound port (useful with
 * port 0). */
int os_socket_listen_tcp(const char *host, uint16_t port, int backlog, int *fd_out,
                         uint16_t *port_out);

/* A connected pair of Unix stream sockets (closed on exec): a thread's
 * wake-up line, written at one end and polled at the other. */
int os_socket_pair(int fds[2]);

/* Makes fd non-blocking: os_socket_send_some then never waits. */
int os_socket_set_nonblocking(int fd);

/* Sends what fits of n bytes without waiting and without SIGPIPE;
 * *sent_out receives how many (0 with EAGAIN when nothing fits now).
 * fd must be non-blocking. */
int os_socket_send_some(int fd, const void *buf, size_t n, size_t *sent_out);

/* os_poll_io's descriptors: input is always watched, output on request. */
typedef struct {
    int fd;            /* in: the descriptor; negative = ignored */
    int want_write;    /* in: also wake when output would not block */
    unsigned ready;    /* out: OS_POLL_* bits */
} OsPollIo;
#define OS_POLL_WRITABLE 4u   /* output would not block */
#define OS_POLL_IO_MAX 64     /* the most descriptors os_poll_io takes */

/* Waits until one of the n (<= OS_POLL_IO_MAX; EINVAL otherwise)
 * descriptors is ready, or timeout_ms passes (-1: no limit), retrying
 * EINTR; sets every ready field (all 0 on a timeout). */
int os_poll_io(OsPollIo *fds, size_t n, int timeout_ms);

#endif /* STRATA_OS_SOCKET_H */
