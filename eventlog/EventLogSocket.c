/*
 * eventlog/EventLogSocket.c -- the socket writer (EventLogSocket.h): an
 * EventLogWriter whose bytes go to every client connected to a Unix or TCP
 * socket, and the thread that accepts clients, sends their queues and reads
 * their control messages.  Relies on support/os/ (Socket, Thread, File,
 * Clock) for every OS call, on wire/ControlWire.c to decode control
 * messages, and on SocketPreamble.c for what a client that connects late
 * is sent first (Note [What a client is sent] in SocketPreamble.c).  See
 * docs/design/eventlog.md, "The socket writer".
 */
#include "EventLogSocket.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "EventBuffers.h"
#include "Messages.h"
#include "SocketPath.h"
#include "SocketPreamble.h"
#include "os/Clock.h"
#include "os/File.h"
#include "os/Socket.h"
#include "os/Thread.h"
#include "strata/EventLogFormat.h"

/* Note [A client that cannot keep up]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The program never waits for a client.  write() only appends a block to
 * each client's queue (one shared, reference-counted copy); the socket
 * thread sends.  A queue holds at most EVENTLOG_SOCKET_QUEUE_BYTES: a
 * block that would pass it is dropped for that client, whole, so what the
 * client does get still parses.  The preamble events the dropped blocks
 * held (IPE entries first seen in a dropped census, say) are not lost:
 * before the next block the client accepts, it is sent them again, and a
 * USER_MSG naming how many bytes and blocks were dropped (before the data
 * end marker, if no block fits before the end).  The header, the
 * connect-time preamble, the notices and the data end marker are never
 * dropped.
 * A client's memory is thus bounded by the queue bound plus one block. */

/* ----------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------- */

/* Bytes queued for one or more clients. */
typedef struct {
    size_t refs;        /* queues holding it; under lock */
    size_t n;           /* bytes */
    uint8_t bytes[];
} Chunk;

typedef struct QueueNode {
    Chunk *chunk;
    struct QueueNode *next;
} QueueNode;

typedef struct {
    int fd;
    QueueNode *head, *tail;      /* under lock */
    size_t head_sent;            /* bytes of head->chunk sent; socket thread */
    uint64_t queued_bytes;       /* bytes in the queue not yet sent; under lock */
    uint64_t dropping_bytes;     /* bytes dropped since the last accepted block */
    uint64_t dropping_blocks;
    size_t missed_from;          /* first preamble record it has not been sent */
    bool dropping;               /* dropping_* and missed_from are set */
    ControlParser parser;        /* socket thread; read under lock for stats */
    uint64_t last_progress_ns;   /* when it last took bytes (draining at exit) */
} Client;

static OsMutex lock = OS_MUTEX_INIT;
static OsCond client_came = OS_COND_INIT;

static EventLogSocketConfig config;
static EventLogControlSink control_sink;
static char socket_path[OS_SOCKET_PATH_MAX + 1];
static uint64_t socket_dev, socket_ino;   /* the socket file we made */
static uint16_t tcp_port;
static bool open_now;                     /* mutator-owned */
static int listen_fd = -1;
static int wake_fds[2] = {-1, -1};
static atomic_bool xwake_pending;
static OsThread server_thread;

/* Under lock. */
static Client *clients[EVENTLOG_SOCKET_MAX_CLIENTS];
static size_t n_clients;
static bool closing;                  /* stop() asked the thread to finish */
static EventLogSocketStats stats;     /* control_* add up closed clients */

/* ----------------------------------------------------------------------
 * Queues; under lock
 * ---------------------------------------------------------------------- */

static Chunk *chunk_new(size_t n)
{
    Chunk *c = malloc(sizeof *c + n);
    if (c != NULL) {
        c->refs = 0;
        c->n = n;
    }
    return c;
}

static void chunk_unref(Chunk *c)
{
    if (--c->refs == 0)
        free(c);
}

static bool queue_push(Client *cl, Chunk *c)
{
    QueueNode *node = malloc(sizeof *node);
    if (node == NULL)
        return false;
    node->chunk = c;
    node->next = NULL;
    if (cl->tail != NULL)
        cl->tail->next = node;
    else
        cl->head = node;
    cl->tail = node;
    c->refs++;
    cl->queued_bytes += c->n;
    return true;
}

static void queue_pop(Client *cl)
{
    QueueNode *node = cl->head;
    cl->head = node->next;
    if (cl->head == NULL)
        cl->tail = NULL;
    cl->queued_bytes -= node->chunk->n - cl->head_sent;
    cl->head_sent = 0;
    chunk_unref(node->chunk);
    free(node);
}

