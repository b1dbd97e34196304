/*
 * eventlog/EventLogSocket.h -- the eventlog over a socket: an EventLogWriter
 * that streams every block to the clients connected to a Unix or TCP
 * socket (+RTS --eventlog-socket=PATH, --eventlog-socket-tcp=HOST:PORT),
 * each client getting a whole, valid log from the moment it connects, and
 * a background thread that accepts clients, sends their queues and reads
 * the control messages they write (wire/ControlWire.h).  The program never
 * waits for a client.  See docs/design/eventlog.md, "The socket writer".
 */
#ifndef STRATA_EVENTLOGSOCKET_H
#define STRATA_EVENTLOGSOCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "ControlWire.h"
#include "EventLogWriter.h"

/* The most bytes queued for one client (2 MiB buffers: four full blocks).
 * A block that would pass it is dropped for that client, whole; see Note
 * [A client that cannot keep up] in EventLogSocket.c. */
#define EVENTLOG_SOCKET_QUEUE_BYTES ((uint64_t)8 * 1024 * 1024)

/* Clients served at once; one more is accepted and closed at once. */
#define EVENTLOG_SOCKET_MAX_CLIENTS 16

/* At exit, how long a client that takes no bytes may hold up the end of
 * the run before it is cut off (its queue is then lost). */
#define EVENTLOG_SOCKET_DRAIN_MS 1000

typedef struct {
    const char *unix_path;   /* the socket's path; NULL: TCP */
    const char *tcp_host;    /* TCP: host to bind ("" = 127.0.0.1) */
    uint16_t tcp_port;       /* TCP: port (0: any; the port is printed) */
    bool wait_for_client;    /* --eventlog-socket-wait: open returns once one
                              * client has connected */
    bool tee_file;           /* -ol given too: also write eventlog_file_writer */
} EventLogSocketConfig;

/* Called on the socket thread for each control message a client sends
 * (never on the mutator: the sink must hand the command over). */
typedef void (*EventLogControlSink)(const ControlCommand *cmd);

/* Listens as config says and starts the socket thread; with
 * wait_for_client, returns only once a client has connected.  A Unix path
 * must be short enough for a socket address, and if something exists
 * there it must be a stale socket (nobody listening), which is replaced.
 * Returns false after saying why ("eventlog-socket: ...").  config is
 * copied.  Call before eventlog_start, with eventlog_socket_writer as the
 * writer. */
bool eventlog_socket_open(const EventLogSocketConfig *config, EventLogControlSink sink);

/* Sends what clients still have queued (each for at most
 * EVENTLOG_SOCKET_DRAIN_MS without progress), closes every connection,
 * stops the thread and removes the socket file.  The writer's stop calls
 * it; safe to call when not open. */
void eventlog_socket_close(void);

/* The writer: bytes from EventLog.c go to every connected client (and to
 * the file writer too with tee_file).  Its write fails only when the file
 * writer's does; a socket never fails a write. */
extern const EventLogWriter eventlog_socket_writer;

/* The TCP port listened on (0 when not listening on TCP). */
uint16_t eventlog_socket_tcp_port(void);

typedef struct {
    uint64_t clients;              /* connections accepted */
    uint64_t dropped_bytes;        /* block bytes dropped for slow clients */
    uint64_t dropped_blocks;       /* blocks dropped, counted per client */
    uint64_t control_messages;     /* whole control messages received */
    uint64_t control_skipped_bytes;/* bytes in no whole control message */
    uint64_t control_bad_messages; /* messages with a bad version or cut short */
} EventLogSocketStats;

/* What the socket writer has done this run (all 0 if never opened). */
void eventlog_socket_get_stats(EventLogSocketStats *out);

/* True if open (listening). */
bool eventlog_socket_is_open(void);

#endif /* STRATA_EVENTLOGSOCKET_H */
