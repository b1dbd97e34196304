/*
 * utils/strata-live/PageHttp.c -- the live page's endpoints: the page,
 * the header's figures (/live/status, polled), the report's data
 * (/live/data.json, fetched when the status says it changed) and the
 * buttons (POST /live/control).  Everything is read under the shared lock
 * and sent after it is released; a client costs nothing between its
 * requests (Note [The page polls]).
 */
#include "PageHttp.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ControlWire.h"
#include "Send.h"
#include "TextOut.h"

/* Note [The page polls]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * The page asks for /live/status (a few hundred bytes) every 100 ms and
 * for /live/data.json only when the status's data_version differs from
 * the one it drew.  Rejected: server-sent events, which need a connection
 * held open per browser, and a way to notice one that went away, in
 * libmicrohttpd's single thread; a poll holds nothing between requests,
 * so a browser that closes costs the server nothing, and ten browsers
 * cost a hundred small requests a second.  The poll period adds at most
 * 100 ms to the flush interval between a census and its drawing. */

/* The buttons' commands, by the name the page sends. */
static const struct {
    const char *cmd, *ns;
    uint8_t command;
} page_commands[] = {
    { "era", CONTROL_NS_STRATA, CONTROL_CMD_INCREMENT_ERA },
    { "census", CONTROL_NS_EVENTLOG_SOCKET, CONTROL_CMD_REQUEST_HEAP_CENSUS },
    { "gc", CONTROL_NS_STRATA, CONTROL_CMD_MAJOR_GC },
    { "flush", CONTROL_NS_STRATA, CONTROL_CMD_FLUSH_EVENTLOG },
};

int page_http_owns(const char *url)
{
    return strcmp(url, "/") == 0 || strncmp(url, "/live/", 6) == 0;
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, char *body,
                               size_t len, const char *content_type)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    /* The page is framed by nobody, and its scripts are its own. */
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    enum MHD_Result r = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return r;
}

__attribute__((format(printf, 3, 4)))
static enum MHD_Result respond_text(struct MHD_Connection *conn, unsigned status,
                                    const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *copy = strdup(msg);
    if (copy == NULL)
        return MHD_NO;
    return respond(conn, status, copy, strlen(copy), "text/plain; charset=utf-8");
}

/* A JSON string (NULL as null), as every tool writes one (Note [One way
 * to write a string] in wire/TextOut.c), safe inside a <script> element. */
static void jstr(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    text_write_cstr(f, s, TEXT_JSON_SCRIPT);   /* it may go inside a <script> */
    fputc('"', f);
}

static void jfield_u64(FILE *f, const char *name, int have, uint64_t v)
{
    if (have)
        fprintf(f, ",\"%s\":%" PRIu64, name, v);
    else
        fprintf(f, ",\"%s\":null", name);
}

/* The header's figures and the data's version (rendering the data anew
 * when it is time: Note [The live page's data] in LivePage.c); called
 * under the lock. */
static void write_status(FILE *f, const PageContext *pc)
{
    const LiveStream *st = &pc->state->stream;
    fprintf(f, "{\"data_version\":%" PRIu64 ",\"connected\":%s,\"streams\":%" PRIu64
               ",\"censuses\":%" PRIu64,
            pc->page != NULL ? live_page_refresh(pc->page) : 0,
            pc->state->connected ? "true" : "false", pc->state->streams, st->censuses);
    jfield_u64(f, "heap_size_bytes", st->have_heap_size, st->heap_size_bytes);
    jfield_u64(f, "heap_live_bytes", st->have_heap_live, st->heap_live_bytes);
    jfield_u64(f, "era", st->have_era, st->era);
    fprintf(f, ",\"gcs\":%" PRIu64 ",\"last_pause_s\":", st->gcs);
    if (st->pause_count > 0)
        fprintf(f, "%.9f", st->last_pause_seconds);
    else
        fputs("null", f);
    fputs(",\"program\":", f);
    jstr(f, st->program);
    fputs("}", f);
}

/* What live.js needs to know that does not change: the token, and
 * whether there is a socket to send on. */
static void write_config(FILE *f, const PageContext *pc)
{
    fputs("{\"token\":", f);
    jstr(f, pc->guard.token);
    fprintf(f, ",\"can_send\":%s,\"no_send_why\":", pc->send_src != NULL ? "true" : "false");
    jstr(f, pc->send_src != NULL ? NULL : pc->no_send_why);
    fputs("}", f);
}

/* What write makes of pc, in memory (malloc'd, *len bytes), written
 * under pc->lock when locked; NULL when out of memory. */
