/*
 * utils/strata-live/main.c -- strata-live: reads a program's eventlog as it
 * is written (Source.h), keeps its heap figures and latest census
 * (LiveState.h) and serves them over HTTP (Http.h) to Prometheus, to
 * pprof's tools and, as a page built from strata-html's report, to a
 * person watching (LivePage.h, PageHttp.h).  This file parses the command
 * line and runs the reading loop; the HTTP server runs in libmicrohttpd's
 * thread and reads the state under one lock.  Usage: docs/strata-live.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "Cli.h"
#include "ControlWire.h"
#include "Http.h"
#include "LivePage.h"
#include "LiveState.h"
#include "Send.h"
#include "Source.h"

#define TOOL "strata-live"
#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define DEFAULT_LISTEN "127.0.0.1:9465"
#define DEFAULT_TOP 20
#define MAX_TOP 10000
#define MAX_SENDS 64

static volatile sig_atomic_t stop_requested;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ----------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------- */

typedef struct Options {
    SourceKind kind;
    const char *where;
    int n_sources;
    const char *listen;
    const char *service_name;
    size_t top;
    int n_sends;                    /* --send: commands to send, then exit */
    const char *send_ns[MAX_SENDS];
    size_t send_ns_len[MAX_SENDS];
    uint8_t send_cmd[MAX_SENDS];
    int serving_flags;              /* --listen, --service-name or --top given */
} Options;

/* The commands --send knows by name (docs/design/eventlog.md, "Control
 * commands"); any other is given by its number. */
static const struct {
    const char *ns, *name;
    uint8_t command;
} command_names[] = {
    { CONTROL_NS_EVENTLOG_SOCKET, "start-heap-profiling", CONTROL_CMD_START_HEAP_PROFILING },
    { CONTROL_NS_EVENTLOG_SOCKET, "stop-heap-profiling", CONTROL_CMD_STOP_HEAP_PROFILING },
    { CONTROL_NS_EVENTLOG_SOCKET, "census", CONTROL_CMD_REQUEST_HEAP_CENSUS },
    { CONTROL_NS_STRATA, "era", CONTROL_CMD_INCREMENT_ERA },
    { CONTROL_NS_STRATA, "gc", CONTROL_CMD_MAJOR_GC },
    { CONTROL_NS_STRATA, "flush", CONTROL_CMD_FLUSH_EVENTLOG },
};

enum { OPT_HELP = 'h', OPT_SOCKET = 256, OPT_TCP, OPT_FILE, OPT_LISTEN, OPT_SERVICE_NAME,
       OPT_TOP, OPT_SEND };

static const CliOption options[] = {
    {"socket", 0, "PATH", OPT_SOCKET, NULL,
     "the program's Unix socket (+RTS --eventlog-socket=PATH)"},
    {"tcp", 0, "HOST:PORT", OPT_TCP, NULL, "the program's TCP eventlog socket"},
    {"file", 0, "LOG", OPT_FILE, NULL, "a log file, followed as it grows (- alone: standard input)"},
    {"listen", 0, "HOST:PORT", OPT_LISTEN, NULL, "where to serve (default " DEFAULT_LISTEN "; port 0: any)"},
    {"service-name", 0, "S", OPT_SERVICE_NAME, NULL,
     "the service_name label (default: the program's name)"},
    {"top", 0, "N", OPT_TOP, NULL, "census bands shown, the rest summed as \"other\"\n(default 20)"},
    {"send", 0, "NS:CMD", OPT_SEND, NULL,
     "send a control command to the program and exit: a number\nor strata:era, strata:gc, "
     "strata:flush, eventlog-socket:census,\neventlog-socket:start-heap-profiling,\n"
     "eventlog-socket:stop-heap-profiling"},
    {"help", 'h', NULL, OPT_HELP, NULL, "this text"},
    CLI_END,
};

