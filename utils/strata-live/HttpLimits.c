/*
 * utils/strata-live/HttpLimits.c -- the limits on strata-live's HTTP
 * clients (HttpLimits.h): the open-file limit and the connection limit
 * taken from it, and a thread that drops a connection whose request does
 * not arrive whole in time.  Uses getrlimit, setrlimit, shutdown and
 * pthreads directly (a tool, not the runtime).  See Note [Slow clients].
 */
#include "HttpLimits.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

/* Note [Slow clients]
 * ~~~~~~~~~~~~~~~~~~~
 * A client that opens connections and sends each the start of a request,
 * then a byte every few seconds, must not keep anyone else from /metrics.
 * With libmicrohttpd on select(), 1,100 such connections did: every
 * descriptor from FD_SETSIZE (1024) on was refused, /metrics included.
 * Four things now stand in the way:
 *  - libmicrohttpd waits with epoll (poll where it has no epoll), so a
 *    connection's descriptor number does not matter (Http.c);
 *  - it takes at most HTTP_MAX_CONNECTIONS connections at once, fewer if
 *    the open-file limit is lower (the soft limit is raised towards the
 *    hard one first, as far as that number needs), keeping FD_RESERVE
 *    descriptors for the eventlog source and the files it opens;
 *  - at most HTTP_MAX_PER_ADDRESS from one client address, so a flood
 *    from one address fills its own share and not the server;
 *  - a request must arrive whole within HTTP_REQUEST_DEADLINE_S of its
 *    connection's start (or, on a kept-alive connection, of the answer
 *    before it plus HTTP_IDLE_TIMEOUT_S, which is how long libmicrohttpd
 *    lets a connection be silent).  libmicrohttpd's own timeout counts
 *    only silence, which one byte every few seconds never is.  A thread
 *    checks the deadlines every second and shuts a late connection's
 *    socket down; libmicrohttpd, reading its end, closes it.  shutdown,
 *    not close: the descriptor stays libmicrohttpd's.  The table of
 *    connections is under a lock that the close notification takes too,
 *    and libmicrohttpd closes a descriptor only after that notification,
 *    so the descriptor shut down is never one that was closed and reused.
 * "Arrived whole" is when libmicrohttpd calls the handler: once the
 * request's header is in.  libmicrohttpd writes a line for each connection
 * it drops or turns away, which such a client would turn into a flood on
 * stderr: its messages go through http_limits_log, which lets LOG_BURST of
 * them through a minute and counts the rest.  A local user can still open
 * connections from many loopback addresses (all of 127/8 is local); each
 * of them then holds a place for at most the deadline. */
#define FD_RESERVE 64u
#define LOG_BURST 5u
#define LOG_WINDOW_NS (60ull * 1000000000ull)
#define CHECK_EVERY_NS 1000000000ull
#define NS_PER_S 1000000000ull

typedef struct Tracked {
    struct Tracked *prev, *next;   /* HttpLimits.tracked, under lock */
    int fd;                        /* the connection's socket (libmicrohttpd's) */
    uint64_t deadline_ns;          /* the request is due by then; 0: none due */
} Tracked;

struct HttpLimits {
    pthread_mutex_t lock;          /* guards everything below */
    pthread_cond_t wake;           /* stop was asked */
    pthread_t thread;
    int stopping;
    Tracked *tracked;              /* every open connection */
    uint64_t log_window_ns;        /* when the current minute of messages began */
    unsigned logged;               /* messages written in it */
    uint64_t left_out;             /* messages not written since the last one written */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

unsigned http_limits_max_connections(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024 - FD_RESERVE;
    rlim_t want = HTTP_MAX_CONNECTIONS + FD_RESERVE;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        struct rlimit raised = rl;
        raised.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl = raised;
    }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
        return rl.rlim_cur > 2 * FD_RESERVE ? (unsigned)(rl.rlim_cur - FD_RESERVE)
                                            : (unsigned)(rl.rlim_cur / 2);
    return HTTP_MAX_CONNECTIONS;
}

