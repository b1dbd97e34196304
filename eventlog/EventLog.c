/*
 * eventlog/EventLog.c -- writes GHC's eventlog format: the header that
 * declares every event type strata emits, then events in blocks, then the
 * data-end marker.  Relies on EventLogWriter for output, support/os/Clock for
 * timestamps and its configuration (EventLogConfig) for -l/-ol.  The format is
 * strata/EventLogFormat.h; the design and its invariants (.inv.*) are in
 * docs/design/eventlog.md.
 *
 * There are two buffers: capability 0's (GC and user events) and the
 * global one (capsets, process identity, heap profile, IPE), as in GHC.
 * Each begins with a BLOCK_MARKER whose size and end time are patched when
 * the buffer is flushed.  Only the mutator thread calls in here
 * (.inv.mutator-only).
 */
#include "EventLog.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Capability.h"
#include "EventFormat.h"
#include "Messages.h"
#include "os/Thread.h"
#include "os/Clock.h"
#include "os/Process.h"
#include "strata/Config.h"
#include "strata/EventLogFormat.h"

/* The event types strata emits are the table's `emitted` entries
 * (wire/EventFormat.c), declared in the header in table order
 * (.inv.declared: nothing else is ever posted). */

/* Bytes of the marker event: header + Word32 size + Word64 end + Word16 cap. */
#define MARKER_BYTES (EVENT_HEADER_BYTES + EVENT_SIZE_BLOCK_MARKER)

/* The most one event can take: header, length field, largest payload. */
#define EVENT_MAX_BYTES (EVENT_HEADER_BYTES + 2 + EVENT_PAYLOAD_SIZE_MAX)

typedef struct {
    uint8_t *begin;      /* EVENTLOG_BUFFER_BYTES, malloc'd */
    uint8_t *pos;        /* next free byte; begin + MARKER_BYTES after reset */
    uint16_t cap;        /* block marker cap: 0 or EVENT_CAP_GLOBAL */
    uint32_t n_events;   /* events after the marker; 0 after reset */
} EventBuf;

static const EventLogWriter *writer = &eventlog_file_writer;
static const EventLogWriter *chosen_writer = NULL;   /* NULL: file writer */
static bool enabled;          /* started and not stopped: events are posted */
static unsigned classes;      /* eventlog_config.classes at start */
static EventBuf *cap_bufs;    /* one per capability */
static unsigned n_cap_bufs;
static EventBuf global_buf;   /* cap 0xffff, under global_lock */
static OsMutex global_lock = OS_MUTEX_INIT;
static OsMutex write_lock = OS_MUTEX_INIT;   /* the writer and its counters */

/* Writing, and what a write error lost (Note [After a write error]). */
static bool write_failed;     /* a write failed: blocks are counted, not written */
static bool header_written;   /* the header reached the output */
static bool end_written;      /* the data end marker reached the output */
static uint64_t written_bytes;   /* bytes the writer accepted */
static uint64_t lost_events;     /* events (not block markers) never written */
static uint64_t lost_bytes;      /* bytes of the header and blocks never written */

/* ----------------------------------------------------------------------
 * Big-endian encoding
 * ---------------------------------------------------------------------- */

static inline uint8_t *put8(uint8_t *p, uint8_t v)
{
    *p = v;
    return p + 1;
}

static inline uint8_t *put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static inline uint8_t *put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
    return p + 4;
}

static inline uint8_t *put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
    return p + 8;
}

/* ----------------------------------------------------------------------
 * Strings
 * ---------------------------------------------------------------------- */

/* Length of the UTF-8 sequence starting at s (at most avail bytes), or 0
 * if the byte there does not start a valid one. */
static size_t utf8_sequence_len(const uint8_t *s, size_t avail)
{
    uint8_t c = s[0];
    size_t n;
    uint32_t min;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2; min = 0x80; cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3; min = 0x800; cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4; min = 0x10000; cp = c & 0x07u;
    } else {
        return 0;
    }
    if (n > avail)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* Copies at most max_bytes of src (n_src bytes) to dst as valid UTF-8:
 * each byte that starts no valid sequence becomes '?', and a sequence is
 * never cut in half.  Returns the bytes written.  See Note [Strings in
 * events]. */