static void usage(FILE *out)
{
    cli_help(out,
             TOOL " (--socket PATH | --tcp HOST:PORT | --file LOG | -)\n"
             "           [--listen HOST:PORT] [--service-name NAME] [--top N]\n"
             TOOL " (--socket PATH | --tcp HOST:PORT) --send NAMESPACE:COMMAND...",
             "Reads a program's eventlog as it is written and serves its heap figures:\n"
             "  /metrics           Prometheus text format (heap, GC, the latest census)\n"
             "  /debug/pprof/heap  the sampled heap (+RTS --alloc-sample) as a gzipped pprof\n"
             "                     profile, inuse_space first; without samples the latest census\n"
             "  /debug/pprof/allocs  the same, alloc_space first (both take ?era=N or ?era=LO-HI)\n"
             "  /                  a page: the heap profile drawn as it runs, and buttons\n"
             "                     for a new era, a census, a major GC, a flush",
             options, "See docs/strata-live.md.");
}

static int add_source(Options *o, SourceKind kind, const char *where)
{
    o->n_sources++;
    o->kind = kind;
    o->where = where;
    return 1;
}

/* Parses --send's NAMESPACE:COMMAND (the namespace ends at the last ':';
 * the command is a number from 0 to 255 or a name in command_names). */
static int add_send(const Cli *cli, Options *o, const char *v)
{
    if (o->n_sends == MAX_SENDS)
        return cli_usage_error(cli, "--send: at most %d commands at once", MAX_SENDS);
    const char *colon = strrchr(v, ':');
    if (colon == NULL || colon == v)
        return cli_usage_error(cli, "--send: expected NAMESPACE:COMMAND, got '%s'", v);
    size_t ns_len = (size_t)(colon - v);
    if (ns_len > 255)
        return cli_usage_error(cli, "--send: the namespace is longer than 255 bytes (bytes=%zu)",
                               ns_len);
    const char *c = colon + 1;
    long command = -1;
    if (c[0] >= '0' && c[0] <= '9' && strlen(c) <= 3) {
        char *end;
        command = strtol(c, &end, 10);
        if (*end != '\0' || command > 255)
            command = -1;
    } else {
        for (size_t k = 0; k < sizeof command_names / sizeof command_names[0]; k++)
            if (strlen(command_names[k].ns) == ns_len &&
                memcmp(command_names[k].ns, v, ns_len) == 0 &&
                strcmp(command_names[k].name, c) == 0)
                command = command_names[k].command;
    }
    if (command < 0)
        return cli_usage_error(cli, "--send: the command must be a number from 0 to 255 or a "
                               "known name (strata:era, strata:gc, strata:flush, "
                               "eventlog-socket:census, ...), not '%s'", c);
    o->send_ns[o->n_sends] = v;
    o->send_ns_len[o->n_sends] = ns_len;
    o->send_cmd[o->n_sends] = (uint8_t)command;
    o->n_sends++;
    return -1;
}

/* The --top value: bands from 1 to MAX_TOP. */
static int parse_top(const Cli *c, Options *o, const char *v)
{
    char *end;
    errno = 0;
    unsigned long n = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0;
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n < 1 || n > MAX_TOP)
        return cli_usage_error(c, "--top takes a number of bands from 1 to %d, not '%s'", MAX_TOP,
                               v);
    o->top = n;
    return -1;
}

/* What goes with what, once every option is read; -1 if fine. */
static int check_options(const Cli *c, const Options *o)
{
    if (o->n_sources == 0)
        return cli_usage_error(c, "no eventlog source: give one of --socket PATH, --tcp "
                               "HOST:PORT, --file LOG or -");
    if (o->n_sources > 1)
        return cli_usage_error(c, "give one eventlog source, not %d", o->n_sources);
    if (o->n_sends > 0 && o->kind != SOURCE_SOCKET && o->kind != SOURCE_TCP)
        return cli_usage_error(c, "--send needs the program's --socket PATH or --tcp HOST:PORT");
    if (o->n_sends > 0 && o->serving_flags)
        return cli_usage_error(c, "--send serves nothing: --listen, --service-name and --top "
                               "do not go with it");
    return -1;
}

