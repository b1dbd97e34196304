/*
 * utils/strata-live/LiveState.c -- strata-live's figures: taken in event by
 * event from the stream (EventLogReader.h), the census through the tools'
 * heap-profile model (HeapModel.h), rendered as Prometheus' text exposition format
 * and, through Pprof.h, as a pprof profile.  Notes: [What strata-live
 * keeps], [Metric names and labels].
 */
#include "LiveState.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "AllocPprof.h"
#include "GrowArray.h"
#include "Pprof.h"
#include "TextOut.h"

/* Note [What strata-live keeps]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A stream may run for months, so nothing here grows with it: the latest
 * value of each heap figure, counters, a fixed histogram of GC pauses,
 * fixed per-capability arrays (LIVE_MAX_CAPS; a capability beyond them is
 * not counted) and, through the heap-profile model, the latest census,
 * its bands' labels and the IPE table (one entry per info table of the
 * program: Note [Censuses go by] in HeapModel.c).  Nothing of the
 * stream's past events is kept.  When a new stream begins (the program
 * restarted, a file was replaced) its figures replace the old ones: info
 * table addresses and counters belong to one run.  strata-live's own
 * counters (strata_live_*) run across streams.
 */

/* Note [Metric names and labels]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Names follow Prometheus' conventions: a strata_ prefix, base units
 * (bytes, seconds) in the name, _total on counters.  Every series carries
 * service_name (--service-name, else the program's name from the log), so
 * one Prometheus can tell programs apart; the pid and the RTS identifier,
 * which change at each restart, are labels of the one strata_program_info
 * gauge only (join on service_name), so that a restart does not start a
 * new series for every metric.
 *
 * The census is strata_heap_census_bytes, one series per band of the
 * latest census: the largest `top` bands by bytes (ties by label), and
 * the rest summed into one series with band="other", so that the number
 * of series stays bounded whatever the program allocates.  Labels:
 * breakdown (info_table, closure_type, era, ...), band (the label in the
 * log) and what the band is: for -hi info_table, closure_type, defined_in
 * ("Module.label") and source (the IPE's source location); for -hT
 * closure_type; for -he era; for -hc cost_centre_stack (the stack as
 * hp2ps names it).  Label values are escaped as the exposition
 * format asks, and control characters and invalid bytes shown as \xNN
 * (live_escape_label_value; Note [One way to write a string] in
 * wire/TextOut.c).
 */

static const double pause_bounds_seconds[LIVE_PAUSE_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
};

/* ----------------------------------------------------------------------
 * Taking in events
 * ------------------------------------------------------------------- */

static void stream_free(LiveStream *st)
{
    free(st->program);
    free(st->rts_id);
    heap_model_free(&st->census);
    alloc_model_free(&st->samples);
    memset(st, 0, sizeof *st);
}

/* A stream's census model keeps the latest census only. */
static void census_init(HeapModel *m)
{
    heap_model_init(m);
    m->latest_only = 1;
}

void live_state_init(LiveState *s, const char *service_name, size_t top)
{
    memset(s, 0, sizeof *s);
    s->service_name = service_name;
    s->top = top;
    census_init(&s->stream.census);
}

void live_state_free(LiveState *s)
{
    stream_free(&s->stream);
    stream_free(&s->pending);
}

/* Note [A preamble alone replaces nothing]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A new stream replaces the last one's figures, but not while all it has
 * sent is its preamble: the events that describe the program (capsets,
 * capabilities, identity, IPE entries; docs/design/eventlog.md, "What a
 * client is sent").  A program that is exiting often accepts strata-live's
 * reconnect, sends it the header and the preamble and closes: that
 * stream, of the run strata-live just finished reading, holds no figure,
 * and taking it as a new run would blank /metrics, which is meant to keep
 * the run's last figures.  So a stream's events go into pending until the
 * first event that is not a preamble event, which makes pending the served
 * stream; a stream that ends before that is dropped. */