static size_t utf8_copy_clamped(uint8_t *dst, const char *src, size_t n_src, size_t max_bytes)
{
    const uint8_t *s = (const uint8_t *)src;
    size_t in = 0, out = 0;
    while (in < n_src) {
        size_t n = utf8_sequence_len(s + in, n_src - in);
        if (n == 0) {
            if (out + 1 > max_bytes)
                break;
            dst[out++] = '?';
            in++;
            continue;
        }
        if (out + n > max_bytes)
            break;
        memcpy(dst + out, s + in, n);
        out += n;
        in += n;
    }
    return out;
}

/* Note [Strings in events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * ghc-events decodes every string field as UTF-8 and fails the whole parse
 * on invalid bytes, and every payload must fit its Word16 length.  User
 * messages and markers, argv, labels from user code and DWARF: nothing
 * guarantees either.  So every string an event carries goes through
 * put_text (put_cstring adds the NUL), which repairs rather than rejects:
 * an invalid byte becomes '?', and a string that does not fit is cut at a
 * character boundary.  No string is memcpy'd into a payload elsewhere
 * (.inv.utf8).  An embedded NUL cannot occur in the NUL-terminated
 * fields, since the inputs are C strings; in user events, whose length
 * the payload length carries, U+0000 is valid UTF-8 and kept. */

/* Writes n bytes of s as repaired UTF-8, at most max_bytes of them. */
static uint8_t *put_text(uint8_t *p, const char *s, size_t n, size_t max_bytes)
{
    return p + utf8_copy_clamped(p, s, n, max_bytes);
}

/* Writes s (NULL = "") as repaired UTF-8 plus NUL, within max_bytes
 * including the NUL (max_bytes >= 1). */
static uint8_t *put_cstring(uint8_t *p, const char *s, size_t max_bytes)
{
    if (s == NULL)
        s = "";
    p = put_text(p, s, strlen(s), max_bytes - 1);
    return put8(p, 0);
}

/* ----------------------------------------------------------------------
 * Buffers and blocks
 * ---------------------------------------------------------------------- */

/* Note [One buffer per capability]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * As in GHC, each capability posts into its own buffer with no lock: only
 * its holder posts there (.inv.cap-owner in sm/heap/Capability.h), and each
 * block's marker names the capability, which is how readers attribute the
 * events.  Events that belong to no capability (capsets, the heap
 * profile's samples, IPE entries) and events posted by a thread that
 * holds no capability go to the global buffer (cap 0xffff) under
 * global_lock.  A full buffer is written out as one block under
 * write_lock.  A periodic or explicit flush stops the world so that every
 * buffer is written out at once. */

static EventBuf *buf_take(void)
{
    Capability *cap = capability_mine();
    if (cap != NULL && cap->no < n_cap_bufs)
        return &cap_bufs[cap->no];
    if (capabilities_n == 0)
        return &cap_bufs[0];   /* no runtime (the writer's own tests) */
    os_mutex_lock(&global_lock);
    return &global_buf;
}

static void buf_give(EventBuf *b)
{
    if (b == &global_buf)
        os_mutex_unlock(&global_lock);
}

static EventBuf *global_take(void)
{
    os_mutex_lock(&global_lock);
    return &global_buf;
}

static void global_give(EventBuf *g)
{
    (void)g;
    os_mutex_unlock(&global_lock);
}

static void buf_begin_block(EventBuf *b)
{
    uint8_t *p = b->begin;
    p = put16(p, EVENT_BLOCK_MARKER);
    p = put64(p, clock_elapsed_ns());
    p = put32(p, 0);       /* size: patched at flush */
    p = put64(p, 0);       /* end time: patched at flush */
    p = put16(p, b->cap);
    b->pos = p;
    b->n_events = 0;
}