static void queue_free(Client *cl)
{
    while (cl->head != NULL)
        queue_pop(cl);
}

/* The chunk a client that stopped dropping gets first: the preamble
 * events it missed, then a USER_MSG saying what was dropped, stamped with
 * the time of the block that follows (start_ns).  The records of that
 * block itself (from records_end on) come with it. */
static Chunk *drop_notice(const Client *cl, uint64_t start_ns, size_t records_end)
{
    char text[160];
    int len = snprintf(text, sizeof text,
                       "eventlog-socket: dropped %llu bytes (%llu blocks) of events: "
                       "this client did not keep up",
                       (unsigned long long)cl->dropping_bytes,
                       (unsigned long long)cl->dropping_blocks);
    size_t text_n = len < 0 ? 0 : (size_t)len < sizeof text ? (size_t)len : sizeof text - 1;
    size_t missed = preamble_records_bytes(cl->missed_from, records_end);
    size_t msg_block = EVBUF_MARKER_BYTES + EVENT_HEADER_BYTES + 2 + text_n;
    Chunk *c = chunk_new(missed + msg_block);
    if (c == NULL)
        return NULL;
    uint8_t *p = preamble_put_records(c->bytes, cl->missed_from, records_end);
    p = evbuf_put_marker(p, start_ns, (uint32_t)msg_block, start_ns, 0);
    p = evbuf_put16(p, EVENT_USER_MSG);
    p = evbuf_put64(p, start_ns);
    p = evbuf_put16(p, (uint16_t)text_n);
    memcpy(p, text, text_n);
    return c;
}

/* ----------------------------------------------------------------------
 * The writer (the mutator's side)
 * ---------------------------------------------------------------------- */

static void wake_thread(void)
{
    if (wake_fds[1] >= 0 && !atomic_exchange(&xwake_pending, true)) {
        size_t sent;
        (void)os_socket_send_some(wake_fds[1], "w", 1, &sent);
    }
}

static bool socket_init(void)
{
    if (!open_now) {
        rts_error("eventlog-socket: the writer was chosen but no socket is open");
        return false;
    }
    return !config.tee_file || eventlog_file_writer.init();
}

/* Queues bytes for every client (a block may be dropped for a slow one).
 * records_before: the preamble records there were before this block. */
static void enqueue_locked(const uint8_t *bytes, size_t n, bool droppable,
                           size_t records_before)
{
    if (n_clients == 0)
        return;
    Chunk *c = chunk_new(n);
    if (c == NULL) {
        rts_error("eventlog-socket: out of C heap queueing a block (bytes=%zu); "
                  "clients miss it", n);
        return;
    }
    memcpy(c->bytes, bytes, n);
    c->refs = 1;   /* ours, until every queue has it */
    /* A notice goes before the block's own time, or now before the data
     * end marker (the same clock as the events'). */
    uint64_t start_ns = droppable ? evbuf_get64(bytes + 2) : clock_elapsed_ns();
    for (size_t i = 0; i < n_clients; i++) {
        Client *cl = clients[i];
        if (droppable && cl->queued_bytes + n > EVENTLOG_SOCKET_QUEUE_BYTES) {
            if (!cl->dropping) {
                cl->dropping = true;
                cl->missed_from = records_before;
            }
            cl->dropping_bytes += n;
            cl->dropping_blocks++;
            stats.dropped_bytes += n;
            stats.dropped_blocks++;
            continue;
        }
        if (cl->dropping) {   /* the first block it takes, or the end */
            Chunk *notice = drop_notice(cl, start_ns, records_before);
            if (notice != NULL && queue_push(cl, notice)) {
                cl->dropping = false;
                cl->dropping_bytes = cl->dropping_blocks = 0;
            } else if (notice != NULL) {
                free(notice);
            }
        }
        (void)queue_push(cl, c);
    }
    chunk_unref(c);
}

static bool socket_write(const void *bytes, size_t n)
{
    if (config.tee_file && !eventlog_file_writer.write(bytes, n))
        return false;
    const uint8_t *b = bytes;
    os_mutex_lock(&lock);
    size_t records_before = preamble_n_records();
    bool block = preamble_take(b, n);
    enqueue_locked(b, n, block, records_before);
    bool any_client = n_clients > 0;
    os_mutex_unlock(&lock);
    if (any_client)
        wake_thread();
    return true;
}

static void socket_flush(void)
{
    if (config.tee_file)
        eventlog_file_writer.flush();
    wake_thread();
}

static void socket_stop(void)
{
    if (config.tee_file)
        eventlog_file_writer.stop();
    eventlog_socket_close();
}

