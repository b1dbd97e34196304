/*
 * eventlog/EventLog.c -- writes GHC's eventlog format: the header that
 * declares every event type strata emits, the start-up events, then each
 * event as the runtime posts it, then the data-end marker.  Events are
 * posted by the table of wire/EventFormat.c (Note [Posting by the
 * table]); the buffers, the blocks and the output are EventBuffers.c's.
 * Relies on its configuration (EventLogConfig) for -l/-ol.  The format
 * is strata/EventLogFormat.h; the design and its invariants (.inv.*) are
 * in docs/design/eventlog.md.
 *
 * Capability 0's buffer holds the GC and user events, the global one the
 * capsets, process identity, heap profile and IPE entries, as in GHC.
 * Only the mutator thread calls in here (.inv.mutator-only).
 */
#include "EventLog.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Capability.h"
#include "EventBuffers.h"
#include "EventFormat.h"
#include "Messages.h"
#include "os/Process.h"
#include "strata/Config.h"
#include "strata/EventLogFormat.h"

/* The event types strata emits are the table's `emitted` entries
 * (wire/EventFormat.c), declared in the header in table order
 * (.inv.declared: nothing else is ever posted). */

static const EventLogWriter *chosen_writer = NULL;   /* NULL: file writer */
static bool enabled;          /* started and not stopped: events are posted */
static unsigned classes;      /* eventlog_config.classes at start */

static bool class_on(unsigned cls)
{
    return enabled && (classes & cls) != 0;
}

/* ----------------------------------------------------------------------
 * Posting by the table
 * ---------------------------------------------------------------------- */

/* Note [Posting by the table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An event whose payload is integers only is posted by its row of the
 * event format's table (Note [One table for the event format] in
 * wire/EventFormat.c): the values in the row's order, each written in its
 * field's width, and the payload's size the row's.  Posting such an event
 * is then one call, eventlog_post_fields, and a new one is a row of the
 * table (marked `emitted`, so that the header declares it) and that
 * call: no code of its own to get out of step with the table.  Events
 * with strings (user messages, labels, IPE entries) keep a function each:
 * their strings are repaired and clamped (Note [Strings in events] in
 * EventBuffers.c). */

#define N_EVENT_IDS 256
static const EventFormat *format_by_id[N_EVENT_IDS];   /* the emitted ones, from start */

static const EventFormat *format_of(uint16_t type)
{
    if (type < N_EVENT_IDS && format_by_id[type] != NULL)
        return format_by_id[type];
    return event_format_find(type);
}

static void post_fields(EventBuf *b, uint16_t type, const uint64_t *values)
{
    const EventFormat *f = format_of(type);
    ASSERT(f != NULL && f->emitted && f->size != EVENT_SIZE_VARIABLE);
    uint8_t *p = evbuf_event_begin(b, type, f->size);
    for (size_t i = 0; i < f->n_fields; i++) {
        switch (f->fields[i].kind) {
        case EVENT_FIELD_U8: p = evbuf_put8(p, (uint8_t)values[i]); break;
        case EVENT_FIELD_U16: p = evbuf_put16(p, (uint16_t)values[i]); break;
        case EVENT_FIELD_U32: p = evbuf_put32(p, (uint32_t)values[i]); break;
        case EVENT_FIELD_U64: p = evbuf_put64(p, values[i]); break;
        default: rts_panic("eventlog: event %u has a field that is not an integer", type);
        }
    }
    evbuf_event_end(b, p);
}

void eventlog_post_fields(unsigned cls, uint16_t type, const uint64_t *values)
{
    if (!class_on(cls))
        return;
    EventBuf *b = evbuf_take();
    post_fields(b, type, values);
    evbuf_give(b);
}

/* An event of no capability (capsets, process identity, the heap
 * profile's samples): the global buffer. */
static void post_global_fields(uint16_t type, const uint64_t *values)
{
    EventBuf *g = evbuf_global_take();
    post_fields(g, type, values);
    evbuf_global_give(g);
}

static void index_formats(void)
{
    for (size_t i = 0; i < n_event_formats; i++)
        if (event_formats[i].emitted && event_formats[i].id < N_EVENT_IDS)
            format_by_id[event_formats[i].id] = &event_formats[i];
}

/* ----------------------------------------------------------------------
 * The header and the start-up events
 * ---------------------------------------------------------------------- */

