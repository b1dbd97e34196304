/*
 * utils/strata-live/HttpLimits.h -- what keeps a few clients from locking
 * everyone else out of strata-live's HTTP server: how many connections it
 * takes, in all and from one address, and a deadline for every request
 * (Note [Slow clients] in HttpLimits.c).  The whole API of the module;
 * Http.c gives libmicrohttpd the limits and the callbacks.
 */
#ifndef STRATA_LIVE_HTTP_LIMITS_H
#define STRATA_LIVE_HTTP_LIMITS_H

#include <stdarg.h>

#include <microhttpd.h>

/* A connection that sends nothing for this long is closed (libmicrohttpd's
 * own timeout). */
#define HTTP_IDLE_TIMEOUT_S 30u
/* A request must arrive whole (its header) this long after its connection
 * was made, or after the answer to the one before it plus the idle
 * timeout, or the connection is dropped. */
#define HTTP_REQUEST_DEADLINE_S 10u
/* Connections from one client address at once. */
#define HTTP_MAX_PER_ADDRESS 64u
/* Connections at once, in all, if the open-file limit allows. */
#define HTTP_MAX_CONNECTIONS 4096u

typedef struct HttpLimits HttpLimits;

/* Raises the soft open-file limit towards what HTTP_MAX_CONNECTIONS needs
 * (never past the hard limit) and returns how many connections the
 * server may hold with the limit it has. */
unsigned http_limits_max_connections(void);

/* Starts the thread that drops connections past their deadline; NULL
 * (out of memory, or no thread) with errno set. */
HttpLimits *http_limits_start(void);

/* Stops the thread.  Call after libmicrohttpd has stopped (every
 * connection it made has been reported closed). */
void http_limits_stop(HttpLimits *l);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the
 * HttpLimits): tracks each connection from its start to its close. */
void http_limits_on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                               enum MHD_ConnectionNotificationCode code);

/* libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED callback (cls: the
 * HttpLimits): a request was answered; the connection's next one is due. */
void http_limits_on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                              enum MHD_RequestTerminationCode toe);

/* libmicrohttpd's MHD_OPTION_EXTERNAL_LOGGER (cls: the HttpLimits): its
 * messages on stderr, at most a few a minute (Note [Slow clients]). */
void http_limits_log(void *cls, const char *fmt, va_list ap);

/* From the request handler: conn's request has arrived whole. */
void http_limits_request_arrived(HttpLimits *l, struct MHD_Connection *conn);

#endif /* STRATA_LIVE_HTTP_LIMITS_H */
