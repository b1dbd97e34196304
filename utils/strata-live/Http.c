/*
 * utils/strata-live/Http.c -- strata-live's HTTP endpoints on
 * libmicrohttpd: the library parses HTTP and runs the connections in its
 * own thread; this file binds the listening socket (so that a bad --listen
 * gets our message) and answers GET and HEAD with what LiveState renders,
 * taken under the shared lock and sent after it is released; the page's
 * urls go to PageHttp.c.  libmicrohttpd waits with epoll, and HttpLimits.c
 * bounds what slow clients can hold (Note [Slow clients] there).
 */
#include "Http.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "HttpLimits.h"

struct HttpServer {
    struct MHD_Daemon *daemon;
    HttpLimits *limits;
    int listen_fd;
    const LiveState *state;
    pthread_mutex_t *lock;
    PageContext *page;
};

int http_listen(const char *host, const char *port, unsigned *bound_port, char *why,
                size_t why_len)
{
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(why, why_len, "--listen %s:%s: cannot resolve %s: %s", host, port, host,
                 gai_strerror(gai));
        return -1;
    }
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0) {
        snprintf(why, why_len, "--listen %s:%s: socket: %s", host, port, strerror(errno));
        goto fail_socket;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
        snprintf(why, why_len, "--listen %s:%s: cannot listen: %s", host, port,
                 strerror(errno));
        goto fail_bind;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        snprintf(why, why_len, "--listen %s:%s: getsockname: %s", host, port, strerror(errno));
        goto fail_bind;
    }
    char got_port[16];
    getnameinfo((struct sockaddr *)&ss, len, NULL, 0, got_port, sizeof got_port,
                NI_NUMERICSERV);
    *bound_port = (unsigned)strtoul(got_port, NULL, 10);
    freeaddrinfo(res);
    return fd;

fail_bind:
    close(fd);
fail_socket:
    freeaddrinfo(res);
    return -1;
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, void *body,
                               size_t len, enum MHD_ResponseMemoryMode mode,
                               const char *content_type)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, mode);
    if (resp == NULL) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result r = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return r;
}

static enum MHD_Result respond_text(struct MHD_Connection *conn, unsigned status,
                                    const char *text)
{
    return respond(conn, status, (void *)(uintptr_t)text, strlen(text),
                   MHD_RESPMEM_PERSISTENT, "text/plain; charset=utf-8");
}

static enum MHD_Result serve_metrics(HttpServer *h, struct MHD_Connection *conn)
{
    size_t len = 0;
    pthread_mutex_lock(h->lock);
    char *text = live_state_render_metrics(h->state, &len);
    pthread_mutex_unlock(h->lock);
    if (text == NULL)
        return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return respond(conn, MHD_HTTP_OK, text, len, MHD_RESPMEM_MUST_FREE,
                   "text/plain; version=0.0.4; charset=utf-8");
}

/* The ?era= of a profile's URL: N or LO-HI (decimal eras, LO <= HI);
 * absent: every era.  0 (with a message in why) for anything else. */
static int parse_era_range(const char *arg, uint64_t *lo, uint64_t *hi, char *why,
                           size_t why_len)
{
    *lo = 0;
    *hi = UINT64_MAX;
    if (arg == NULL)
        return 1;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(arg, &end, 10), b = a;
    int ok = arg[0] >= '0' && arg[0] <= '9' && errno == 0;
    if (ok && *end == '-') {
        const char *second = end + 1;
        b = strtoull(second, &end, 10);
        ok = second[0] >= '0' && second[0] <= '9' && errno == 0 && a <= b;
    }
    if (!ok || *end != '\0') {
        snprintf(why, why_len,
                 "bad era '%s': expected an era N or a range LO-HI (decimal, LO <= HI), "
                 "e.g. ?era=3 or ?era=2-5\n", arg);
        return 0;
    }
    *lo = a;
    *hi = b;
    return 1;
}