/* Returns -1 to go on, or an exit code. */
static int parse_options(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    o->listen = DEFAULT_LISTEN;
    o->top = DEFAULT_TOP;
    Cli c;
    int id, rc = -1;
    cli_start(&c, TOOL, NULL, options, argc, argv, 1);
    while (rc < 0 && (id = cli_next(&c)) != CLI_DONE) {
        switch (id) {
        case CLI_ERROR:
            return EXIT_USAGE;
        case CLI_OPERAND:
            if (strcmp(c.arg, "-") != 0)
                return cli_usage_error(&c, "unexpected argument: %s (a log file is given with "
                                       "--file)", c.arg);
            add_source(o, SOURCE_STDIN, "-");
            break;
        case OPT_HELP:
            usage(stdout);
            return EXIT_OK;
        case OPT_SOCKET:
        case OPT_TCP:
        case OPT_FILE:
            add_source(o, id == OPT_SOCKET ? SOURCE_SOCKET : id == OPT_TCP ? SOURCE_TCP
                                                                           : SOURCE_FILE, c.arg);
            break;
        case OPT_SEND:
            rc = add_send(&c, o, c.arg);
            break;
        case OPT_LISTEN:
            o->serving_flags = 1;
            o->listen = c.arg;
            break;
        case OPT_SERVICE_NAME:
            o->serving_flags = 1;
            o->service_name = c.arg;
            if (o->service_name[0] == '\0')
                return cli_usage_error(&c, "--service-name: the name is empty");
            break;
        case OPT_TOP:
            o->serving_flags = 1;
            rc = parse_top(&c, o, c.arg);
            break;
        }
    }
    return rc >= 0 ? rc : check_options(&c, o);
}

/* ----------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------- */

/* Note [A stream replaces the figures at its first event]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A new stream's figures replace the last stream's (live_state_stream_begin
 * frees them), but only once it has yielded an event.  When a program
 * exits, strata-live's reconnect often reaches it in its last moments and
 * is closed unanswered (EOF or ECONNRESET at offset 0); beginning the
 * stream at connect time would wipe the finished run's figures that
 * strata-live promises to keep serving, and leave /metrics empty.  A
 * connection that yields nothing changes nothing but the error count. */

/* Note [A program's exit is the end]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A program that exits ends its stream with the data end marker, and
 * strata-live connects again at once, for the next run.  That connection
 * often reaches the same program in its last moments: it is reset before
 * the first byte, or given the header and the preamble and closed.  It is
 * the end of the run just read, not a stream and not an error, so after a
 * stream that ended with its marker, a connection that ends (EOF or a
 * reset) before it has sent anything past the preamble is passed over in
 * silence: nothing is reported, and neither strata_live_streams_total
 * (which counts a stream once it gives a figure) nor
 * strata_live_stream_errors_total moves.  Bytes that are not an eventlog
 * are still reported; a stream that gives a figure ends the window. */

/* Whether the stream r, which ended with rc, was a program's exit passing
 * by (Note [A program's exit is the end]). */
static int exit_passing_by(const Source *src, const LiveState *state, int after_clean_end,
                           int rc, uint64_t n_events)
{
    int never_served = n_events == 0 || state->pending_active;
    return after_clean_end && never_served && (rc == 0 || src->saw_eof || src->conn_lost);
}

/* Note [Samples sampled before strata-live connected]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A program's eventlog socket sends a client that connects late the
 * preamble (frames and stacks among it), not the samples posted before:
 * those still alive would be missing from inuse.  So when a socket's
 * stream says the program samples (ALLOC_SAMPLING, in the preamble),
 * strata-live sends the control command strata 4, and the program posts
 * every sampled object still alive again, with its number; the model
 * counts a number once, so a client that saw them the first time loses
 * nothing and counts nothing twice.  What was allocated and died before
 * the connection is not sent again: /debug/pprof/allocs counts from the
 * connection on, plus what is still alive. */
static void ask_for_live_samples(Source *src)
{
    if (src->kind != SOURCE_SOCKET && src->kind != SOURCE_TCP)
        return;
    char why[256];
    if (!send_control_one(src, CONTROL_NS_STRATA, CONTROL_CMD_REPOST_SAMPLES, why, sizeof why))
        fprintf(stderr, "%s: warning: cannot ask %s for the sampled objects alive before this "
                        "connection: %s\n", TOOL, src->where, why);
}

