/*
 * utils/strata-live/Source.h -- where strata-live's eventlog comes from: a
 * Unix socket or a TCP address (connected again, with back-off, when the
 * program restarts), a file still being written (followed, and reopened
 * when it is replaced), or standard input.  The whole API of the module;
 * see Note [Following a source] in Source.c.
 */
#ifndef STRATA_LIVE_SOURCE_H
#define STRATA_LIVE_SOURCE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "EventLogReader.h"

typedef enum SourceKind {
    SOURCE_SOCKET,   /* --socket PATH */
    SOURCE_TCP,      /* --tcp HOST:PORT */
    SOURCE_FILE,     /* --file LOG */
    SOURCE_STDIN,    /* - */
} SourceKind;

typedef struct Source {
    SourceKind kind;
    const char *where;          /* the path, "HOST:PORT" or "-", as given */
    char host[256], port[16];   /* SOURCE_TCP: where, split */
    int fd;                     /* the open stream, or -1 */
    dev_t dev;                  /* SOURCE_FILE: the file now open... */
    ino_t ino;
    uint64_t offset;            /* ...and how far it has been read */
    int replaced;               /* SOURCE_FILE: the path now names another file */
    int saw_eof;                /* the stream ended (as opposed to failing) */
    int conn_lost;              /* a socket's read failed (reset): the program went */
    int stdin_taken;            /* SOURCE_STDIN: its one stream was opened */
    unsigned backoff_ms;        /* the next wait before connecting again */
    volatile sig_atomic_t *stop;   /* set by a signal: give up waiting */
} Source;

/* Checks the source's argument; on a bad one writes "what is wrong" into
 * why (why_len bytes) and returns 0.  stop is polled while waiting. */
int source_init(Source *src, SourceKind kind, const char *where,
                volatile sig_atomic_t *stop, char *why, size_t why_len);

/* Opens the next stream: connects (waiting with back-off until the
 * program listens), opens the file, or takes stdin.  Returns 1, 0 when
 * there will be no further stream (stdin was read, or *stop), or -1 with
 * why filled for an error that waiting will not mend. */
int source_open(Source *src, char *why, size_t why_len);

/* SOURCE_SOCKET or SOURCE_TCP: one attempt to connect, no waiting (for
 * --send).  Returns the connected descriptor, or -1 with why filled. */
int source_connect(Source *src, char *why, size_t why_len);

/* The stream's read function for evr_open_stream (ctx = the Source). */
ptrdiff_t source_read(void *ctx, void *buf, size_t max_bytes);

/* Closes the current stream. */
void source_close(Source *src);

/* After a file's stream ended: waits until the path names a new file (or
 * *stop).  Returns 1 when it does. */
int source_wait_replaced(Source *src);

/* Splits "HOST:PORT", "[IPV6]:PORT" or ":PORT" (HOST empty: the loopback
 * address 127.0.0.1) into host and port, checking that PORT is a number
 * from min_port to 65535.  Returns 0 with why filled when it is not. */
int source_split_host_port(const char *s, unsigned min_port, char *host, size_t host_len,
                           char *port, size_t port_len, char *why, size_t why_len);

#endif /* STRATA_LIVE_SOURCE_H */