static int is_preamble(uint16_t type)
{
    switch (type) {
    case EVENT_BLOCK_MARKER:
    case EVENT_CAPSET_CREATE:
    case EVENT_CAPSET_ASSIGN_CAP:
    case EVENT_CAP_CREATE:
    case EVENT_WALL_CLOCK_TIME:
    case EVENT_OSPROCESS_PID:
    case EVENT_OSPROCESS_PPID:
    case EVENT_RTS_IDENTIFIER:
    case EVENT_PROGRAM_ARGS:
    case EVENT_HEAP_INFO_GHC:
    case EVENT_HEAP_PROF_BEGIN:
    case EVENT_IPE:
    case EVENT_ALLOC_SAMPLING:
    case EVENT_ALLOC_FRAME:
    case EVENT_ALLOC_STACK:
        return 1;
    default:
        return 0;
    }
}

void live_state_stream_begin(LiveState *s)
{
    stream_free(&s->pending);
    census_init(&s->pending.census);
    s->pending_active = 1;
    s->connected = 1;
}

static void census_done(LiveStream *st);

void live_state_stream_end(LiveState *s, int ok)
{
    s->connected = 0;
    if (s->pending_active) {   /* Note [A preamble alone replaces nothing] */
        stream_free(&s->pending);
        s->pending_active = 0;
    } else if (heap_model_census_end(&s->stream.census)) {
        census_done(&s->stream);   /* the end of the stream ends a census */
    }
    if (!ok)
        s->stream_errors++;
}

static char *copy_str(LiveState *s, EvrStr str)
{
    char *c = evr_str_dup(str);
    if (c == NULL)
        s->out_of_memory = 1;
    return c;
}

static uint64_t payload_be(const EvrEvent *ev, size_t at, size_t bytes)
{
    uint64_t v = 0;
    for (size_t k = 0; k < bytes; k++)
        v = v << 8 | ev->payload[at + k];
    return v;
}

static void gc_end(LiveStream *st, const EvrEvent *ev)
{
    st->gcs++;
    if (ev->cap < 0 || ev->cap >= LIVE_MAX_CAPS || st->gc_start_ns[ev->cap] == 0)
        return;
    uint64_t start = st->gc_start_ns[ev->cap];
    st->gc_start_ns[ev->cap] = 0;
    double pause = ev->time_ns >= start ? (double)(ev->time_ns - start) / 1e9 : 0.0;
    size_t b = 0;
    while (b < LIVE_PAUSE_BUCKETS && pause > pause_bounds_seconds[b])
        b++;
    st->pause_counts[b]++;
    st->pause_sum_seconds += pause;
    st->last_pause_seconds = pause;
    st->pause_count++;
}

/* A census was read whole: count it, and note the largest era among a
 * -he census's bands. */
static void census_done(LiveStream *st)
{
    const HeapModel *m = &st->census;
    st->censuses++;
    if (m->breakdown != HEAP_PROF_BREAKDOWN_ERA)
        return;
    for (size_t i = 0; i < m->last.n; i++) {
        HmBandInfo b;
        heap_model_band_info(m, &m->last, i, &b);
        if (b.have_era && (!st->have_era || b.era > st->era)) {
            st->have_era = 1;
            st->era = b.era;
        }
    }
}