static char *written(void (*write)(FILE *, const PageContext *), PageContext *pc, bool locked,
                     size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (f == NULL)
        return NULL;
    if (locked)
        pthread_mutex_lock(pc->lock);
    write(f, pc);
    if (locked)
        pthread_mutex_unlock(pc->lock);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static enum MHD_Result serve_status(PageContext *pc, struct MHD_Connection *conn)
{
    size_t len = 0;
    char *buf = written(write_status, pc, true, &len);
    if (buf == NULL)
        return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return respond(conn, MHD_HTTP_OK, buf, len, "application/json");
}

static enum MHD_Result serve_data(PageContext *pc, struct MHD_Connection *conn)
{
    size_t len = 0;
    uint64_t version = 0;
    pthread_mutex_lock(pc->lock);
    char *json = live_page_data(pc->page, &len, &version);
    pthread_mutex_unlock(pc->lock);
    if (json == NULL)
        return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    /* {"data_version":N,"report":...}: the version travels with its data. */
    char head[64];
    int n = snprintf(head, sizeof head, "{\"data_version\":%" PRIu64 ",\"report\":", version);
    char *body = malloc((size_t)n + len + 2);
    if (body == NULL) {
        free(json);
        return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    memcpy(body, head, (size_t)n);
    memcpy(body + n, json, len);
    body[(size_t)n + len] = '}';
    body[(size_t)n + len + 1] = '\0';
    free(json);
    return respond(conn, MHD_HTTP_OK, body, (size_t)n + len + 1, "application/json");
}

static enum MHD_Result serve_page(PageContext *pc, struct MHD_Connection *conn)
{
    size_t config_len = 0;
    char *config = written(write_config, pc, false, &config_len);
    if (config == NULL)
        return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    size_t len = 0;
    pthread_mutex_lock(pc->lock);
    char *html = live_page_html(pc->page, config, &len);
    pthread_mutex_unlock(pc->lock);
    free(config);
    if (html == NULL)
        return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return respond(conn, MHD_HTTP_OK, html, len, "text/html; charset=utf-8");
}

static const char *header(struct MHD_Connection *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

static enum MHD_Result serve_control(PageContext *pc, struct MHD_Connection *conn,
                                     const char *method)
{
    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
                            "refused: only a POST from the page sends a command (a GET changes "
                            "nothing)\n");
    const char *why = page_guard_check_command(&pc->guard, method, header(conn, "Host"),
                                               header(conn, "Origin"),
                                               header(conn, "Sec-Fetch-Site"),
                                               header(conn, "X-Strata-Token"));
    if (why != NULL)
        return respond_text(conn, MHD_HTTP_FORBIDDEN, "%s\n", why);
    const char *cmd = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "cmd");
    size_t k = 0;
    while (k < sizeof page_commands / sizeof page_commands[0] &&
           (cmd == NULL || strcmp(cmd, page_commands[k].cmd) != 0))
        k++;
    if (k == sizeof page_commands / sizeof page_commands[0])
        return respond_text(conn, MHD_HTTP_BAD_REQUEST,
                            "unknown command: cmd must be era, census, gc or flush\n");
    if (pc->send_src == NULL)
        return respond_text(conn, MHD_HTTP_CONFLICT, "%s\n", pc->no_send_why);
    char err[512];
    if (!send_control_one(pc->send_src, page_commands[k].ns, page_commands[k].command, err,
                          sizeof err))
        return respond_text(conn, MHD_HTTP_BAD_GATEWAY, "not sent: %s\n", err);
    return respond_text(conn, MHD_HTTP_OK, "sent %s:%u\n", page_commands[k].ns,
                        (unsigned)page_commands[k].command);
}

enum MHD_Result page_http_handle(PageContext *pc, struct MHD_Connection *conn, const char *url,
                                 const char *method, size_t *upload_data_size, void **con_cls)
{
    static int body_seen;
    int post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    /* A POST's body comes in calls of its own: ignored, the answer given
     * at the last call (upload size 0). */
    if (post && *con_cls == NULL) {
        *con_cls = &body_seen;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/live/control") == 0)
        return serve_control(pc, conn, method);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD here\n");
    const char *why = page_guard_check_host(&pc->guard, header(conn, "Host"));
    if (why != NULL)
        return respond_text(conn, MHD_HTTP_FORBIDDEN, "%s\n", why);
    if (pc->page == NULL)
        return respond_text(conn, MHD_HTTP_NOT_FOUND, "this strata-live was built without "
                            "its page (node and npm were missing at configure time); it "
                            "serves /metrics and /debug/pprof/heap\n");
    if (strcmp(url, "/") == 0)
        return serve_page(pc, conn);
    if (strcmp(url, "/live/status") == 0)
        return serve_status(pc, conn);
    if (strcmp(url, "/live/data.json") == 0)
        return serve_data(pc, conn);
    return respond_text(conn, MHD_HTTP_NOT_FOUND, "not found: the page's urls are /, "
                        "/live/status, /live/data.json and POST /live/control\n");
}