/* Note [After a write error]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A write fails when the disk is full or the file size limit is reached.
 * The writer has then said why, once, and left its output at the end of
 * the last write that succeeded, which is a whole block (Note [Eventlog
 * write errors] in EventLogWriter.c).  We try once to close that prefix
 * with the data end marker, so that it is a complete log to every reader,
 * and stop the writer.  Retrying later is pointless (a full disk stays
 * full) and would leave gaps.
 *
 * Events are still posted for the rest of the run, and each block is
 * counted instead of written, so that eventlog_stop can say once, at
 * exit, how many events and bytes were lost.  Without that count the
 * error message is the only sign, printed long before the truncated log
 * is read.  Posting into memory costs what it did before the error, less
 * the writes; the census and the rest run as they would have anyway. */
static void write_error(void)
{
    write_failed = true;
    if (header_written) {
        uint8_t end[2];
        put16(end, EVENT_DATA_END);
        end_written = writer->write(end, sizeof end);
        if (end_written)
            written_bytes += sizeof end;
    }
    writer->stop();
}

/* Writes n bytes, or (after a write error) counts them as lost. */
static bool writer_write_locked(const void *bytes, size_t n)
{
    if (!write_failed && writer->write(bytes, n)) {
        written_bytes += n;
        return true;
    }
    if (!write_failed)
        write_error();
    lost_bytes += n;
    return false;
}

static bool writer_write(const void *bytes, size_t n)
{
    os_mutex_lock(&write_lock);
    bool ok = writer_write_locked(bytes, n);
    os_mutex_unlock(&write_lock);
    return ok;
}

/* Writes the buffer out as one block (.inv.block-size) unless it holds
 * only its marker, then starts a new block. */
static void buf_flush(EventBuf *b)
{
    size_t n = (size_t)(b->pos - b->begin);
    if (n > MARKER_BYTES) {
        put32(b->begin + EVENT_HEADER_BYTES, (uint32_t)n);
        put64(b->begin + EVENT_HEADER_BYTES + 4, clock_elapsed_ns());
        os_mutex_lock(&write_lock);
        if (!writer_write_locked(b->begin, n))
            lost_events += b->n_events;
        os_mutex_unlock(&write_lock);
    }
    buf_begin_block(b);
}

static bool buf_init(EventBuf *b, uint16_t cap)
{
    b->begin = malloc(EVENTLOG_BUFFER_BYTES);
    if (b->begin == NULL)
        return false;
    b->cap = cap;
    buf_begin_block(b);
    return true;
}

static void buf_free(EventBuf *b)
{
    free(b->begin);
    memset(b, 0, sizeof *b);
}

static bool bufs_init(unsigned n_caps)
{
    cap_bufs = calloc(n_caps, sizeof(EventBuf));
    if (cap_bufs == NULL)
        return false;
    n_cap_bufs = n_caps;
    for (unsigned c = 0; c < n_caps; c++)
        if (!buf_init(&cap_bufs[c], (uint16_t)c))
            return false;
    return buf_init(&global_buf, EVENT_CAP_GLOBAL);
}

static void bufs_free(void)
{
    for (unsigned c = 0; c < n_cap_bufs && cap_bufs != NULL; c++)
        buf_free(&cap_bufs[c]);
    free(cap_bufs);
    cap_bufs = NULL;
    n_cap_bufs = 0;
    buf_free(&global_buf);
}

static void bufs_flush_all(void);

/* Room for an event of payload_bytes (plus its length field if
 * variable): flushes first if the buffer would overflow. */
static uint8_t *event_begin(EventBuf *b, uint16_t type, size_t payload_bytes)
{
    size_t need = EVENT_HEADER_BYTES + 2 + payload_bytes;
    if ((size_t)(b->pos - b->begin) + need > EVENTLOG_BUFFER_BYTES)
        buf_flush(b);
    uint8_t *p = b->pos;
    p = put16(p, type);
    p = put64(p, clock_elapsed_ns());
    b->n_events++;
    return p;
}

