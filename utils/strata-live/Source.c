/*
 * utils/strata-live/Source.c -- strata-live's input: Unix and TCP sockets,
 * followed files and standard input, each read as a stream of bytes for
 * evr_open_stream (reader/EventLogReader.h).  Uses POSIX sockets, stat
 * and nanosleep directly (a tool, not the runtime: support/os/ is the
 * runtime's OS layer).  See Note [Following a source].
 */
#include "Source.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Note [Following a source]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata-live outlives the program it watches, so each kind of source
 * says what "the next stream" is:
 *
 *   - a socket (Unix or TCP): a new connection.  Connecting is retried
 *     while nothing listens (the program has not started, or is
 *     restarting), waiting 100 ms and doubling to at most 5 s; a stream
 *     that was read resets the wait.
 *   - a file: the file is read to its end and then polled (every
 *     FOLLOW_POLL_MS) for more, as `tail -f` does, so the reader sees a
 *     log that is still being written as one stream.  When the path comes
 *     to name another file (a new inode: the program started again and
 *     recreated it) or the file shrinks (truncated), the stream ends and
 *     the new file is the next stream.
 *   - standard input: one stream; at its end strata-live keeps serving.
 *
 * Waiting is in short sleeps that check *stop, which the signal handler
 * sets, so SIGINT and SIGTERM end strata-live promptly in every state.
 */
#define FOLLOW_POLL_MS 100u
#define STOP_CHECK_MS 200
#define BACKOFF_FIRST_MS 100u
#define BACKOFF_MAX_MS 5000u

/* ----------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------- */

int source_split_host_port(const char *s, unsigned min_port, char *host, size_t host_len,
                           char *port, size_t port_len, char *why, size_t why_len)
{
    const char *colon = strrchr(s, ':');
    if (colon == NULL) {
        snprintf(why, why_len, "expected HOST:PORT, got '%s' (no ':')", s);
        return 0;
    }
    const char *h = s;
    size_t hlen = (size_t)(colon - s);
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    }
    if (hlen == 0) {
        h = "127.0.0.1";
        hlen = strlen(h);
    }
    if (hlen >= host_len) {
        snprintf(why, why_len, "host too long in '%s' (bytes=%zu, max=%zu)", s, hlen,
                 host_len - 1);
        return 0;
    }
    const char *p = colon + 1;
    char *end;
    errno = 0;
    unsigned long v = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
    if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 || v > 65535 || v < min_port) {
        snprintf(why, why_len, "port must be a number from %u to 65535, got '%s'", min_port, p);
        return 0;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    snprintf(port, port_len, "%lu", v);
    return 1;
}

int source_init(Source *src, SourceKind kind, const char *where,
                volatile sig_atomic_t *stop, char *why, size_t why_len)
{
    memset(src, 0, sizeof *src);
    src->kind = kind;
    src->where = where;
    src->fd = -1;
    src->stop = stop;
    src->backoff_ms = BACKOFF_FIRST_MS;
    struct stat st;
    switch (kind) {
    case SOURCE_SOCKET:
        if (strlen(where) >= sizeof ((struct sockaddr_un *)0)->sun_path) {
            snprintf(why, why_len, "--socket %s: path too long for a Unix socket "
                                   "(bytes=%zu, max=%zu)", where, strlen(where),
                     sizeof ((struct sockaddr_un *)0)->sun_path - 1);
            return 0;
        }
        if (where[0] == '\0') {
            snprintf(why, why_len, "--socket: empty path");
            return 0;
        }
        if (stat(where, &st) == 0 && !S_ISSOCK(st.st_mode)) {
            snprintf(why, why_len, "--socket %s: not a socket (a %s)", where,
                     S_ISDIR(st.st_mode) ? "directory" : "file or device");
            return 0;
        }
        return 1;
    case SOURCE_TCP:
        if (!source_split_host_port(where, 1, src->host, sizeof src->host, src->port,
                                    sizeof src->port, why, why_len)) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s", why);
            snprintf(why, why_len, "--tcp: %s", inner);
            return 0;
        }
        return 1;
    case SOURCE_FILE:
        if (stat(where, &st) != 0) {
            snprintf(why, why_len, "--file %s: %s", where, strerror(errno));
            return 0;
        }
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, why_len, "--file %s: is a directory", where);
            return 0;
        }
        return 1;
    case SOURCE_STDIN:
        return 1;
    }
    return 0;
}

/* ----------------------------------------------------------------------
 * Waiting
 * ------------------------------------------------------------------- */

/* Sleeps ms milliseconds in short steps; 0 if *stop was set meanwhile. */
static int sleep_ms(Source *src, unsigned ms)
{
    while (ms > 0 && !*src->stop) {
        unsigned step = ms < 50 ? ms : 50;
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step * 1000000L };
        nanosleep(&ts, NULL);
        ms -= step;
    }
    return !*src->stop;
}

static int backoff(Source *src)
{
    unsigned ms = src->backoff_ms;
    src->backoff_ms = ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : ms * 2;
    return sleep_ms(src, ms);
}

/* ----------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------- */

