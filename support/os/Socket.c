/*
 * support/os/Socket.c -- Unix-domain and TCP sockets and poll for the debug
 * stub and the eventlog socket writer (see Socket.h).  Relies on Linux's
 * AF_UNIX sockets, SO_PEERCRED, accept4 and getaddrinfo.
 */
#include "Socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

_Static_assert(OS_SOCKET_PATH_MAX + 1 == sizeof(((struct sockaddr_un *)0)->sun_path),
               "OS_SOCKET_PATH_MAX is sun_path less its NUL");

/* Note [The socket appears with mode 0600]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * bind() creates the socket file with the process's umask, and a chmod
 * after it leaves a moment in which the socket has a wider mode (a test saw
 * it).  So the socket is bound under a temporary name next to the final
 * one, made 0600 and listening, then linked into place and the temporary
 * name removed: link is atomic, so whoever sees the path sees the finished
 * socket, and unlike rename it fails (EEXIST) where anything is at the
 * path, so a file that appears there after the caller's check (a race, or
 * a caller that did not check) is never replaced; only a stale socket is
 * removed first.  If the temporary name does not fit in sun_path, bind
 * runs under umask 0177 instead (umask is process-wide, so this is the
 * fallback, not the rule), and bind itself refuses an existing path. */
/* Gives the socket bound at tmp_path the name path too: a stale socket
 * there is removed first; anything else makes link fail with EEXIST. */
static bool link_into_place(const char *tmp_path, const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(path);
    return link(tmp_path, path) == 0;
}

int os_socket_listen_unix(const char *path, int backlog, OsListener *l)
{
    l->fd = -1;
    l->bind_path[0] = '\0';
    if (strlen(path) > OS_SOCKET_PATH_MAX) {
        l->failed_step = OS_LISTEN_BIND;
        snprintf(l->bind_path, sizeof l->bind_path, "%s", path);
        return ENAMETOOLONG;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        l->failed_step = OS_LISTEN_SOCKET;
        return errno;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    char tmp_path[sizeof addr.sun_path];
    int n = snprintf(tmp_path, sizeof tmp_path, "%s.%ld.new", path, (long)getpid());
    bool via_link = n > 0 && (size_t)n < sizeof tmp_path;
    const char *bind_path = via_link ? tmp_path : path;
    strcpy(addr.sun_path, bind_path);
    strcpy(l->bind_path, bind_path);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && !via_link)
        unlink(path);   /* a stale socket of a dead run (our pid now) */
    if (via_link && lstat(tmp_path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(tmp_path);
    mode_t old_mask = 0;
    if (!via_link)
        old_mask = umask(0177);
    int bound_ok = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    int err = errno;
    if (!via_link)
        umask(old_mask);
    if (bound_ok != 0) {
        l->failed_step = OS_LISTEN_BIND;
        goto fail_bind;
    }
    struct stat bound;
    if (chmod(bind_path, 0600) != 0 || listen(fd, backlog) != 0 ||
        (via_link && !link_into_place(tmp_path, path)) || lstat(path, &bound) != 0) {
        err = errno;
        l->failed_step = OS_LISTEN_SETUP;
        goto fail_listen;
    }
    if (via_link)
        unlink(tmp_path);
    l->fd = fd;
    l->dev = (uint64_t)bound.st_dev;
    l->ino = (uint64_t)bound.st_ino;
    return 0;
fail_listen:
    unlink(bind_path);
fail_bind:
    close(fd);
    return err;
}

int os_socket_accept(int listen_fd, int *fd_out)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return errno;
    *fd_out = fd;
    return 0;
}

int os_socket_peer_uid(int fd, uint32_t *uid_out)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return errno;
    *uid_out = (uint32_t)cred.uid;
    return 0;
}

int os_socket_recv(int fd, void *buf, size_t n, size_t *got_out)
{
    for (;;) {
        ssize_t r = recv(fd, buf, n, 0);
        if (r >= 0) {
            *got_out = (size_t)r;
            return 0;
        }
        if (errno != EINTR)
            return errno;
    }
}

