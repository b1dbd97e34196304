/*
 * utils/strata-live/main.c -- strata-live: reads a program's eventlog as it
 * is written (Source.h), keeps its heap figures and latest census
 * (LiveState.h) and serves them over HTTP (Http.h) to Prometheus and to
 * pprof's tools.  This file parses the command line and runs the reading
 * loop; the HTTP server runs in libmicrohttpd's thread and reads the state
 * under one lock.  Usage: docs/strata-live.md.
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

#include "Http.h"
#include "LiveState.h"
#include "Source.h"

#define TOOL "strata-live"
#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define DEFAULT_LISTEN "127.0.0.1:9465"
#define DEFAULT_TOP 20
#define MAX_TOP 10000

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
} Options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s (--socket PATH | --tcp HOST:PORT | --file LOG | -)\n"
            "                   [--listen HOST:PORT] [--service-name NAME] [--top N]\n"
            "Reads a program's eventlog as it is written and serves its heap figures:\n"
            "  /metrics           Prometheus text format (heap, GC, the latest census)\n"
            "  /debug/pprof/heap  the latest census as a gzipped pprof profile\n"
            "  --socket PATH      the program's Unix socket (+RTS --eventlog-socket=PATH)\n"
            "  --tcp HOST:PORT    the program's TCP eventlog socket\n"
            "  --file LOG         a log file, followed as it grows\n"
            "  -                  standard input\n"
            "  --listen HOST:PORT where to serve (default %s; port 0: any)\n"
            "  --service-name S   the service_name label (default: the program's name)\n"
            "  --top N            census bands shown, the rest summed as \"other\" "
            "(default %d)\n"
            "See docs/strata-live.md.\n",
            TOOL, DEFAULT_LISTEN, DEFAULT_TOP);
}

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", TOOL);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fprintf(stderr, "%s: run '%s --help' for usage\n", TOOL, TOOL);
    return EXIT_USAGE;
}

/* The value of option argv[*i], or NULL (and an error printed). */
static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int add_source(Options *o, SourceKind kind, const char *where)
{
    o->n_sources++;
    o->kind = kind;
    o->where = where;
    return 1;
}

/* Returns -1 to go on, or an exit code. */
static int parse_options(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    o->listen = DEFAULT_LISTEN;
    o->top = DEFAULT_TOP;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "-") == 0) {
            add_source(o, SOURCE_STDIN, "-");
        } else if (strcmp(a, "--socket") == 0 || strcmp(a, "--tcp") == 0 ||
                   strcmp(a, "--file") == 0) {
            if ((v = option_value(argc, argv, &i)) == NULL)
                return EXIT_USAGE;
            add_source(o, a[2] == 's' ? SOURCE_SOCKET : a[2] == 't' ? SOURCE_TCP : SOURCE_FILE,
                       v);
        } else if (strcmp(a, "--listen") == 0) {
            if ((o->listen = option_value(argc, argv, &i)) == NULL)
                return EXIT_USAGE;
        } else if (strcmp(a, "--service-name") == 0) {
            if ((o->service_name = option_value(argc, argv, &i)) == NULL)
                return EXIT_USAGE;
            if (o->service_name[0] == '\0')
                return usage_error("--service-name: the name is empty");
        } else if (strcmp(a, "--top") == 0) {
            if ((v = option_value(argc, argv, &i)) == NULL)
                return EXIT_USAGE;
            char *end;
            errno = 0;
            unsigned long n = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0;
            if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n < 1 ||
                n > MAX_TOP) {
                fprintf(stderr, "%s: --top takes a number of bands from 1 to %d, not '%s'\n",
                        TOOL, MAX_TOP, v);
                return EXIT_USAGE;
            }
            o->top = n;
        } else if (a[0] == '-') {
            return usage_error("unknown option: %s", a);
        } else {
            return usage_error("unexpected argument: %s (a log file is given with --file)",
                               a);
        }
    }
    if (o->n_sources == 0)
        return usage_error("no eventlog source: give one of --socket PATH, --tcp HOST:PORT, "
                           "--file LOG or -");
    if (o->n_sources > 1)
        return usage_error("give one eventlog source, not %d", o->n_sources);
    return -1;
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

/* Reads one stream to its end.  Returns 1 to go on to the next stream, 0
 * to stop reading (a fatal error was reported into *fatal). */
static int read_stream(Source *src, LiveState *state, int *fatal)
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
        if (n_events == 0)
            live_state_stream_begin(state);
        live_state_add(state, &ev);
        pthread_mutex_unlock(&state_lock);
        n_events++;
    }
    int ok = rc == 0;
    if (rc < 0 && !stop_requested && !src->replaced) {
        fprintf(stderr, "%s: %s: %s\n", TOOL, evr_name(r), evr_error(r));
        /* Not an eventlog at all (no event, and not cut short): waiting
         * for the next stream would not mend it.  A lost connection is not
         * that (Note [A lost connection is not a bad stream] in Source.c). */
        if (n_events == 0 && !src->saw_eof && !src->conn_lost)
            *fatal = 1;
    } else if (rc == 0 && n_events > 0) {
        fprintf(stderr, "%s: %s: stream ended after %" PRIu64 " events%s; serving its last "
                        "figures\n", TOOL, evr_name(r), n_events,
                evr_saw_data_end(r) ? "" : " (no data end marker)");
    }
    pthread_mutex_lock(&state_lock);
    live_state_stream_end(state, ok || stop_requested || src->replaced);
    pthread_mutex_unlock(&state_lock);
    evr_close(r);
    return !*fatal;
}

/* Streams one after another until there are no more, or a signal. */
static int read_streams(Source *src, LiveState *state)
{
    char why[512];
    int fatal = 0;
    while (!stop_requested) {
        int rc = source_open(src, why, sizeof why);
        if (rc < 0) {
            fprintf(stderr, "%s: %s\n", TOOL, why);
            return 0;
        }
        if (rc == 0)
            break;
        int go_on = read_stream(src, state, &fatal);
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
    HttpServer *http = http_start(listen_fd, &state, &state_lock, why, sizeof why);
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
        return EXIT_FAIL;
    }
    fprintf(stderr, "%s: serving http://%s%s%s:%u/metrics and /debug/pprof/heap\n", TOOL,
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", bound_port);

    int ok = read_streams(&src, &state);
    while (ok && !stop_requested) {
        struct timespec ts = { .tv_sec = 0, .tv_nsec = 200000000L };
        nanosleep(&ts, NULL);
    }
    http_stop(http);
    live_state_free(&state);
    return ok ? EXIT_OK : EXIT_FAIL;
}