/* A fixed-size event: p must be its payload's end (.inv.fixed-size). */
static void event_end(EventBuf *b, uint8_t *p)
{
    b->pos = p;
}

/* Variable events: reserve the Word16 length, write the payload, patch
 * the length to exactly what was written (.inv.var-length). */
static uint8_t *var_event_begin(EventBuf *b, uint16_t type, size_t max_payload_bytes)
{
    uint8_t *p = event_begin(b, type, max_payload_bytes);
    return p + 2;
}

static void var_event_end(EventBuf *b, uint8_t *payload_start, uint8_t *p)
{
    size_t n = (size_t)(p - payload_start);
    ASSERT(n <= EVENT_PAYLOAD_SIZE_MAX);
    put16(payload_start - 2, (uint16_t)n);
    b->pos = p;
}

static bool class_on(unsigned cls)
{
    return enabled && (classes & cls) != 0;
}

/* ----------------------------------------------------------------------
 * The header
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
    p = put32(p, EVENT_HEADER_BEGIN);
    p = put32(p, EVENT_HET_BEGIN);
    for (size_t i = 0; i < n_event_formats; i++) {
        const EventFormat *f = &event_formats[i];
        if (!f->emitted)
            continue;
        const char *desc = f->description;
        size_t dlen = strlen(desc);
        p = put32(p, EVENT_ET_BEGIN);
        p = put16(p, f->id);
        p = put16(p, f->size);
        p = put32(p, (uint32_t)dlen);
        memcpy(p, desc, dlen);
        p += dlen;
        p = put32(p, 0);   /* no extra info */
        p = put32(p, EVENT_ET_END);
    }
    p = put32(p, EVENT_HET_END);
    p = put32(p, EVENT_HEADER_END);
    p = put32(p, EVENT_DATA_BEGIN);
    ASSERT((size_t)(p - h) == len);
    header_written = writer_write(h, (size_t)(p - h));
    free(h);
    return true;
}

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

static void post_capset_create(uint32_t capset, uint16_t type)
{
    EventBuf *g = global_take();
    uint8_t *p = event_begin(g, EVENT_CAPSET_CREATE, EVENT_SIZE_CAPSET_CREATE);
    p = put32(p, capset);
    p = put16(p, type);
    event_end(g, p);
    global_give(g);
}

static void post_capset_cap(uint16_t type, uint32_t capset, uint16_t cap)
{
    EventBuf *g = global_take();
    uint8_t *p = event_begin(g, type, EVENT_SIZE_CAPSET_ASSIGN_CAP);
    p = put32(p, capset);
    p = put16(p, cap);
    event_end(g, p);
    global_give(g);
}

/* CAP_CREATE / CAP_DELETE go in the capability's own buffer (start-up and
 * shutdown: no other thread posts). */
static void post_cap_event(uint16_t type, uint16_t cap)
{
    EventBuf *b = &cap_bufs[cap];
    uint8_t *p = event_begin(b, type, EVENT_SIZE_CAP_CREATE);
    p = put16(p, cap);
    event_end(b, p);
}

static void post_capset_u32(uint16_t type, uint32_t capset, uint32_t value)
{
    EventBuf *g = global_take();
    uint8_t *p = event_begin(g, type, EVENT_SIZE_OSPROCESS_PID);
    p = put32(p, capset);
    p = put32(p, value);
    event_end(g, p);
    global_give(g);
}

static void post_wall_clock_time(void)
{
    struct timespec now;
    if (timespec_get(&now, TIME_UTC) != TIME_UTC)
        now = (struct timespec){0, 0};
    /* The event's timestamp is taken right after the wall clock. */
    EventBuf *g = global_take();
    uint8_t *p = event_begin(g, EVENT_WALL_CLOCK_TIME, EVENT_SIZE_WALL_CLOCK_TIME);
    p = put32(p, STRATA_CAPSET_CLOCKDOMAIN);
    p = put64(p, (uint64_t)now.tv_sec);
    p = put32(p, (uint32_t)now.tv_nsec);
    event_end(g, p);
    global_give(g);
}