static bool write_header(void)
{
    size_t len = 5 * 4;
    for (size_t i = 0; i < n_event_formats; i++)
        if (event_formats[i].emitted)
            len += 4 + 2 + 2 + 4 + strlen(event_formats[i].description) + 4 + 4;
    uint8_t *h = malloc(len);
    if (h == NULL)
        return false;
    uint8_t *p = h;
    p = evbuf_put32(p, EVENT_HEADER_BEGIN);
    p = evbuf_put32(p, EVENT_HET_BEGIN);
    for (size_t i = 0; i < n_event_formats; i++) {
        const EventFormat *f = &event_formats[i];
        if (!f->emitted)
            continue;
        const char *desc = f->description;
        size_t dlen = strlen(desc);
        p = evbuf_put32(p, EVENT_ET_BEGIN);
        p = evbuf_put16(p, f->id);
        p = evbuf_put16(p, f->size);
        p = evbuf_put32(p, (uint32_t)dlen);
        memcpy(p, desc, dlen);
        p += dlen;
        p = evbuf_put32(p, 0);   /* no extra info */
        p = evbuf_put32(p, EVENT_ET_END);
    }
    p = evbuf_put32(p, EVENT_HET_END);
    p = evbuf_put32(p, EVENT_HEADER_END);
    p = evbuf_put32(p, EVENT_DATA_BEGIN);
    ASSERT((size_t)(p - h) == len);
    evbufs_write_header(h, (size_t)(p - h));
    free(h);
    return true;
}

static void post_wall_clock_time(void)
{
    struct timespec now;
    if (timespec_get(&now, TIME_UTC) != TIME_UTC)
        now = (struct timespec){0, 0};
    /* The event's timestamp is taken right after the wall clock. */
    post_global_fields(EVENT_WALL_CLOCK_TIME,
                       (uint64_t[]){STRATA_CAPSET_CLOCKDOMAIN, (uint64_t)now.tv_sec,
                                    (uint64_t)now.tv_nsec});
}

static void post_rts_identifier(void)
{
    static const char ident[] = "strata-" STRATA_VERSION " rts_strata";
    size_t n = sizeof ident - 1;
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_RTS_IDENTIFIER, 4 + n);
    uint8_t *p = evbuf_put32(start, STRATA_CAPSET_OSPROCESS);
    p = evbuf_put_text(p, ident, n, n);
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

/* Each argument repaired and NUL-terminated (repair keeps the length);
 * arguments that would overflow the payload are left out. */