const EventLogWriter eventlog_socket_writer = {socket_init, socket_write, socket_flush,
                                               socket_stop};

/* ----------------------------------------------------------------------
 * The socket thread
 * ---------------------------------------------------------------------- */

static void client_close(size_t i)
{
    os_mutex_lock(&lock);
    Client *cl = clients[i];
    clients[i] = clients[--n_clients];
    clients[n_clients] = NULL;
    queue_free(cl);
    control_parser_finish(&cl->parser);
    stats.control_messages += cl->parser.messages;
    stats.control_skipped_bytes += cl->parser.skipped_bytes;
    stats.control_bad_messages += cl->parser.bad_messages;
    os_mutex_unlock(&lock);
    os_socket_close(cl->fd);
    free(cl);
}

static void accept_client(void)
{
    int fd;
    if (os_socket_accept(listen_fd, &fd) != 0)
        return;
    if (os_socket_set_nonblocking(fd) != 0) {
        os_socket_close(fd);
        return;
    }
    Client *cl = calloc(1, sizeof *cl);
    if (cl == NULL) {
        os_socket_close(fd);
        return;
    }
    cl->fd = fd;
    control_parser_init(&cl->parser);
    cl->last_progress_ns = clock_elapsed_ns();
    os_mutex_lock(&lock);
    bool ok = n_clients < EVENTLOG_SOCKET_MAX_CLIENTS;
    if (ok && preamble_header_bytes() > 0) {
        /* Late: the header and the preamble so far, as one chunk. */
        Chunk *c = chunk_new(preamble_header_bytes() +
                             preamble_records_bytes(0, preamble_n_records()));
        ok = c != NULL;
        if (ok) {
            preamble_put_records(preamble_put_header(c->bytes), 0, preamble_n_records());
            ok = queue_push(cl, c);
            if (!ok)
                free(c);
        }
    }
    if (ok) {
        clients[n_clients++] = cl;
        stats.clients++;
        os_cond_broadcast(&client_came);
    }
    os_mutex_unlock(&lock);
    if (!ok) {
        os_socket_close(fd);
        free(cl);
    }
}

/* Reads what the client wrote and hands whole control messages to the
 * sink (outside the lock): 1 when it read something, 0 when there was
 * nothing to read yet, -1 when the client has gone. */
static int read_control(Client *cl)
{
    uint8_t buf[4096];
    size_t got;
    int err = os_socket_recv(cl->fd, buf, sizeof buf, &got);
    if (err == EAGAIN)
        return 0;
    if (err != 0 || got == 0)
        return -1;
    ControlCommand cmds[16];
    size_t off = 0;
    while (off < got) {
        size_t n_cmds = 0, used;
        os_mutex_lock(&lock);
        while (off < got && n_cmds < 16) {
            if (control_parser_next(&cl->parser, buf + off, got - off, &used, &cmds[n_cmds]))
                n_cmds++;
            off += used;
        }
        os_mutex_unlock(&lock);
        for (size_t i = 0; i < n_cmds; i++)
            if (control_sink != NULL)
                control_sink(&cmds[i]);
    }
    return 1;
}

/* Note [A client's last words]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A client that writes commands and closes at once (strata-live --send)
 * leaves the stream this thread was sending it unread, so the next send
 * fails, and the client used to be closed right there with whatever it
 * had written and this thread had not read yet: the tail of a long write,
 * or a command that arrived after this round's read.  So a client about to
 * be closed has what it wrote read first, up to its end (a gone client's
 * bytes are finite; a live one dropped for a stalled drain is read for at
 * most CLIENT_LAST_READS reads). */
#define CLIENT_LAST_READS 1024

static void read_last_words(Client *cl)
{
    for (int i = 0; i < CLIENT_LAST_READS && read_control(cl) > 0; i++)
        ;
}

/* Sends what the socket takes now.  False when the client has gone. */
static bool send_queued(Client *cl)
{
    for (;;) {
        os_mutex_lock(&lock);
        QueueNode *head = cl->head;
        os_mutex_unlock(&lock);
        if (head == NULL)
            return true;
        size_t sent;
        int err = os_socket_send_some(cl->fd, head->chunk->bytes + cl->head_sent,
                                      head->chunk->n - cl->head_sent, &sent);
        if (err == EAGAIN)
            return true;
        if (err != 0)
            return false;
        cl->last_progress_ns = clock_elapsed_ns();
        os_mutex_lock(&lock);
        cl->head_sent += sent;
        cl->queued_bytes -= sent;
        bool done = cl->head_sent == head->chunk->n;
        if (done)
            queue_pop(cl);
        os_mutex_unlock(&lock);
        if (!done)
            return true;   /* the socket is full */
    }
}