/* Shuts down every connection whose request is overdue (under lock). */
static void drop_late_locked(HttpLimits *l)
{
    uint64_t now = now_ns();
    for (Tracked *t = l->tracked; t != NULL; t = t->next)
        if (t->deadline_ns != 0 && now >= t->deadline_ns) {
            shutdown(t->fd, SHUT_RDWR);
            t->deadline_ns = 0;
        }
}

static void *limits_main(void *arg)
{
    HttpLimits *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->stopping) {
        drop_late_locked(l);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += CHECK_EVERY_NS / NS_PER_S;
        pthread_cond_timedwait(&l->wake, &l->lock, &until);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

HttpLimits *http_limits_start(void)
{
    HttpLimits *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->wake, &attr);
    pthread_condattr_destroy(&attr);
    int err = pthread_create(&l->thread, NULL, limits_main, l);
    if (err != 0) {
        pthread_cond_destroy(&l->wake);
        pthread_mutex_destroy(&l->lock);
        free(l);
        errno = err;
        return NULL;
    }
    return l;
}

void http_limits_stop(HttpLimits *l)
{
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->lock);
    l->stopping = 1;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    while (l->tracked != NULL) {   /* none, once libmicrohttpd has stopped */
        Tracked *t = l->tracked;
        l->tracked = t->next;
        free(t);
    }
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

void http_limits_log(void *cls, const char *fmt, va_list ap)
{
    HttpLimits *l = cls;
    pthread_mutex_lock(&l->lock);
    uint64_t now = now_ns();
    if (l->log_window_ns == 0 || now - l->log_window_ns >= LOG_WINDOW_NS) {
        l->log_window_ns = now;
        l->logged = 0;
    }
    if (l->logged == LOG_BURST) {
        l->left_out++;
    } else {
        l->logged++;
        if (l->left_out > 0)
            fprintf(stderr, "strata-live: (%" PRIu64 " more messages from libmicrohttpd "
                            "were left out)\n", l->left_out);
        l->left_out = 0;
        fputs("strata-live: libmicrohttpd: ", stderr);
        vfprintf(stderr, fmt, ap);
    }
    pthread_mutex_unlock(&l->lock);
}

/* ----------------------------------------------------------------------
 * libmicrohttpd's notifications (its thread)
 * ------------------------------------------------------------------- */

static Tracked *tracked_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci != NULL ? ci->socket_context : NULL;
}

void http_limits_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                               enum MHD_ConnectionNotificationCode code)
{
    HttpLimits *l = cls;
    Tracked *t = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        t = ci != NULL ? calloc(1, sizeof *t) : NULL;
        if (t == NULL)
            return;   /* untracked: only the idle timeout holds it */
        t->fd = ci->connect_fd;
        pthread_mutex_lock(&l->lock);
        t->deadline_ns = now_ns() + HTTP_REQUEST_DEADLINE_S * NS_PER_S;
        t->next = l->tracked;
        if (t->next != NULL)
            t->next->prev = t;
        l->tracked = t;
        pthread_mutex_unlock(&l->lock);
        *socket_context = t;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && t != NULL) {
        pthread_mutex_lock(&l->lock);
        if (t->prev != NULL)
            t->prev->next = t->next;
        else
            l->tracked = t->next;
        if (t->next != NULL)
            t->next->prev = t->prev;
        pthread_mutex_unlock(&l->lock);
        free(t);
        *socket_context = NULL;
    }
}

void http_limits_on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                              enum MHD_RequestTerminationCode toe)
{
    HttpLimits *l = cls;
    (void)req_cls;
    (void)toe;
    Tracked *t = tracked_of(conn);
    if (t == NULL)
        return;
    pthread_mutex_lock(&l->lock);
    t->deadline_ns = now_ns() + (HTTP_IDLE_TIMEOUT_S + HTTP_REQUEST_DEADLINE_S) * NS_PER_S;
    pthread_mutex_unlock(&l->lock);
}

void http_limits_request_arrived(HttpLimits *l, struct MHD_Connection *conn)
{
    Tracked *t = tracked_of(conn);
    if (t == NULL)
        return;
    pthread_mutex_lock(&l->lock);
    t->deadline_ns = 0;
    pthread_mutex_unlock(&l->lock);
}