static void post_rts_identifier(void)
{
    static const char ident[] = "strata-" STRATA_VERSION " rts_strata";
    size_t n = sizeof ident - 1;
    EventBuf *g = global_take();
    uint8_t *start = var_event_begin(g, EVENT_RTS_IDENTIFIER, 4 + n);
    uint8_t *p = put32(start, STRATA_CAPSET_OSPROCESS);
    p = put_text(p, ident, n, n);
    var_event_end(g, start, p);
    global_give(g);
}

/* Each argument repaired and NUL-terminated (repair keeps the length);
 * arguments that would overflow the payload are left out. */
static void post_program_args(int argc, char **argv)
{
    EventBuf *g = global_take();
    uint8_t *start = var_event_begin(g, EVENT_PROGRAM_ARGS, EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = put32(start, STRATA_CAPSET_OSPROCESS);
    for (int i = 0; i < argc && argv != NULL && argv[i] != NULL; i++) {
        size_t n = strlen(argv[i]) + 1;
        if ((size_t)(p - start) + n > EVENT_PAYLOAD_SIZE_MAX)
            break;
        p = put_cstring(p, argv[i], n);
    }
    var_event_end(g, start, p);
    global_give(g);
}

static void post_heap_info(void)
{
    EventBuf *g = global_take();
    uint8_t *p = event_begin(g, EVENT_HEAP_INFO_GHC, EVENT_SIZE_HEAP_INFO_GHC);
    p = put32(p, STRATA_CAPSET_OSPROCESS);
    p = put16(p, (uint16_t)eventlog_config.generations);
    p = put64(p, eventlog_config.max_heap_bytes);
    p = put64(p, eventlog_config.nursery_bytes);
    p = put64(p, MBLOCK_SIZE);
    p = put64(p, BLOCK_SIZE);
    event_end(g, p);
    global_give(g);
}

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
    writer = chosen_writer != NULL ? chosen_writer : &eventlog_file_writer;
    classes = eventlog_config.classes;
    if (!bufs_init(config->capabilities > 0 ? config->capabilities : 1)) {
        rts_error("eventlog: out of C heap allocating buffers (bytes=%zu)",
                  (size_t)(n_cap_bufs + 1) * EVENTLOG_BUFFER_BYTES);
        bufs_free();
        return false;
    }
    if (!writer->init()) {
        bufs_free();
        return true;   /* reported; the program runs without the eventlog */
    }
    write_failed = header_written = end_written = false;
    written_bytes = lost_events = lost_bytes = 0;
    enabled = true;
    if (!write_header()) {
        rts_error("eventlog: out of C heap writing the header");
        enabled = false;
        writer->stop();
        bufs_free();
        return false;
    }
    post_capset_create(STRATA_CAPSET_OSPROCESS, CAPSET_TYPE_OSPROCESS);
    post_capset_create(STRATA_CAPSET_CLOCKDOMAIN, CAPSET_TYPE_CLOCKDOMAIN);
    for (unsigned c = 0; c < n_cap_bufs; c++) {
        post_capset_cap(EVENT_CAPSET_ASSIGN_CAP, STRATA_CAPSET_OSPROCESS, (uint16_t)c);
        post_capset_cap(EVENT_CAPSET_ASSIGN_CAP, STRATA_CAPSET_CLOCKDOMAIN, (uint16_t)c);
        post_cap_event(EVENT_CAP_CREATE, (uint16_t)c);
    }
    post_wall_clock_time();
    post_capset_u32(EVENT_OSPROCESS_PID, STRATA_CAPSET_OSPROCESS, (uint32_t)os_process_id());
    post_capset_u32(EVENT_OSPROCESS_PPID, STRATA_CAPSET_OSPROCESS, (uint32_t)os_process_parent_id());
    post_rts_identifier();
    post_program_args(argc, argv);
    post_heap_info();
    /* The capsets go out first: every capability's events refer to them. */
    bufs_flush_all();
    return true;
}