void live_state_add(LiveState *s, const EvrEvent *ev)
{
    if (s->pending_active && !is_preamble(ev->type)) {
        stream_free(&s->stream);
        s->stream = s->pending;
        memset(&s->pending, 0, sizeof s->pending);
        s->pending_active = 0;
        s->streams++;
    }
    LiveStream *st = s->pending_active ? &s->pending : &s->stream;
    s->events++;
    s->bytes += ev->size_bytes;
    if (alloc_model_add(&st->samples, ev)) {
        if (st->samples.out_of_memory)
            s->out_of_memory = 1;
        return;
    }
    if (heap_model_add(&st->census, ev))
        census_done(st);
    if (st->census.out_of_memory)
        s->out_of_memory = 1;
    switch (ev->type) {
    case EVENT_GC_START:
        if (ev->cap >= 0 && ev->cap < LIVE_MAX_CAPS)
            st->gc_start_ns[ev->cap] = ev->time_ns ? ev->time_ns : 1;
        return;
    case EVENT_GC_END:
        gc_end(st, ev);
        return;
    case EVENT_GC_STATS_GHC:
        /* CapsetId, Word16 generation, Word64 copied bytes, ... */
        if (ev->payload_bytes >= 14)
            st->copied_bytes += payload_be(ev, 6, 8);
        return;
    case EVENT_OSPROCESS_PID:
        /* CapsetId, Word32 pid */
        if (ev->payload_bytes >= 8 && !st->have_pid) {
            st->have_pid = 1;
            st->pid = (uint32_t)payload_be(ev, 4, 4);
        }
        return;
    default:
        break;
    }
    if (!ev->decoded)
        return;
    switch (ev->type) {
    case EVENT_PROGRAM_ARGS:
        if (st->program == NULL) {
            EvrStr a = ev->u.args.args;
            const char *nul = memchr(a.ptr, '\0', a.len);
            a.len = nul ? (size_t)(nul - a.ptr) : a.len;
            st->program = copy_str(s, a);
        }
        break;
    case EVENT_RTS_IDENTIFIER:
        if (st->rts_id == NULL)
            st->rts_id = copy_str(s, ev->u.rts_id.ident);
        break;
    case EVENT_HEAP_SIZE:
        st->have_heap_size = 1;
        st->heap_size_bytes = ev->u.heap.bytes;
        break;
    case EVENT_HEAP_LIVE:
        st->have_heap_live = 1;
        st->heap_live_bytes = ev->u.heap.bytes;
        break;
    case EVENT_BLOCKS_SIZE:
        st->have_blocks_size = 1;
        st->blocks_size_bytes = ev->u.heap.bytes;
        break;
    case EVENT_HEAP_ALLOCATED:
        /* GHC posts each capability's own total, to be summed; strata's
         * runtime posts the process's total on the capability that ran
         * the GC, one series whichever capability carries it. */
        if (st->rts_id != NULL && strncmp(st->rts_id, "strata", 6) == 0) {
            st->have_allocated = 1;
            st->allocated_bytes[0] = ev->u.heap.bytes;
        } else if (ev->cap >= 0 && ev->cap < LIVE_MAX_CAPS) {
            st->have_allocated = 1;
            st->allocated_bytes[ev->cap] = ev->u.heap.bytes;
        } else if (ev->cap < 0) {
            st->have_allocated = 1;
            st->allocated_bytes[0] = ev->u.heap.bytes;
        }
        break;
    default:
        break;
    }
}

/* ----------------------------------------------------------------------
 * Label values
 * ------------------------------------------------------------------- */

size_t live_escape_label_value(char *out, const char *s, size_t len)
{
    return text_escape(out, TEXT_ESCAPED_MAX(len) + 1, s, len, TEXT_PROMETHEUS);
}

/* ----------------------------------------------------------------------
 * Rendering /metrics
 * ------------------------------------------------------------------- */

typedef struct Out {
    char *buf;
    size_t len, cap;
    int failed;
} Out;

static int out_reserve(Out *o, size_t more)
{
    if (o->failed)
        return 0;
    if (more > SIZE_MAX - 1 - o->len ||
        GROW_ARRAY_RESERVE_MIN(o->buf, o->cap, o->len + more + 1, 4096) != 0) {
        o->failed = 1;
        return 0;
    }
    return 1;
}

