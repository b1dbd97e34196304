/*
 * eventlog/EventBuffers.c -- the eventlog writer's buffers and its output
 * (EventBuffers.h): one buffer per capability and a global one, each
 * written out as one block of GHC's format when full or flushed; the
 * big-endian encoding and the strings of events; the writer, and after a
 * write error the count of what was lost.  Relies on EventLogWriter for
 * output, support/os/Clock for timestamps and the capabilities of
 * sm/heap/Capability.h for whose buffer a thread posts into.  The events
 * themselves are EventLog.c's.  docs/design/eventlog.md.
 */
#include "EventBuffers.h"

#include <stdlib.h>
#include <string.h>

#include "Capability.h"
#include "Messages.h"
#include "os/Clock.h"
#include "os/Thread.h"

static const EventLogWriter *writer = &eventlog_file_writer;
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

uint8_t *evbuf_put_text(uint8_t *p, const char *s, size_t n, size_t max_bytes)
{
    return p + utf8_copy_clamped(p, s, n, max_bytes);
}

uint8_t *evbuf_put_cstring(uint8_t *p, const char *s, size_t max_bytes)
{
    if (s == NULL)
        s = "";
    p = evbuf_put_text(p, s, strlen(s), max_bytes - 1);
    return evbuf_put8(p, 0);
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

EventBuf *evbuf_take(void)
{
    Capability *cap = capability_mine();
    if (cap != NULL && cap->no < n_cap_bufs)
        return &cap_bufs[cap->no];
    if (capabilities_n == 0)
        return &cap_bufs[0];   /* no runtime (the writer's own tests) */
    os_mutex_lock(&global_lock);
    return &global_buf;
}

void evbuf_give(EventBuf *b)
{
    if (b == &global_buf)
        os_mutex_unlock(&global_lock);
}

EventBuf *evbuf_global_take(void)
{
    os_mutex_lock(&global_lock);
    return &global_buf;
}

void evbuf_global_give(EventBuf *g)
{
    (void)g;
    os_mutex_unlock(&global_lock);
}

/* The time of an event posted into b now. */
static uint64_t buf_now(const EventBuf *b)
{
    return b->stamp_ns != 0 ? b->stamp_ns : clock_elapsed_ns();
}

static void buf_begin_block(EventBuf *b)
{
    /* Size and end time: patched at flush. */
    b->pos = evbuf_put_marker(b->begin, buf_now(b), 0, 0, b->cap);
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
        evbuf_put16(end, EVENT_DATA_END);
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
    if (n > EVBUF_MARKER_BYTES) {
        evbuf_put32(b->begin + EVENT_HEADER_BYTES, (uint32_t)n);
        evbuf_put64(b->begin + EVENT_HEADER_BYTES + 4, clock_elapsed_ns());
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

bool evbufs_init(unsigned n_caps)
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

void evbufs_free(void)
{
    for (unsigned c = 0; c < n_cap_bufs && cap_bufs != NULL; c++)
        buf_free(&cap_bufs[c]);
    free(cap_bufs);
    cap_bufs = NULL;
    n_cap_bufs = 0;
    buf_free(&global_buf);
}

/* Flushes first if the buffer would overflow. */
uint8_t *evbuf_event_begin(EventBuf *b, uint16_t type, size_t payload_bytes)
{
    size_t need = EVENT_HEADER_BYTES + 2 + payload_bytes;
    if ((size_t)(b->pos - b->begin) + need > EVENTLOG_BUFFER_BYTES)
        buf_flush(b);
    uint8_t *p = b->pos;
    p = evbuf_put16(p, type);
    p = evbuf_put64(p, buf_now(b));
    b->n_events++;
    return p;
}

void evbuf_event_end(EventBuf *b, uint8_t *p)
{
    b->pos = p;
}

/* Variable events: reserve the Word16 length, write the payload, patch
 * the length to exactly what was written (.inv.var-length). */
uint8_t *evbuf_var_event_begin(EventBuf *b, uint16_t type, size_t max_payload_bytes)
{
    uint8_t *p = evbuf_event_begin(b, type, max_payload_bytes);
    return p + 2;
}

void evbuf_var_event_end(EventBuf *b, uint8_t *payload_start, uint8_t *p)
{
    size_t n = (size_t)(p - payload_start);
    ASSERT(n <= EVENT_PAYLOAD_SIZE_MAX);
    evbuf_put16(payload_start - 2, (uint16_t)n);
    b->pos = p;
}

EventBuf *evbuf_of_cap(unsigned c)
{
    return &cap_bufs[c];
}

unsigned evbufs_n_caps(void)
{
    return n_cap_bufs;
}

static bool buf_check(const EventBuf *b, uint16_t cap)
{
    if (b->begin == NULL || b->cap != cap)
        return false;
    if (b->pos < b->begin + EVBUF_MARKER_BYTES || b->pos > b->begin + EVENTLOG_BUFFER_BYTES)
        return false;
    /* The marker's type and cap; size and end time are patched at flush. */
    return b->begin[0] == 0 && b->begin[1] == EVENT_BLOCK_MARKER &&
           b->begin[EVBUF_MARKER_BYTES - 2] == (uint8_t)(cap >> 8) &&
           b->begin[EVBUF_MARKER_BYTES - 1] == (uint8_t)cap;
}

bool evbufs_check(void)
{
    /* Nothing is lost, and no end marker written, before a write error. */
    for (unsigned c = 0; c < n_cap_bufs; c++)
        if (!buf_check(&cap_bufs[c], (uint16_t)c))
            return false;
    return buf_check(&global_buf, EVENT_CAP_GLOBAL) &&
           (write_failed || (lost_events == 0 && lost_bytes == 0 && !end_written));
}

/* Global buffer first: it holds the capsets that the capabilities' events
 * refer to.  The world is stopped, or only one thread runs. */
void evbufs_flush_all(void)
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

void evbufs_flush_global(void)
{
    os_mutex_lock(&global_lock);
    buf_flush(&global_buf);
    os_mutex_unlock(&global_lock);
}

void evbufs_stamp_global(uint64_t at_ns)
{
    os_mutex_lock(&global_lock);
    if (at_ns == 0)
        buf_flush(&global_buf);   /* the stamped block goes out, ended now */
    global_buf.stamp_ns = at_ns;
    buf_flush(&global_buf);       /* the next block begins at at_ns, or now */
    os_mutex_unlock(&global_lock);
}

/* ----------------------------------------------------------------------
 * The writer
 * ---------------------------------------------------------------------- */

bool evbufs_writer_start(const EventLogWriter *w)
{
    writer = w;
    if (!writer->init())
        return false;
    write_failed = header_written = end_written = false;
    written_bytes = lost_events = lost_bytes = 0;
    return true;
}

void evbufs_writer_stop(void)
{
    writer->stop();
}

void evbufs_write_header(const void *bytes, size_t n)
{
    header_written = writer_write(bytes, n);
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

void evbufs_finish(void)
{
    uint8_t end[2];
    evbuf_put16(end, EVENT_DATA_END);
    if (!write_failed && writer_write(end, sizeof end)) {
        writer->flush();
        writer->stop();
    }
    if (write_failed)
        report_losses();
}