bool eventlog_enabled(void)
{
    return enabled;
}

static bool buf_check(const EventBuf *b, uint16_t cap)
{
    if (b->begin == NULL || b->cap != cap)
        return false;
    if (b->pos < b->begin + MARKER_BYTES || b->pos > b->begin + EVENTLOG_BUFFER_BYTES)
        return false;
    /* The marker's type and cap; size and end time are patched at flush. */
    return b->begin[0] == 0 && b->begin[1] == EVENT_BLOCK_MARKER &&
           b->begin[MARKER_BYTES - 2] == (uint8_t)(cap >> 8) &&
           b->begin[MARKER_BYTES - 1] == (uint8_t)cap;
}

bool eventlog_check(void)
{
    if (!enabled)
        return true;   /* stopped or never started */
    /* Nothing is lost, and no end marker written, before a write error. */
    for (unsigned c = 0; c < n_cap_bufs; c++)
        if (!buf_check(&cap_bufs[c], (uint16_t)c))
            return false;
    return buf_check(&global_buf, EVENT_CAP_GLOBAL) &&
           (write_failed || (lost_events == 0 && lost_bytes == 0 && !end_written));
}

/* Global buffer first: it holds the capsets that the capabilities' events
 * refer to.  The world is stopped, or only one thread runs. */
static void bufs_flush_all(void)
{
    os_mutex_lock(&global_lock);
    buf_flush(&global_buf);
    os_mutex_unlock(&global_lock);
    for (unsigned c = 0; c < n_cap_bufs; c++)
        buf_flush(&cap_bufs[c]);
    os_mutex_lock(&write_lock);
    if (!write_failed)
        writer->flush();
    os_mutex_unlock(&write_lock);
}

/* Every capability's buffer is written out: with several capabilities the
 * world is stopped for it (Note [One buffer per capability]).  A thread
 * that holds no capability flushes the global buffer only. */
void eventlog_flush(void)
{
    if (!enabled)
        return;
    if (capabilities_n == 0) {
        bufs_flush_all();
        return;
    }
    if (capability_mine() == NULL) {
        os_mutex_lock(&global_lock);
        buf_flush(&global_buf);
        os_mutex_unlock(&global_lock);
        return;
    }
    capability_stop_world_own();
    bufs_flush_all();
    capability_resume_world();
}

/* The one message about a write error's losses (Note [After a write
 * error]). */
static void report_losses(void)
{
    const char *tail = !header_written
        ? "the log holds nothing usable (its header could not be written)"
        : end_written ? "the log ends with the last whole block and the data end marker"
                      : "the log has no data end marker (it could not be written)";
    rts_error("eventlog: events lost after a write error (events=%llu, bytes=%llu, "
              "kept_bytes=%llu); %s",
              (unsigned long long)lost_events, (unsigned long long)lost_bytes,
              (unsigned long long)written_bytes, tail);
}

void eventlog_stop(void)
{
    if (enabled) {
        for (unsigned c = 0; c < n_cap_bufs; c++) {
            post_cap_event(EVENT_CAP_DELETE, (uint16_t)c);
            post_capset_cap(EVENT_CAPSET_REMOVE_CAP, STRATA_CAPSET_OSPROCESS, (uint16_t)c);
        }
        uint8_t *p = event_begin(&global_buf, EVENT_CAPSET_DELETE, EVENT_SIZE_CAPSET_DELETE);
        event_end(&global_buf, put32(p, STRATA_CAPSET_OSPROCESS));
        p = event_begin(&global_buf, EVENT_CAPSET_DELETE, EVENT_SIZE_CAPSET_DELETE);
        event_end(&global_buf, put32(p, STRATA_CAPSET_CLOCKDOMAIN));
        bufs_flush_all();
        uint8_t end[2];
        put16(end, EVENT_DATA_END);
        if (!write_failed && writer_write(end, sizeof end)) {
            writer->flush();
            writer->stop();
        }
        if (write_failed)
            report_losses();
        enabled = false;
    }
    bufs_free();
}