/* Reads one stream to its end.  Returns 1 to go on to the next stream, 0
 * to stop reading (a fatal error was reported into *fatal).  *clean_end
 * says whether the last stream that gave figures ended with its data end
 * marker; it is updated here. */
static int read_stream(Source *src, LiveState *state, LivePage *page, int *fatal,
                       int *clean_end)
{
    EventLogReader *r = evr_open_stream(source_read, src, src->where);
    if (r == NULL) {
        fprintf(stderr, "%s: out of memory opening the stream\n", TOOL);
        *fatal = 1;
        return 0;
    }
    EvrEvent ev;
    int rc;
    uint64_t n_events = 0;
    while ((rc = evr_next(r, &ev)) == 1) {
        pthread_mutex_lock(&state_lock);
        /* Note [A stream replaces the figures at its first event] */
        if (n_events == 0) {
            live_state_stream_begin(state);
            if (page != NULL)
                live_page_stream_begin(page);
        }
        int was_pending = state->pending_active;
        live_state_add(state, &ev);
        if (page != NULL)
            live_page_add(page, &ev, was_pending && !state->pending_active);
        pthread_mutex_unlock(&state_lock);
        if (ev.type == EVENT_ALLOC_SAMPLING)
            ask_for_live_samples(src);
        n_events++;
    }
    int ok = rc == 0;
    if (exit_passing_by(src, state, *clean_end, rc, n_events)) {
        ok = 1;   /* Note [A program's exit is the end] */
    } else if (rc < 0 && !stop_requested && !src->replaced) {
        fprintf(stderr, "%s: %s: %s\n", TOOL, evr_name(r), evr_error(r));
        /* Not an eventlog at all (no event, and not cut short): waiting
         * for the next stream would not mend it.  A lost connection is not
         * that (Note [A lost connection is not a bad stream] in Source.c).
         * Standard input has no next stream: nothing there (an empty pipe,
         * /dev/null) is not an eventlog either. */
        if (n_events == 0 && ((!src->saw_eof && !src->conn_lost) || src->kind == SOURCE_STDIN))
            *fatal = 1;
    } else if (rc == 0 && n_events > 0) {
        fprintf(stderr, "%s: %s: stream ended after %" PRIu64 " events%s; serving its last "
                        "figures\n", TOOL, evr_name(r), n_events,
                evr_saw_data_end(r) ? "" : " (no data end marker)");
    }
    if (n_events > 0 && !state->pending_active)
        *clean_end = rc == 0 && evr_saw_data_end(r);
    pthread_mutex_lock(&state_lock);
    live_state_stream_end(state, ok || stop_requested || src->replaced);
    if (page != NULL)
        live_page_stream_end(page);
    pthread_mutex_unlock(&state_lock);
    evr_close(r);
    return !*fatal;
}

/* Streams one after another until there are no more, or a signal. */
static int read_streams(Source *src, LiveState *state, LivePage *page)
{
    char why[512];
    int fatal = 0, clean_end = 0;
    while (!stop_requested) {
        int rc = source_open(src, why, sizeof why);
        if (rc < 0) {
            fprintf(stderr, "%s: %s\n", TOOL, why);
            return 0;
        }
        if (rc == 0)
            break;
        int go_on = read_stream(src, state, page, &fatal, &clean_end);
        source_close(src);
        if (!go_on)
            return 0;
        if (src->kind == SOURCE_STDIN)
            break;
        if (src->kind == SOURCE_FILE && !src->replaced && !source_wait_replaced(src))
            break;
    }
    return 1;
}

/* ----------------------------------------------------------------------
 * --send
 * ------------------------------------------------------------------- */

/* --send: every command in one write (Note [Sending a control command] in
 * Send.c). */