/* Empties the wake line, then lets writers write to it again.  In that
 * order: cleared first, a writer's byte sent between the clear and the
 * read would be read here too, leaving xwake_pending set over an empty
 * line, and every later writer would skip its byte while this thread
 * slept in poll (the stream stalled until the queues overflowed).  A
 * writer that finds the flag still set after the read has already
 * queued its bytes, under the lock, before the loop looks again. */
static void drain_wake_line(void)
{
    uint8_t buf[64];
    size_t got;
    while (os_socket_recv(wake_fds[0], buf, sizeof buf, &got) == 0 && got == sizeof buf)
        ;
    atomic_store(&xwake_pending, false);
}

/* Note [The socket thread at exit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * eventlog_stop writes the last blocks and the data end marker, then the
 * writer's stop sets closing.  The thread stops accepting, sends what is
 * queued, and leaves once every queue is empty; a client that takes no
 * bytes for EVENTLOG_SOCKET_DRAIN_MS is cut off (its log then lacks its
 * end, as a killed program's would).  So a reading client gets the whole
 * log, and a stalled one delays exit by at most that long. */
static void *server_main(void *arg)
{
    (void)arg;
    bool was_finishing = false;
    for (;;) {
        OsPollIo p[2 + EVENTLOG_SOCKET_MAX_CLIENTS];
        Client *polled[EVENTLOG_SOCKET_MAX_CLIENTS];
        size_t n = 0;
        os_mutex_lock(&lock);
        bool finishing = closing;
        bool all_sent = true;
        p[n++] = (OsPollIo){wake_fds[0], 0, 0};
        p[n++] = (OsPollIo){finishing ? -1 : listen_fd, 0, 0};
        size_t n_polled = n_clients;
        for (size_t i = 0; i < n_polled; i++) {
            polled[i] = clients[i];
            bool pending = clients[i]->head != NULL;
            all_sent = all_sent && !pending;
            p[n++] = (OsPollIo){clients[i]->fd, pending, 0};
        }
        os_mutex_unlock(&lock);
        if (finishing && all_sent)
            break;
        if (finishing && !was_finishing) {   /* the drain time starts now */
            uint64_t now = clock_elapsed_ns();
            for (size_t i = 0; i < n_polled; i++)
                polled[i]->last_progress_ns = now;
            was_finishing = true;
        }
        if (os_poll_io(p, n, finishing ? 100 : -1) != 0)
            break;
        if (p[0].ready)
            drain_wake_line();
        if (p[1].ready & OS_POLL_READABLE)
            accept_client();
        uint64_t now = clock_elapsed_ns();
        for (size_t k = n_polled; k-- > 0;) {
            Client *cl = polled[k];
            unsigned ready = p[2 + k].ready;
            bool alive = true;
            if (ready & (OS_POLL_READABLE | OS_POLL_OTHER))
                alive = read_control(cl) >= 0;
            if (alive && (ready & OS_POLL_WRITABLE))
                alive = send_queued(cl);
            if (alive && finishing && cl->head != NULL && now > cl->last_progress_ns &&
                now - cl->last_progress_ns > (uint64_t)EVENTLOG_SOCKET_DRAIN_MS * 1000000)
                alive = false;
            if (!alive) {
                read_last_words(cl);   /* Note [A client's last words] */
                for (size_t i = 0; i < n_clients; i++)
                    if (clients[i] == cl)
                        client_close(i);
            }
        }
    }
    while (n_clients > 0)
        client_close(n_clients - 1);
    return NULL;
}

/* ----------------------------------------------------------------------
 * Opening and closing
 * ---------------------------------------------------------------------- */

/* Refuses a path that is too long, or where something other than a
 * stale socket lies (socket_path_usable). */
static bool unix_path_usable(const char *path)
{
    size_t len = strlen(path);
    if (len > OS_SOCKET_PATH_MAX) {
        rts_error("eventlog-socket: the socket path is too long for a Unix socket "
                  "(path=%s, bytes=%zu, max=%d)", path, len, OS_SOCKET_PATH_MAX);
        return false;
    }
    return socket_path_usable("eventlog-socket", path);
}