/* ----------------------------------------------------------------------
 * Thread events (class 's', the capability's buffer)
 * ---------------------------------------------------------------------- */

static void post_thread_event(uint16_t type, uint32_t thread, uint16_t status)
{
    if (!class_on(EVENTLOG_CLASS_SCHED))
        return;
    EventBuf *b = buf_take();
    size_t size = type == EVENT_STOP_THREAD ? EVENT_SIZE_STOP_THREAD : EVENT_SIZE_RUN_THREAD;
    uint8_t *p = event_begin(b, type, size);
    p = put32(p, thread);
    if (type == EVENT_STOP_THREAD) {
        p = put16(p, status);
        p = put32(p, 0);   /* blocked on: no thread */
    }
    event_end(b, p);
    buf_give(b);
}

void eventlog_post_create_thread(uint32_t thread)
{
    post_thread_event(EVENT_CREATE_THREAD, thread, 0);
}

void eventlog_post_run_thread(uint32_t thread)
{
    post_thread_event(EVENT_RUN_THREAD, thread, 0);
}

void eventlog_post_stop_thread(uint32_t thread, uint16_t status)
{
    post_thread_event(EVENT_STOP_THREAD, thread, status);
}

/* ----------------------------------------------------------------------
 * GC and heap events (class 'g', capability 0's buffer)
 * ---------------------------------------------------------------------- */

static void post_gc_phase(uint16_t type)
{
    if (!class_on(EVENTLOG_CLASS_GC))
        return;
    EventBuf *b = buf_take();
    event_end(b, event_begin(b, type, 0));
    buf_give(b);
}

/* GC_WORK, GC_IDLE and GC_DONE go in the buffer of the capability a GC
 * thread works for: its holder is parked, so the GC thread is the only
 * writer (Note [GC threads are the capabilities' threads] in
 * sm/GCThread.c). */
static void post_gc_phase_on(uint32_t cap, uint16_t type)
{
    if (!class_on(EVENTLOG_CLASS_GC))
        return;
    if (cap >= n_cap_bufs) {
        post_gc_phase(type);
        return;
    }
    EventBuf *b = &cap_bufs[cap];
    event_end(b, event_begin(b, type, 0));
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
    if (!class_on(EVENTLOG_CLASS_GC))
        return;
    EventBuf *b = buf_take();
    uint8_t *p = event_begin(b, type, EVENT_SIZE_HEAP_SIZE);
    p = put32(p, STRATA_CAPSET_OSPROCESS);
    p = put64(p, bytes);
    event_end(b, p);
    buf_give(b);
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
    if (!class_on(EVENTLOG_CLASS_GC))
        return;
    EventBuf *b = buf_take();
    uint8_t *p = event_begin(b, EVENT_GC_STATS_GHC, EVENT_SIZE_GC_STATS_GHC);
    p = put32(p, STRATA_CAPSET_OSPROCESS);
    p = put16(p, gen);
    p = put64(p, copied_bytes);
    p = put64(p, slop_bytes);
    p = put64(p, fragmentation_bytes);
    p = put32(p, par_n_threads);
    p = put64(p, par_max_copied);
    p = put64(p, par_tot_copied);
    p = put64(p, par_balanced_copied);
    event_end(b, p);
    buf_give(b);
}

void eventlog_post_mem_return(uint32_t current_mblocks, uint32_t needed_mblocks,
                              uint32_t returned_mblocks)
{
    if (!class_on(EVENTLOG_CLASS_GC))
        return;
    EventBuf *b = buf_take();
    uint8_t *p = event_begin(b, EVENT_MEM_RETURN, EVENT_SIZE_MEM_RETURN);
    p = put32(p, STRATA_CAPSET_OSPROCESS);
    p = put32(p, current_mblocks);
    p = put32(p, needed_mblocks);
    p = put32(p, returned_mblocks);
    event_end(b, p);
    buf_give(b);
}