static void post_program_args(int argc, char **argv)
{
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_PROGRAM_ARGS, EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = evbuf_put32(start, STRATA_CAPSET_OSPROCESS);
    for (int i = 0; i < argc && argv != NULL && argv[i] != NULL; i++) {
        size_t n = strlen(argv[i]) + 1;
        if ((size_t)(p - start) + n > EVENT_PAYLOAD_SIZE_MAX)
            break;
        p = evbuf_put_cstring(p, argv[i], n);
    }
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

static void post_heap_info(void)
{
    post_global_fields(EVENT_HEAP_INFO_GHC,
                       (uint64_t[]){STRATA_CAPSET_OSPROCESS, eventlog_config.generations,
                                    eventlog_config.max_heap_bytes, eventlog_config.nursery_bytes,
                                    MBLOCK_SIZE, BLOCK_SIZE});
}

/* The capsets, the capabilities, the clock, the pids, the RTS and the
 * arguments, in GHC's order. */
static void post_start_up(int argc, char **argv)
{
    post_global_fields(EVENT_CAPSET_CREATE,
                       (uint64_t[]){STRATA_CAPSET_OSPROCESS, CAPSET_TYPE_OSPROCESS});
    post_global_fields(EVENT_CAPSET_CREATE,
                       (uint64_t[]){STRATA_CAPSET_CLOCKDOMAIN, CAPSET_TYPE_CLOCKDOMAIN});
    for (unsigned c = 0; c < evbufs_n_caps(); c++) {
        post_global_fields(EVENT_CAPSET_ASSIGN_CAP, (uint64_t[]){STRATA_CAPSET_OSPROCESS, c});
        post_global_fields(EVENT_CAPSET_ASSIGN_CAP, (uint64_t[]){STRATA_CAPSET_CLOCKDOMAIN, c});
        /* CAP_CREATE goes in the capability's own buffer (no other thread posts yet). */
        post_fields(evbuf_of_cap(c), EVENT_CAP_CREATE, (uint64_t[]){c});
    }
    post_wall_clock_time();
    post_global_fields(EVENT_OSPROCESS_PID,
                       (uint64_t[]){STRATA_CAPSET_OSPROCESS, (uint64_t)os_process_id()});
    post_global_fields(EVENT_OSPROCESS_PPID,
                       (uint64_t[]){STRATA_CAPSET_OSPROCESS, (uint64_t)os_process_parent_id()});
    post_rts_identifier();
    post_program_args(argc, argv);
    post_heap_info();
}

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

void eventlog_set_writer(const EventLogWriter *w)
{
    chosen_writer = w;
}

EventLogConfig eventlog_config;

bool eventlog_start(const EventLogConfig *config, int argc, char **argv)
{
    if (!config->enabled || enabled)
        return true;
    eventlog_config = *config;
    classes = eventlog_config.classes;
    index_formats();
    unsigned n_caps = config->capabilities > 0 ? config->capabilities : 1;
    if (!evbufs_init(n_caps)) {
        rts_error("eventlog: out of C heap allocating buffers (bytes=%zu)",
                  (size_t)(n_caps + 1) * EVENTLOG_BUFFER_BYTES);
        evbufs_free();
        return false;
    }
    if (!evbufs_writer_start(chosen_writer != NULL ? chosen_writer : &eventlog_file_writer)) {
        evbufs_free();
        return true;   /* reported; the program runs without the eventlog */
    }
    enabled = true;
    if (!write_header()) {
        rts_error("eventlog: out of C heap writing the header");
        enabled = false;
        evbufs_writer_stop();
        evbufs_free();
        return false;
    }
    post_start_up(argc, argv);
    /* The capsets go out first: every capability's events refer to them. */
    evbufs_flush_all();
    return true;
}

bool eventlog_enabled(void)
{
    return enabled;
}

bool eventlog_check(void)
{
    if (!enabled)
        return true;   /* stopped or never started */
    return evbufs_check();
}

/* Every capability's buffer is written out: with several capabilities the
 * world is stopped for it (Note [One buffer per capability] in
 * EventBuffers.c).  A thread that holds no capability flushes the global
 * buffer only. */
void eventlog_flush(void)
{
    if (!enabled)
        return;
    if (capabilities_n == 0) {
        evbufs_flush_all();
        return;
    }
    if (capability_mine() == NULL) {
        evbufs_flush_global();
        return;
    }
    capability_stop_world_own();
    evbufs_flush_all();
    capability_resume_world();
}

void eventlog_stop(void)
{
    if (enabled) {
        for (unsigned c = 0; c < evbufs_n_caps(); c++) {
            post_fields(evbuf_of_cap(c), EVENT_CAP_DELETE, (uint64_t[]){c});
            post_global_fields(EVENT_CAPSET_REMOVE_CAP,
                               (uint64_t[]){STRATA_CAPSET_OSPROCESS, c});
        }
        post_global_fields(EVENT_CAPSET_DELETE, (uint64_t[]){STRATA_CAPSET_OSPROCESS});
        post_global_fields(EVENT_CAPSET_DELETE, (uint64_t[]){STRATA_CAPSET_CLOCKDOMAIN});
        evbufs_flush_all();
        evbufs_finish();
        enabled = false;
    }
    evbufs_free();
}

/* ----------------------------------------------------------------------
 * Thread events (class 's', the capability's buffer)
 * ---------------------------------------------------------------------- */

void eventlog_post_create_thread(uint32_t thread)
{
    eventlog_post_fields(EVENTLOG_CLASS_SCHED, EVENT_CREATE_THREAD, (uint64_t[]){thread});
}

void eventlog_post_run_thread(uint32_t thread)
{
    eventlog_post_fields(EVENTLOG_CLASS_SCHED, EVENT_RUN_THREAD, (uint64_t[]){thread});
}

/* blocked on: no thread. */
void eventlog_post_stop_thread(uint32_t thread, uint16_t status)
{
    eventlog_post_fields(EVENTLOG_CLASS_SCHED, EVENT_STOP_THREAD,
                         (uint64_t[]){thread, status, 0});
}

/* ----------------------------------------------------------------------
 * GC and heap events (class 'g', capability 0's buffer)
 * ---------------------------------------------------------------------- */

static void post_gc_phase(uint16_t type)
{
    eventlog_post_fields(EVENTLOG_CLASS_GC, type, NULL);
}

/* GC_WORK, GC_IDLE and GC_DONE go in the buffer of the capability a GC
 * thread works for: its holder is parked, so the GC thread is the only
 * writer (Note [GC threads are the capabilities' threads] in
 * sm/GCThread.c). */
static void post_gc_phase_on(uint32_t cap, uint16_t type)
{
    if (!class_on(EVENTLOG_CLASS_GC))
        return;
    if (cap >= evbufs_n_caps()) {
        post_gc_phase(type);
        return;
    }
    post_fields(evbuf_of_cap(cap), type, NULL);
}

void eventlog_post_gc_work_on(uint32_t cap) { post_gc_phase_on(cap, EVENT_GC_WORK); }
void eventlog_post_gc_idle_on(uint32_t cap) { post_gc_phase_on(cap, EVENT_GC_IDLE); }
void eventlog_post_gc_done_on(uint32_t cap) { post_gc_phase_on(cap, EVENT_GC_DONE); }
void eventlog_post_request_seq_gc(void) { post_gc_phase(EVENT_REQUEST_SEQ_GC); }
void eventlog_post_request_par_gc(void) { post_gc_phase(EVENT_REQUEST_PAR_GC); }
void eventlog_post_gc_global_sync(void) { post_gc_phase(EVENT_GC_GLOBAL_SYNC); }
void eventlog_post_gc_start(void) { post_gc_phase(EVENT_GC_START); }
void eventlog_post_gc_work(void) { post_gc_phase(EVENT_GC_WORK); }
void eventlog_post_gc_idle(void) { post_gc_phase(EVENT_GC_IDLE); }
void eventlog_post_gc_done(void) { post_gc_phase(EVENT_GC_DONE); }
void eventlog_post_gc_end(void) { post_gc_phase(EVENT_GC_END); }

/* HEAP_ALLOCATED, HEAP_SIZE, HEAP_LIVE, BLOCKS_SIZE: capset + Word64. */
static void post_heap_figure(uint16_t type, uint64_t bytes)
{
    eventlog_post_fields(EVENTLOG_CLASS_GC, type, (uint64_t[]){STRATA_CAPSET_OSPROCESS, bytes});
}

void eventlog_post_heap_allocated(uint64_t total_allocated_bytes)
{
    post_heap_figure(EVENT_HEAP_ALLOCATED, total_allocated_bytes);
}

void eventlog_post_heap_size(uint64_t heap_bytes)
{
    post_heap_figure(EVENT_HEAP_SIZE, heap_bytes);
}

void eventlog_post_blocks_size(uint64_t blocks_bytes)
{
    post_heap_figure(EVENT_BLOCKS_SIZE, blocks_bytes);
}

void eventlog_post_heap_live(uint64_t live_bytes)
{
    post_heap_figure(EVENT_HEAP_LIVE, live_bytes);
}

void eventlog_post_gc_stats_ghc(uint16_t gen, uint64_t copied_bytes, uint64_t slop_bytes,
                                uint64_t fragmentation_bytes, uint32_t par_n_threads,
                                uint64_t par_max_copied, uint64_t par_tot_copied,
                                uint64_t par_balanced_copied)
{
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_GC_STATS_GHC,
                         (uint64_t[]){STRATA_CAPSET_OSPROCESS, gen, copied_bytes, slop_bytes,
                                      fragmentation_bytes, par_n_threads, par_max_copied,
                                      par_tot_copied, par_balanced_copied});
}

