/*
 * utils/strata-live/PageHttp.h -- the live page's endpoints, on the
 * server of Http.c: the page at /, its figures at /live/status, the
 * report's data at /live/data.json and the buttons' commands, POST
 * /live/control?cmd=era|census|gc|flush.  The whole API of the module;
 * the request checks are PageGuard.h's.
 */
#ifndef STRATA_LIVE_PAGE_HTTP_H
#define STRATA_LIVE_PAGE_HTTP_H

#include <pthread.h>
#include <stddef.h>

#include <microhttpd.h>

#include "LivePage.h"
#include "LiveState.h"
#include "PageGuard.h"
#include "Source.h"

typedef struct PageContext {
    const LiveState *state;     /* read under lock */
    LivePage *page;             /* under lock; NULL: built without the page */
    pthread_mutex_t *lock;
    Source *send_src;           /* the program's socket, or NULL: no buttons */
    const char *no_send_why;    /* why there are none */
    PageGuard guard;
} PageContext;

/* 1 if url is the page's (/ or /live/...). */
int page_http_owns(const char *url);

/* Answers a request for one of the page's urls, as libmicrohttpd's
 * access handler (its arguments). */
enum MHD_Result page_http_handle(PageContext *pc, struct MHD_Connection *conn, const char *url,
                                 const char *method, size_t *upload_data_size, void **con_cls);

#endif /* STRATA_LIVE_PAGE_HTTP_H */