/* ----------------------------------------------------------------------
 * Heap-profile and IPE events (no class; the global buffer)
 * ---------------------------------------------------------------------- */

void eventlog_post_heap_prof_begin(uint64_t sampling_period_ns, uint32_t breakdown)
{
    if (!enabled)
        return;
    EventBuf *g = global_take();
    uint8_t *start = var_event_begin(g, EVENT_HEAP_PROF_BEGIN, 1 + 8 + 4 + 7);
    uint8_t *p = put8(start, 0);            /* profile id */
    p = put64(p, sampling_period_ns);
    p = put32(p, breakdown);
    for (int i = 0; i < 7; i++)             /* no filters: 7 empty strings */
        p = put_cstring(p, "", 1);
    var_event_end(g, start, p);
    global_give(g);
}

static void post_sample_bracket(uint16_t type, uint64_t census_counter)
{
    if (!enabled)
        return;
    EventBuf *g = global_take();
    uint8_t *p = event_begin(g, type, EVENT_SIZE_HEAP_PROF_SAMPLE_BEGIN);
    event_end(g, put64(p, census_counter));
    global_give(g);
}

void eventlog_post_heap_prof_sample_begin(uint64_t census_counter)
{
    post_sample_bracket(EVENT_HEAP_PROF_SAMPLE_BEGIN, census_counter);
}

void eventlog_post_heap_prof_sample_end(uint64_t census_counter)
{
    post_sample_bracket(EVENT_HEAP_PROF_SAMPLE_END, census_counter);
}

void eventlog_post_heap_prof_sample_string(uint64_t residency_bytes, const char *label)
{
    if (!enabled)
        return;
    EventBuf *g = global_take();
    uint8_t *start = var_event_begin(g, EVENT_HEAP_PROF_SAMPLE_STRING,
                                     EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = put8(start, 0);            /* profile id */
    p = put64(p, residency_bytes);
    p = put_cstring(p, label, EVENT_PAYLOAD_SIZE_MAX - 9);
    var_event_end(g, start, p);
    global_give(g);
}

void eventlog_post_ipe(uint64_t info_addr, const char *table_name, const char *closure_desc,
                       const char *ty_desc, const char *label, const char *module,
                       const char *srcloc)
{
    if (!enabled)
        return;
    const char *strings[6] = {table_name, closure_desc, ty_desc, label, module, srcloc};
    EventBuf *g = global_take();
    uint8_t *start = var_event_begin(g, EVENT_IPE, EVENT_PAYLOAD_SIZE_MAX);
    uint8_t *p = put64(start, info_addr);
    for (int i = 0; i < 6; i++) {
        /* Leave one byte for each later string's NUL. */
        size_t left = EVENT_PAYLOAD_SIZE_MAX - (size_t)(p - start) - (size_t)(5 - i);
        p = put_cstring(p, strings[i], left);
    }
    var_event_end(g, start, p);
    global_give(g);
}

/* ----------------------------------------------------------------------
 * User events (class 'u', capability 0's buffer)
 * ---------------------------------------------------------------------- */

/* The text is the whole payload: repaired, and clamped to 65535 bytes at
 * a character boundary (Note [Strings in events]). */
static void post_user_bytes(uint16_t type, const char *msg, size_t len)
{
    if (!class_on(EVENTLOG_CLASS_USER))
        return;
    size_t max = len < EVENT_PAYLOAD_SIZE_MAX ? len : EVENT_PAYLOAD_SIZE_MAX;
    EventBuf *b = buf_take();
    uint8_t *start = var_event_begin(b, type, max);
    var_event_end(b, start, put_text(start, msg, len, max));
    buf_give(b);
}

void eventlog_post_user_msg(const char *msg, size_t len)
{
    post_user_bytes(EVENT_USER_MSG, msg, len);
}

void eventlog_post_user_marker(const char *msg, size_t len)
{
    post_user_bytes(EVENT_USER_MARKER, msg, len);
}