void eventlog_post_mem_return(uint32_t current_mblocks, uint32_t needed_mblocks,
                              uint32_t returned_mblocks)
{
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_MEM_RETURN,
                         (uint64_t[]){STRATA_CAPSET_OSPROCESS, current_mblocks, needed_mblocks,
                                      returned_mblocks});
}

/* ----------------------------------------------------------------------
 * Heap-profile and IPE events (no class; the global buffer)
 * ---------------------------------------------------------------------- */

void eventlog_post_heap_prof_begin(uint64_t sampling_period_ns, uint32_t breakdown)
{
    if (!enabled)
        return;
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_HEAP_PROF_BEGIN, 1 + 8 + 4 + 7);
    uint8_t *p = evbuf_put8(start, 0);            /* profile id */
    p = evbuf_put64(p, sampling_period_ns);
    p = evbuf_put32(p, breakdown);
    for (int i = 0; i < 7; i++)             /* no filters: 7 empty strings */
        p = evbuf_put_cstring(p, "", 1);
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

static void post_sample_bracket(uint16_t type, uint64_t census_counter)
{
    if (enabled)
        post_global_fields(type, (uint64_t[]){census_counter});
}

void eventlog_post_heap_prof_sample_begin(uint64_t census_counter)
{
    post_sample_bracket(EVENT_HEAP_PROF_SAMPLE_BEGIN, census_counter);
}

void eventlog_post_heap_prof_sample_end(uint64_t census_counter)
{
    post_sample_bracket(EVENT_HEAP_PROF_SAMPLE_END, census_counter);
}