static int listen_unix(const char *path)
{
    if (!unix_path_usable(path))
        return -1;
    OsListener l;
    int err = os_socket_listen_unix(path, 16, &l);
    if (err != 0) {
        rts_error("eventlog-socket: cannot listen on %s (step=%s, errno=%d: %s)",
                  l.failed_step == OS_LISTEN_BIND ? l.bind_path : path,
                  l.failed_step == OS_LISTEN_SOCKET ? "socket"
                  : l.failed_step == OS_LISTEN_BIND ? "bind" : "setup",
                  err, strerror(err));
        return -1;
    }
    snprintf(socket_path, sizeof socket_path, "%s", path);
    socket_dev = l.dev;
    socket_ino = l.ino;
    return l.fd;
}

static int listen_tcp(const char *host, uint16_t port)
{
    int fd;
    int err = os_socket_listen_tcp(host, port, 16, &fd, &tcp_port);
    if (err != 0) {
        rts_error("eventlog-socket: cannot listen on TCP %s:%u (errno=%d: %s)",
                  host[0] != '\0' ? host : "127.0.0.1", (unsigned)port, err, strerror(err));
        return -1;
    }
    if (port == 0)
        rts_error("eventlog-socket: listening on TCP %s:%u",
                  host[0] != '\0' ? host : "127.0.0.1", (unsigned)tcp_port);
    return fd;
}

static void remove_socket_file(void)
{
    OsPathInfo st;
    if (socket_path[0] != '\0' && os_path_lstat(socket_path, &st) == 0 &&
        st.dev == socket_dev && st.ino == socket_ino)
        os_path_unlink(socket_path);
    socket_path[0] = '\0';
}

bool eventlog_socket_open(const EventLogSocketConfig *cfg, EventLogControlSink sink)
{
    if (open_now)
        return true;
    config = *cfg;
    control_sink = sink;
    preamble_open();
    tcp_port = 0;
    memset(&stats, 0, sizeof stats);
    listen_fd = config.unix_path != NULL ? listen_unix(config.unix_path)
                                         : listen_tcp(config.tcp_host, config.tcp_port);
    if (listen_fd < 0)
        goto fail_listen;
    int err = os_socket_pair(wake_fds);
    if (err == 0)
        err = os_socket_set_nonblocking(wake_fds[0]);
    if (err == 0)
        err = os_socket_set_nonblocking(wake_fds[1]);
    if (err != 0) {
        rts_error("eventlog-socket: cannot make the thread's wake-up line (errno=%d: %s)", err,
                  strerror(err));
        goto fail_pair;
    }
    closing = false;
    atomic_store(&xwake_pending, false);
    err = os_thread_start(&server_thread, server_main, NULL);
    if (err != 0) {
        rts_error("eventlog-socket: cannot start the socket thread (errno=%d: %s)", err,
                  strerror(err));
        goto fail_thread;
    }
    open_now = true;
    if (config.wait_for_client) {
        rts_error("eventlog-socket: waiting for a client on %s (--eventlog-socket-wait)",
                  config.unix_path != NULL ? config.unix_path : "TCP");
        os_mutex_lock(&lock);
        while (stats.clients == 0)
            os_cond_wait(&client_came, &lock);
        os_mutex_unlock(&lock);
    }
    return true;
fail_thread:
    if (wake_fds[0] >= 0)
        os_socket_close(wake_fds[0]);
    if (wake_fds[1] >= 0)
        os_socket_close(wake_fds[1]);
fail_pair:
    wake_fds[0] = wake_fds[1] = -1;
    os_socket_close(listen_fd);
    listen_fd = -1;
    remove_socket_file();
fail_listen:
    return false;
}

void eventlog_socket_close(void)
{
    if (!open_now)
        return;
    os_mutex_lock(&lock);
    closing = true;
    os_mutex_unlock(&lock);
    atomic_store(&xwake_pending, false);
    wake_thread();
    os_thread_join(server_thread);
    os_socket_close(listen_fd);
    os_socket_close(wake_fds[0]);
    os_socket_close(wake_fds[1]);
    listen_fd = wake_fds[0] = wake_fds[1] = -1;
    remove_socket_file();
    os_mutex_lock(&lock);
    preamble_reset();
    os_mutex_unlock(&lock);
    tcp_port = 0;
    open_now = false;
}

uint16_t eventlog_socket_tcp_port(void)
{
    return tcp_port;
}

bool eventlog_socket_is_open(void)
{
    return open_now;
}

void eventlog_socket_get_stats(EventLogSocketStats *out)
{
    os_mutex_lock(&lock);
    *out = stats;
    for (size_t i = 0; i < n_clients; i++) {
        out->control_messages += clients[i]->parser.messages;
        out->control_skipped_bytes += clients[i]->parser.skipped_bytes;
        out->control_bad_messages += clients[i]->parser.bad_messages;
    }
    os_mutex_unlock(&lock);
}