static int connect_unix(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Connects to host:port; -1 with *gai_error set (non-zero) when the name
 * does not resolve, or errno for the connection. */
static int connect_tcp(const char *host, const char *port, int *gai_error)
{
    struct addrinfo hints, *res, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    *gai_error = getaddrinfo(host, port, &hints, &res);
    if (*gai_error != 0)
        return -1;
    int fd = -1, e = ECONNREFUSED;
    for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    errno = e;
    return fd;
}

int source_open(Source *src, char *why, size_t why_len)
{
    src->replaced = 0;
    src->saw_eof = 0;
    src->conn_lost = 0;
    src->offset = 0;
    int said_waiting = 0;
    switch (src->kind) {
    case SOURCE_STDIN:
        if (src->stdin_taken)
            return 0;
        src->stdin_taken = 1;
        src->fd = STDIN_FILENO;
        return 1;
    case SOURCE_FILE: {
        /* Opening a FIFO waits for a writer; the signal handler's EINTR
         * ends the wait, and a stop requested meanwhile is no error. */
        int fd;
        while ((fd = open(src->where, O_RDONLY | O_CLOEXEC)) < 0 && errno == EINTR)
            if (*src->stop)
                return 0;
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) {
            snprintf(why, why_len, "--file %s: %s", src->where, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        src->fd = fd;
        src->dev = st.st_dev;
        src->ino = st.st_ino;
        return 1;
    }
    case SOURCE_SOCKET:
    case SOURCE_TCP:
        for (;;) {
            if (*src->stop)
                return 0;
            int gai = 0;
            int fd = src->kind == SOURCE_SOCKET ? connect_unix(src->where)
                                                : connect_tcp(src->host, src->port, &gai);
            if (fd >= 0) {
                src->fd = fd;
                return 1;
            }
            if (gai != 0) {
                snprintf(why, why_len, "--tcp %s: cannot resolve %s: %s", src->where,
                         src->host, gai_strerror(gai));
                return -1;
            }
            if (errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN &&
                errno != ETIMEDOUT && errno != EHOSTUNREACH && errno != ENETUNREACH) {
                snprintf(why, why_len, "%s %s: cannot connect: %s",
                         src->kind == SOURCE_SOCKET ? "--socket" : "--tcp", src->where,
                         strerror(errno));
                return -1;
            }
            if (!said_waiting) {
                fprintf(stderr, "strata-live: waiting for %s to accept (%s)\n", src->where,
                        strerror(errno));
                said_waiting = 1;
            }
            if (!backoff(src))
                return 0;
        }
    }
    return -1;
}

int source_connect(Source *src, char *why, size_t why_len)
{
    int gai = 0;
    int fd = src->kind == SOURCE_SOCKET ? connect_unix(src->where)
                                        : connect_tcp(src->host, src->port, &gai);
    if (fd >= 0)
        return fd;
    if (gai != 0)
        snprintf(why, why_len, "--tcp %s: cannot resolve %s: %s", src->where, src->host,
                 gai_strerror(gai));
    else
        snprintf(why, why_len, "%s %s: cannot connect: %s",
                 src->kind == SOURCE_SOCKET ? "--socket" : "--tcp", src->where,
                 strerror(errno));
    return -1;
}

void source_close(Source *src)
{
    if (src->fd >= 0 && src->fd != STDIN_FILENO)
        close(src->fd);
    src->fd = -1;
    if (src->kind == SOURCE_SOCKET || src->kind == SOURCE_TCP) {
        if (src->offset > 0)
            src->backoff_ms = BACKOFF_FIRST_MS;
    }
}

/* ----------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------- */

/* Note [A lost connection is not a bad stream]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata-live gives up on a stream that yields no event and did not end
 * cleanly: bytes that are not an eventlog will not become one by waiting.
 * A read error on a socket is another thing.  When a program exits while
 * strata-live's reconnect sits in its listen queue (it connects again as
 * soon as a stream ends, so this happens at every exit that races it), the
 * listening socket is closed with the connection never accepted, and the
 * first read fails with ECONNRESET at offset 0.  That connection is lost,
 * not bad: it is reported and counted as a stream error, and the next
 * program is awaited as after any other stream. */

/* 1 if src's path now names another file than the one open, or the open
 * one has shrunk below what was read. */
static int file_replaced(Source *src)
{
    struct stat st;
    if (stat(src->where, &st) != 0)
        return 0;   /* gone for now: keep the open one */
    return st.st_dev != src->dev || st.st_ino != src->ino ||
           (uint64_t)st.st_size < src->offset;
}

ptrdiff_t source_read(void *ctx, void *buf, size_t max_bytes)
{
    Source *src = ctx;
    for (;;) {
        if (*src->stop)
            return 0;
        /* A signal that lands between the check above and a blocking
         * read would leave the read waiting on a quiet stream: wait in
         * polls of STOP_CHECK_MS instead, each checking *stop. */
        if (src->kind != SOURCE_FILE) {
            struct pollfd pfd = { .fd = src->fd, .events = POLLIN };
            int ready = poll(&pfd, 1, STOP_CHECK_MS);
            if (ready == 0 || (ready < 0 && errno == EINTR))
                continue;
        }
        ssize_t n = read(src->fd, buf, max_bytes);
        if (n > 0) {
            src->offset += (uint64_t)n;
            return n;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            /* A connection reset or broken is the program going away (Note
             * [A lost connection is not a bad stream]), not a bad stream. */
            if (src->kind == SOURCE_SOCKET || src->kind == SOURCE_TCP)
                src->conn_lost = 1;
            return -1;
        }
        if (src->kind != SOURCE_FILE) {
            src->saw_eof = 1;
            return 0;
        }
        if (file_replaced(src)) {
            src->replaced = 1;
            src->saw_eof = 1;
            return 0;
        }
        if (!sleep_ms(src, FOLLOW_POLL_MS))
            return 0;
    }
}

int source_wait_replaced(Source *src)
{
    while (!*src->stop) {
        if (src->replaced || file_replaced(src))
            return 1;
        if (!sleep_ms(src, FOLLOW_POLL_MS * 2))
            return 0;
    }
    return 0;
}