void eventlog_stamp_global(uint64_t at_ns)
{
    if (enabled)
        evbufs_stamp_global(at_ns);
}

void eventlog_post_heap_prof_sample_string(uint64_t residency_bytes, const char *label)
{
    if (!enabled)
        return;
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_HEAP_PROF_SAMPLE_STRING,
                                     EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = evbuf_put8(start, 0);            /* profile id */
    p = evbuf_put64(p, residency_bytes);
    p = evbuf_put_cstring(p, label, EVENT_PAYLOAD_SIZE_MAX - 9);
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

void eventlog_post_ipe(uint64_t info_addr, const char *table_name, const char *closure_desc,
                       const char *ty_desc, const char *label, const char *module,
                       const char *srcloc)
{
    if (!enabled)
        return;
    const char *strings[6] = {table_name, closure_desc, ty_desc, label, module, srcloc};
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_IPE, EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = evbuf_put64(start, info_addr);
    for (int i = 0; i < 6; i++) {
        /* Leave one byte for each later string's NUL. */
        size_t left = EVENT_PAYLOAD_SIZE_MAX - (size_t)(p - start) - (size_t)(5 - i);
        p = evbuf_put_cstring(p, strings[i], left);
    }
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

/* ----------------------------------------------------------------------
 * Allocation sampling (strata's own; no class; the global buffer, so that
 * a stack is defined before the samples that name it and a sample comes
 * before its death)
 * ---------------------------------------------------------------------- */

void eventlog_post_alloc_sampling(uint64_t rate_bytes)
{
    if (enabled)
        post_global_fields(EVENT_ALLOC_SAMPLING, (uint64_t[]){rate_bytes});
}

void eventlog_post_alloc_frame(uint32_t frame, const char *function, const char *file,
                               uint32_t line)
{
    if (!enabled)
        return;
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_ALLOC_FRAME, EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = evbuf_put32(start, frame);
    p = evbuf_put32(p, line);
    p = evbuf_put_cstring(p, function, (EVENT_PAYLOAD_SIZE_MAX - 9) / 2);
    p = evbuf_put_cstring(p, file, (EVENT_PAYLOAD_SIZE_MAX - 9) / 2);
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

void eventlog_post_alloc_stack(uint32_t stack, const uint32_t *frames, size_t n_frames)
{
    if (!enabled)
        return;
    if (n_frames > EVENT_ALLOC_STACK_MAX_FRAMES)
        n_frames = EVENT_ALLOC_STACK_MAX_FRAMES;
    EventBuf *g = evbuf_global_take();
    uint8_t *start = evbuf_var_event_begin(g, EVENT_ALLOC_STACK, 4 + 1 + 4 * n_frames);
    uint8_t *p = evbuf_put32(start, stack);
    p = evbuf_put8(p, (uint8_t)n_frames);
    for (size_t i = 0; i < n_frames; i++)
        p = evbuf_put32(p, frames[i]);
    evbuf_var_event_end(g, start, p);
    evbuf_global_give(g);
}

void eventlog_post_alloc_sample(uint64_t sample, uint64_t size_bytes, uint32_t stack,
                                uint64_t era, uint16_t cap, uint8_t kind)
{
    if (enabled)
        post_global_fields(EVENT_ALLOC_SAMPLE,
                           (uint64_t[]){sample, size_bytes, stack, era, cap, kind});
}

void eventlog_post_alloc_death(uint64_t sample)
{
    if (enabled)
        post_global_fields(EVENT_ALLOC_DEATH, (uint64_t[]){sample});
}

/* ----------------------------------------------------------------------
 * User events (class 'u', capability 0's buffer)
 * ---------------------------------------------------------------------- */

/* The text is the whole payload: repaired, and clamped to 65535 bytes at
 * a character boundary (Note [Strings in events] in EventBuffers.c). */
static void post_user_bytes(uint16_t type, const char *msg, size_t len)
{
    if (!class_on(EVENTLOG_CLASS_USER))
        return;
    size_t max = len < EVENT_PAYLOAD_SIZE_MAX ? len : EVENT_PAYLOAD_SIZE_MAX;
    EventBuf *b = evbuf_take();
    uint8_t *start = evbuf_var_event_begin(b, type, max);
    evbuf_var_event_end(b, start, evbuf_put_text(start, msg, len, max));
    evbuf_give(b);
}

void eventlog_post_user_msg(const char *msg, size_t len)
{
    post_user_bytes(EVENT_USER_MSG, msg, len);
}

void eventlog_post_user_marker(const char *msg, size_t len)
{
    post_user_bytes(EVENT_USER_MARKER, msg, len);
}