__attribute__((format(printf, 2, 3)))
static void out_printf(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !out_reserve(o, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
}

/* name="value", the value escaped; a comma before it unless first. */
static void out_label(Out *o, int *first, const char *name, const char *v, size_t len)
{
    if (!out_reserve(o, strlen(name) + 4 + TEXT_ESCAPED_MAX(len)))
        return;
    o->len += (size_t)sprintf(o->buf + o->len, "%s%s=\"", *first ? "" : ",", name);
    o->len += live_escape_label_value(o->buf + o->len, v, len);
    o->buf[o->len++] = '"';
    o->buf[o->len] = '\0';
    *first = 0;
}

static void out_label_cstr(Out *o, int *first, const char *name, const char *v)
{
    out_label(o, first, name, v, strlen(v));
}

static const char *service_name(const LiveState *s)
{
    if (s->service_name != NULL)
        return s->service_name;
    if (s->stream.program != NULL) {
        const char *slash = strrchr(s->stream.program, '/');
        return slash != NULL && slash[1] != '\0' ? slash + 1 : s->stream.program;
    }
    return "unknown";
}

static void out_help(Out *o, const char *name, const char *type, const char *help)
{
    out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample "name{service_name="..."} value". */
static void out_sample(Out *o, const LiveState *s, const char *name, const char *value)
{
    int first = 1;
    out_printf(o, "%s{", name);
    out_label_cstr(o, &first, "service_name", service_name(s));
    out_printf(o, "} %s\n", value);
}

static void out_gauge_u64(Out *o, const LiveState *s, const char *name, const char *type,
                          const char *help, uint64_t v)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, v);
    out_help(o, name, type, help);
    out_sample(o, s, name, num);
}

static void render_program(Out *o, const LiveState *s)
{
    const LiveStream *st = &s->stream;
    out_help(o, "strata_program_info", "gauge",
             "The program whose eventlog is read: its pid, RTS and name (value 1).");
    int first = 1;
    out_printf(o, "strata_program_info{");
    out_label_cstr(o, &first, "service_name", service_name(s));
    char pid[16] = "";
    if (st->have_pid)
        snprintf(pid, sizeof pid, "%" PRIu32, st->pid);
    out_label_cstr(o, &first, "pid", pid);
    out_label_cstr(o, &first, "rts", st->rts_id ? st->rts_id : "");
    out_label_cstr(o, &first, "program", st->program ? st->program : "");
    out_printf(o, "} 1\n");
}

static void render_gc(Out *o, const LiveState *s)
{
    const LiveStream *st = &s->stream;
    out_gauge_u64(o, s, "strata_gc_collections_total", "counter",
                  "Garbage collections finished.", st->gcs);
    out_gauge_u64(o, s, "strata_gc_copied_bytes_total", "counter",
                  "Bytes copied by the garbage collector.", st->copied_bytes);
    out_help(o, "strata_gc_pause_seconds", "histogram",
             "Garbage collection pauses (GC start to GC end).");
    uint64_t cum = 0;
    for (size_t b = 0; b <= LIVE_PAUSE_BUCKETS; b++) {
        cum += st->pause_counts[b];
        char le[32];
        if (b < LIVE_PAUSE_BUCKETS)
            snprintf(le, sizeof le, "%g", pause_bounds_seconds[b]);
        else
            snprintf(le, sizeof le, "+Inf");
        int first = 1;
        out_printf(o, "strata_gc_pause_seconds_bucket{");
        out_label_cstr(o, &first, "service_name", service_name(s));
        out_label_cstr(o, &first, "le", le);
        out_printf(o, "} %" PRIu64 "\n", cum);
    }
    char v[48];
    snprintf(v, sizeof v, "%.9f", st->pause_sum_seconds);
    out_sample(o, s, "strata_gc_pause_seconds_sum", v);
    snprintf(v, sizeof v, "%" PRIu64, st->pause_count);
    out_sample(o, s, "strata_gc_pause_seconds_count", v);
}