int os_socket_send_all(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = send(fd, (const char *)buf + done, n - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        if (w == 0)
            return EIO;   /* no progress */
        done += (size_t)w;
    }
    return 0;
}

int os_socket_close(int fd)
{
    return close(fd) == 0 ? 0 : errno;
}

/* poll(), again when a signal interrupts it; 0 or an errno. */
static int poll_again_on_eintr(struct pollfd *p, size_t n, int timeout_ms)
{
    while (poll(p, (nfds_t)n, timeout_ms) < 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

int os_poll(OsPollFd *fds, size_t n)
{
    struct pollfd p[8];
    if (n > sizeof p / sizeof p[0])
        return EINVAL;
    for (size_t i = 0; i < n; i++)
        p[i] = (struct pollfd){fds[i].fd, POLLIN, 0};
    int err = poll_again_on_eintr(p, n, -1);
    if (err != 0)
        return err;
    for (size_t i = 0; i < n; i++)
        fds[i].ready = ((p[i].revents & POLLIN) ? OS_POLL_READABLE : 0u) |
                       ((p[i].revents & ~POLLIN) ? OS_POLL_OTHER : 0u);
    return 0;
}

int os_socket_probe_unix(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return ENAMETOOLONG;
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int err = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 ? 0 : errno;
    close(fd);
    return err;
}

int os_socket_listen_tcp(const char *host, uint16_t port, int backlog, int *fd_out,
                         uint16_t *port_out)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)port);
    struct addrinfo *res = NULL;
    if (getaddrinfo(host[0] != '\0' ? host : "127.0.0.1", service, &hints, &res) != 0 ||
        res == NULL)
        return EADDRNOTAVAIL;
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    int err = 0;
    if (fd < 0) {
        err = errno;
        goto fail_socket;
    }
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, backlog) != 0) {
        err = errno;
        goto fail_listen;
    }
    struct sockaddr_storage bound;
    socklen_t len = sizeof bound;
    if (getsockname(fd, (struct sockaddr *)&bound, &len) != 0) {
        err = errno;
        goto fail_listen;
    }
    *port_out = bound.ss_family == AF_INET6
                    ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                    : ntohs(((struct sockaddr_in *)&bound)->sin_port);
    *fd_out = fd;
    freeaddrinfo(res);
    return 0;
fail_listen:
    close(fd);
fail_socket:
    freeaddrinfo(res);
    return err;
}

int os_socket_pair(int fds[2])
{
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : errno;
}

int os_socket_set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
        return errno;
    return 0;
}

int os_socket_send_some(int fd, const void *buf, size_t n, size_t *sent_out)
{
    *sent_out = 0;
    for (;;) {
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w >= 0) {
            *sent_out = (size_t)w;
            return 0;
        }
        if (errno == EINTR)
            continue;
        return errno == EWOULDBLOCK ? EAGAIN : errno;
    }
}

int os_poll_io(OsPollIo *fds, size_t n, int timeout_ms)
{
    struct pollfd p[OS_POLL_IO_MAX];
    if (n > OS_POLL_IO_MAX)
        return EINVAL;
    for (size_t i = 0; i < n; i++)
        p[i] = (struct pollfd){fds[i].fd, (short)(POLLIN | (fds[i].want_write ? POLLOUT : 0)), 0};
    int err = poll_again_on_eintr(p, n, timeout_ms);
    if (err != 0)
        return err;
    for (size_t i = 0; i < n; i++)
        fds[i].ready = ((p[i].revents & POLLIN) ? OS_POLL_READABLE : 0u) |
                       ((p[i].revents & POLLOUT) ? OS_POLL_WRITABLE : 0u) |
                       ((p[i].revents & (POLLERR | POLLHUP | POLLNVAL)) ? OS_POLL_OTHER : 0u);
    return 0;
}