static enum MHD_Result serve_pprof(HttpServer *h, struct MHD_Connection *conn,
                                   LiveProfile which)
{
    uint8_t *bytes = NULL;
    size_t n = 0;
    const char *why = NULL;
    char msg[256];
    uint64_t lo, hi;
    const char *era = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "era");
    if (!parse_era_range(era, &lo, &hi, msg, sizeof msg)) {
        char *copy = strdup(msg);
        if (copy == NULL)
            return MHD_NO;
        return respond(conn, MHD_HTTP_BAD_REQUEST, copy, strlen(copy), MHD_RESPMEM_MUST_FREE,
                       "text/plain; charset=utf-8");
    }
    pthread_mutex_lock(h->lock);
    int ok = live_state_render_pprof(h->state, which, lo, hi, &bytes, &n, &why);
    pthread_mutex_unlock(h->lock);
    if (!ok) {
        snprintf(msg, sizeof msg, "%s\n", why != NULL ? why : "cannot encode the profile");
        char *copy = strdup(msg);
        if (copy == NULL)
            return MHD_NO;
        return respond(conn, MHD_HTTP_SERVICE_UNAVAILABLE, copy, strlen(copy),
                       MHD_RESPMEM_MUST_FREE, "text/plain; charset=utf-8");
    }
    return respond(conn, MHD_HTTP_OK, bytes, n, MHD_RESPMEM_MUST_FREE,
                   "application/octet-stream");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
    HttpServer *h = cls;
    (void)version;
    (void)upload_data;
    http_limits_request_arrived(h->limits, conn);
    if (page_http_owns(url))
        return page_http_handle(h->page, conn, url, method, upload_data_size, con_cls);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/metrics") == 0)
        return serve_metrics(h, conn);
    if (strcmp(url, "/debug/pprof/heap") == 0)
        return serve_pprof(h, conn, LIVE_PROFILE_HEAP);
    if (strcmp(url, "/debug/pprof/allocs") == 0)
        return serve_pprof(h, conn, LIVE_PROFILE_ALLOCS);
    return respond_text(conn, MHD_HTTP_NOT_FOUND,
                        "not found: strata-live serves the live page at /, /metrics, "
                        "/debug/pprof/heap and /debug/pprof/allocs\n");
}

HttpServer *http_start(int listen_fd, const LiveState *state, pthread_mutex_t *lock,
                       PageContext *pc, char *why, size_t why_len)
{
    HttpServer *h = calloc(1, sizeof *h);
    if (h == NULL) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    h->listen_fd = listen_fd;
    h->state = state;
    h->lock = lock;
    h->page = pc;
    h->limits = http_limits_start();
    if (h->limits == NULL) {
        snprintf(why, why_len, "cannot start the HTTP deadline thread: %s", strerror(errno));
        free(h);
        return NULL;
    }
    /* Not select(): it cannot wait on a descriptor past FD_SETSIZE. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                     (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES ? MHD_USE_EPOLL
                                                                             : MHD_USE_POLL);
    h->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, handle, h, MHD_OPTION_EXTERNAL_LOGGER, http_limits_log, h->limits,
        MHD_OPTION_LISTEN_SOCKET, listen_fd,
        MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_TIMEOUT_S,
        MHD_OPTION_CONNECTION_LIMIT, http_limits_max_connections(),
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_MAX_PER_ADDRESS,
        MHD_OPTION_NOTIFY_CONNECTION, http_limits_on_connection, h->limits,
        MHD_OPTION_NOTIFY_COMPLETED, http_limits_on_completed, h->limits, MHD_OPTION_END);
    if (h->daemon == NULL) {
        snprintf(why, why_len, "libmicrohttpd could not start serving");
        http_limits_stop(h->limits);
        free(h);
        return NULL;
    }
    return h;
}

void http_stop(HttpServer *h)
{
    if (h == NULL)
        return;
    MHD_stop_daemon(h->daemon);
    http_limits_stop(h->limits);
    close(h->listen_fd);
    free(h);
}
