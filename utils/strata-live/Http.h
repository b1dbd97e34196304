/*
 * utils/strata-live/Http.h -- strata-live's HTTP side, through
 * libmicrohttpd (no HTTP parsing of our own): /metrics, /debug/pprof/heap
 * and the live page (PageHttp.h).  The whole API of the module.
 */
#ifndef STRATA_LIVE_HTTP_H
#define STRATA_LIVE_HTTP_H

#include <pthread.h>
#include <stddef.h>

#include "LiveState.h"
#include "PageHttp.h"

typedef struct HttpServer HttpServer;

/* Binds and listens on host:port (port "0": any free port).  Returns the
 * socket, with the port it got in *bound_port, or -1 with why filled. */
int http_listen(const char *host, const char *port, unsigned *bound_port, char *why,
                size_t why_len);

/* Serves on listen_fd from libmicrohttpd's own thread, reading state (and
 * the page's, pc) under lock.  Returns NULL with why filled on failure. */
HttpServer *http_start(int listen_fd, const LiveState *state, pthread_mutex_t *lock,
                       PageContext *pc, char *why, size_t why_len);

/* Stops serving and closes the socket. */
void http_stop(HttpServer *h);

#endif /* STRATA_LIVE_HTTP_H */