static int send_commands(const Options *o, Source *src)
{
    uint8_t buf[MAX_SENDS * CONTROL_MESSAGE_MAX];
    size_t n = 0;
    for (int k = 0; k < o->n_sends; k++) {
        char ns[256];
        memcpy(ns, o->send_ns[k], o->send_ns_len[k]);
        ns[o->send_ns_len[k]] = '\0';
        n += control_encode(buf + n, sizeof buf - n, ns, o->send_cmd[k]);
    }
    char why[512];
    if (!send_control(src, buf, n, why, sizeof why)) {
        fprintf(stderr, "%s: %s%s\n", TOOL, strncmp(why, "writing", 7) == 0 ? "--send: " : "",
                why);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* ----------------------------------------------------------------------
 * The live page
 * ------------------------------------------------------------------- */

/* The page's model, its token and who may use it, and whether its buttons
 * have a socket to send on.  0 with why filled on failure. */
static int page_setup(PageContext *pc, const Options *o, const LiveState *state,
                      const char *host, unsigned port, Source *send_src, char *why,
                      size_t why_len)
{
    memset(pc, 0, sizeof *pc);
    pc->state = state;
    pc->lock = &state_lock;
    char token[PAGE_GUARD_TOKEN_HEX + 1];
    if (!page_guard_new_token(token, why, why_len))
        return 0;
    page_guard_init(&pc->guard, host, port, token);
    if (o->kind == SOURCE_SOCKET || o->kind == SOURCE_TCP) {
        send_src->fd = -1;
        pc->send_src = send_src;
    } else {
        pc->no_send_why = o->kind == SOURCE_FILE
            ? "strata-live reads a file (--file): there is no socket to send commands on"
            : "strata-live reads a pipe (-): there is no socket to send commands on";
    }
    pc->page = live_page_new(o->where);
    if (pc->page == NULL && live_page_built()) {
        snprintf(why, why_len, "out of memory making the page");
        return 0;
    }
    return 1;
}

/* ----------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    char why[512];
    Source src;
    if (!source_init(&src, o.kind, o.where, &stop_requested, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", TOOL, why);
        return EXIT_USAGE;
    }
    if (o.n_sends > 0)
        return send_commands(&o, &src);
    char host[256], port[16];
    if (!source_split_host_port(o.listen, 0, host, sizeof host, port, sizeof port, why,
                                sizeof why)) {
        fprintf(stderr, "%s: --listen: %s\n", TOOL, why);
        return EXIT_USAGE;
    }
    unsigned bound_port;
    int listen_fd = http_listen(host, port, &bound_port, why, sizeof why);
    if (listen_fd < 0) {
        fprintf(stderr, "%s: %s\n", TOOL, why);
        return EXIT_FAIL;
    }

    /* The HTTP threads must not take SIGINT/SIGTERM: the reading thread's
     * blocking read is what the signal has to interrupt. */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stops, &old);
    LiveState state;
    live_state_init(&state, o.service_name, o.top);
    PageContext page;
    Source send_src = src;   /* the buttons' own copy: connects only */
    if (!page_setup(&page, &o, &state, host, bound_port, &send_src, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", TOOL, why);
        close(listen_fd);
        live_state_free(&state);
        return EXIT_FAIL;
    }
    HttpServer *http = http_start(listen_fd, &state, &state_lock, &page, why, sizeof why);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;   /* no SA_RESTART: a blocked read returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (http == NULL) {
        fprintf(stderr, "%s: %s\n", TOOL, why);
        close(listen_fd);
        live_state_free(&state);
        live_page_free(page.page);
        return EXIT_FAIL;
    }
    fprintf(stderr, "%s: serving http://%s%s%s:%u/metrics and /debug/pprof/heap%s\n", TOOL,
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", bound_port,
            page.page != NULL ? ", and the live page at /" : "");

    int ok = read_streams(&src, &state, page.page);
    while (ok && !stop_requested) {
        struct timespec ts = { .tv_sec = 0, .tv_nsec = 200000000L };
        nanosleep(&ts, NULL);
    }
    http_stop(http);
    live_state_free(&state);
    live_page_free(page.page);
    return ok ? EXIT_OK : EXIT_FAIL;
}