static void render_band(Out *o, const LiveState *s, const HmBandInfo *b, uint64_t bytes)
{
    const HeapModel *hc = &s->stream.census;
    int first = 1;
    out_printf(o, "strata_heap_census_bytes{");
    out_label_cstr(o, &first, "service_name", service_name(s));
    out_label_cstr(o, &first, "breakdown", heap_model_breakdown_name(hc->breakdown));
    out_label(o, &first, "band", b->label.ptr, b->label.len);
    if (hc->breakdown == HEAP_PROF_BREAKDOWN_INFO_TABLE && b->info != 0) {
        out_label(o, &first, "info_table", b->name.ptr, b->name.len);
        size_t len = b->module.len + 1 + b->fn.len;
        char *def = malloc(len + 1);
        if (def == NULL) {
            o->failed = 1;
            return;
        }
        int n = snprintf(def, len + 1, "%.*s%s%.*s", (int)b->module.len, b->module.ptr,
                         b->module.len && b->fn.len ? "." : "", (int)b->fn.len, b->fn.ptr);
        out_label(o, &first, "defined_in", def, (size_t)n);
        free(def);
        out_label(o, &first, "source", b->srcloc.ptr, b->srcloc.len);
    }
    if (b->is_stack)
        out_label(o, &first, "cost_centre_stack", b->name.ptr, b->name.len);
    if (b->closure_type != NULL)
        out_label_cstr(o, &first, "closure_type", b->closure_type);
    if (b->have_era) {
        char era[24];
        snprintf(era, sizeof era, "%" PRIu64, b->era);
        out_label_cstr(o, &first, "era", era);
    }
    out_printf(o, "} %" PRIu64 "\n", bytes);
}

/* See Note [Metric names and labels] for the bands shown. */
static void render_census(Out *o, const LiveState *s)
{
    const HeapModel *hc = &s->stream.census;
    out_help(o, "strata_heap_census_bytes", "gauge",
             "Live bytes per band of the latest heap census (the largest bands; "
             "the rest summed as band=\"other\").");
    if (!hc->have_last)
        return;
    const HmCensus *c = &hc->last;
    size_t n = c->n;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (order == NULL) {
        o->failed = 1;
        return;
    }
    heap_model_rank(hc, c, order);
    size_t shown = n < s->top ? n : s->top;
    int other_taken = 0;
    for (size_t k = 0; k < shown; k++) {
        HmBandInfo b;
        heap_model_band_info(hc, c, order[k], &b);
        if (b.label.len == 5 && memcmp(b.label.ptr, "other", 5) == 0)
            other_taken = 1;
        render_band(o, s, &b, c->e[order[k]].bytes);
    }
    if (shown < n) {
        uint64_t rest = 0;
        for (size_t k = shown; k < n; k++)
            rest += c->e[order[k]].bytes;
        const char *name = other_taken ? "other (rest)" : "other";
        int first = 1;
        out_printf(o, "strata_heap_census_bytes{");
        out_label_cstr(o, &first, "service_name", service_name(s));
        out_label_cstr(o, &first, "breakdown", heap_model_breakdown_name(hc->breakdown));
        out_label_cstr(o, &first, "band", name);
        out_printf(o, "} %" PRIu64 "\n", rest);
    }
    free(order);
    out_gauge_u64(o, s, "strata_heap_census_bands", "gauge",
                  "Bands in the latest heap census (all of them, shown or summed).", n);
    out_gauge_u64(o, s, "strata_heap_census_total_bytes", "gauge",
                  "Live bytes in the latest heap census, all bands.", c->total_bytes);
    out_gauge_u64(o, s, "strata_heap_census_number", "gauge",
                  "The latest census's number in its run (1 = the first).", c->number);
}

