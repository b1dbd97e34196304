/*
 * testsuite/programs/serve_log.c -- stands in for a program streaming its
 * eventlog over a socket, for strata-live's tests: listens on a Unix socket
 * or a TCP port and sends each client that connects one of the given log
 * files, whole, then closes the connection.  The clients are served in
 * turn, one file each, so a test sees strata-live take one stream, lose
 * it and come back for the next (as it does when a program restarts).
 *
 *     serve_log (--unix PATH | --tcp PORT) FILE...
 *
 * A FILE given as @reset (Unix sockets only) sends nothing: serve_log waits
 * for a client to be waiting in the listen queue, then closes the listening
 * socket without accepting it -- the client's first read fails with
 * ECONNRESET, as it does when a program exits just as a client connects --
 * and listens again on the same path for the next FILE.
 *
 * Prints "listening PORT" (the TCP port it got: give 0 for any free one;
 * 0 for a Unix socket) on stdout once it accepts connections.  Exits 0 after
 * the last file was sent, 1 on an error, 2 on bad usage.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int listen_unix(const char *path)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path)
        return -1;
    strcpy(addr.sun_path, path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 4) != 0)
        return -1;
    return fd;
}

static int listen_tcp(int port)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 4) != 0)
        return -1;
    return fd;
}

static int send_file(int client, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    char buf[8192];
    size_t n;
    int ok = 1;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        size_t off = 0;
        while (off < n) {
            ssize_t w = write(client, buf + off, n - off);
            if (w <= 0) {
                ok = 0;
                break;
            }
            off += (size_t)w;
        }
    }
    fclose(f);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "--unix") != 0 && strcmp(argv[1], "--tcp") != 0)) {
        fprintf(stderr, "usage: serve_log (--unix PATH | --tcp PORT) FILE...\n");
        return 2;
    }
    int fd = strcmp(argv[1], "--unix") == 0 ? listen_unix(argv[2]) : listen_tcp(atoi(argv[2]));
    if (fd < 0) {
        fprintf(stderr, "serve_log: cannot listen on %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    struct sockaddr_in bound;
    socklen_t len = sizeof bound;
    int port = 0;
    if (strcmp(argv[1], "--tcp") == 0 && getsockname(fd, (struct sockaddr *)&bound, &len) == 0)
        port = ntohs(bound.sin_port);
    printf("listening %d\n", port);
    fflush(stdout);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "@reset") == 0 && strcmp(argv[1], "--unix") == 0) {
            struct pollfd p = { .fd = fd, .events = POLLIN };
            while (poll(&p, 1, -1) < 0 && errno == EINTR)
                ;
            close(fd);
            unlink(argv[2]);
            if ((fd = listen_unix(argv[2])) < 0) {
                fprintf(stderr, "serve_log: cannot listen again on %s: %s\n", argv[2],
                        strerror(errno));
                return 1;
            }
            continue;
        }
        int client = accept(fd, NULL, NULL);
        if (client < 0) {
            fprintf(stderr, "serve_log: accept: %s\n", strerror(errno));
            return 1;
        }
        if (!send_file(client, argv[i])) {
            fprintf(stderr, "serve_log: cannot send %s\n", argv[i]);
            return 1;
        }
        close(client);
    }
    close(fd);
    return 0;
}