char *live_state_render_metrics(const LiveState *s, size_t *len_out)
{
    const LiveStream *st = &s->stream;
    Out o = { 0 };
    render_program(&o, s);
    if (st->have_heap_size)
        out_gauge_u64(&o, s, "strata_heap_size_bytes", "gauge",
                      "Heap size: memory the heap holds from the OS.", st->heap_size_bytes);
    if (st->have_heap_live)
        out_gauge_u64(&o, s, "strata_heap_live_bytes", "gauge",
                      "Live bytes after the latest major GC.", st->heap_live_bytes);
    if (st->have_blocks_size)
        out_gauge_u64(&o, s, "strata_heap_blocks_bytes", "gauge",
                      "Bytes in allocated blocks.", st->blocks_size_bytes);
    if (st->have_allocated) {
        uint64_t total = 0;
        for (size_t k = 0; k < LIVE_MAX_CAPS; k++)
            total += st->allocated_bytes[k];
        out_gauge_u64(&o, s, "strata_heap_allocated_bytes_total", "counter",
                      "Bytes allocated since the program started.", total);
    }
    render_gc(&o, s);
    if (st->have_era)
        out_gauge_u64(&o, s, "strata_era_current", "gauge",
                      "The largest era in the latest -he census.", st->era);
    out_gauge_u64(&o, s, "strata_heap_censuses_total", "counter",
                  "Heap censuses read from this run's stream.", st->censuses);
    render_census(&o, s);
    out_gauge_u64(&o, s, "strata_live_streams_total", "counter",
                  "Eventlog streams that strata-live took figures from.", s->streams);
    out_gauge_u64(&o, s, "strata_live_stream_errors_total", "counter",
                  "Streams that ended in a malformed event or a read error.",
                  s->stream_errors);
    out_gauge_u64(&o, s, "strata_live_events_total", "counter",
                  "Events strata-live has read.", s->events);
    out_gauge_u64(&o, s, "strata_live_read_bytes_total", "counter",
                  "Eventlog bytes strata-live has read (events, after the header).",
                  s->bytes);
    out_gauge_u64(&o, s, "strata_live_connected", "gauge",
                  "1 while a stream is being read.", (uint64_t)s->connected);
    if (o.failed || !out_reserve(&o, 0)) {
        free(o.buf);
        return NULL;
    }
    o.buf[o.len] = '\0';
    *len_out = o.len;
    return o.buf;
}

/* The stream's sampled allocations as a profile (AllocPprof.h). */
static int render_samples(const LiveState *s, LiveProfile which, uint64_t era_lo,
                          uint64_t era_hi, uint8_t **out, size_t *out_bytes, const char **why)
{
    const AllocModel *am = &s->stream.samples;
    const HeapModel *hc = &s->stream.census;
    char comment[256];
    snprintf(comment, sizeof comment,
             "%s: sampled allocations, one per %" PRIu64 " bytes, %" PRIu64 " samples, %zu alive",
             service_name(s), am->rate_bytes, am->n_samples, am->n_live);
    const char *comments[] = {comment};
    AllocPprofOptions o = {
        .alloc_default = which == LIVE_PROFILE_ALLOCS,
        .era_lo = era_lo,
        .era_hi = era_hi,
        .main_binary = s->stream.program,
    };
    if (hc->have_wall_clock && am->last_time_ns >= hc->wall_event_ns)
        o.time_nanos = (int64_t)(hc->wall_ns + (am->last_time_ns - hc->wall_event_ns));
    return pprof_encode_alloc(am, &o, comments, 1, out, out_bytes, why);
}

int live_state_render_pprof(const LiveState *s, LiveProfile which, uint64_t era_lo,
                            uint64_t era_hi, uint8_t **out, size_t *out_bytes,
                            const char **why)
{
    if (s->stream.samples.have_sampling)
        return render_samples(s, which, era_lo, era_hi, out, out_bytes, why);
    if (which == LIVE_PROFILE_ALLOCS) {
        *why = "no sampled allocations: run the program with +RTS --alloc-sample";
        return 0;
    }
    const HeapModel *hc = &s->stream.census;
    if (!hc->have_last) {
        *why = "no census yet, and no sampled allocations (+RTS --alloc-sample)";
        return 0;
    }
    char comment[256];
    snprintf(comment, sizeof comment, "%s: census %" PRIu64 " (%s)", service_name(s),
             hc->last.number, heap_model_breakdown_name(hc->breakdown));
    const char *comments[] = { comment };
    return pprof_encode_census(hc, &hc->last, comments, 1, out, out_bytes, why);
}
