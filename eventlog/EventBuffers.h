/*
 * eventlog/EventBuffers.h -- the eventlog writer's buffers and output:
 * one buffer per capability and a global one, each a block of GHC's
 * format in the making (Note [One buffer per capability] in
 * EventBuffers.c); the events' big-endian encoding and their strings
 * (Note [Strings in events]); the writer, and what a write error lost
 * (Note [After a write error]).  The whole API of EventBuffers.c; the
 * events themselves are posted by EventLog.c.
 */
#ifndef STRATA_EVENT_BUFFERS_H
#define STRATA_EVENT_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "EventLogWriter.h"
#include "strata/EventLogFormat.h"

/* Bytes per buffer (GHC's size); a full buffer is flushed as one block. */
#define EVENTLOG_BUFFER_BYTES ((size_t)2 * 1024 * 1024)

/* Bytes of the marker event: header + Word32 size + Word64 end + Word16 cap. */
#define EVBUF_MARKER_BYTES (EVENT_HEADER_BYTES + EVENT_SIZE_BLOCK_MARKER)

typedef struct {
    uint8_t *begin;      /* EVENTLOG_BUFFER_BYTES, malloc'd */
    uint8_t *pos;        /* next free byte; begin + EVBUF_MARKER_BYTES after reset */
    uint16_t cap;        /* block marker cap: the capability, or EVENT_CAP_GLOBAL */
    uint32_t n_events;   /* events after the marker; 0 after reset */
    uint64_t stamp_ns;   /* nonzero: the time of its events and block
                            (evbufs_stamp_global) */
} EventBuf;

/* ----- Encoding: big-endian, each put returning the byte after what it wrote ----- */

static inline uint8_t *evbuf_put8(uint8_t *p, uint8_t v)
{
    *p = v;
    return p + 1;
}

static inline uint8_t *evbuf_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static inline uint8_t *evbuf_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
    return p + 4;
}

static inline uint8_t *evbuf_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
    return p + 8;
}

/* A block marker: the block's size_bytes (marker included) of cap's
 * events, from start_ns to end_ns. */
static inline uint8_t *evbuf_put_marker(uint8_t *p, uint64_t start_ns, uint32_t size_bytes,
                                        uint64_t end_ns, uint16_t cap)
{
    p = evbuf_put16(p, EVENT_BLOCK_MARKER);
    p = evbuf_put64(p, start_ns);
    p = evbuf_put32(p, size_bytes);
    p = evbuf_put64(p, end_ns);
    return evbuf_put16(p, cap);
}

static inline uint16_t evbuf_get16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint64_t evbuf_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

/* n bytes of s as repaired UTF-8, at most max_bytes of them; s (NULL =
 * "") the same plus a NUL, within max_bytes including the NUL (at least
 * 1).  Note [Strings in events]. */
uint8_t *evbuf_put_text(uint8_t *p, const char *s, size_t n, size_t max_bytes);
uint8_t *evbuf_put_cstring(uint8_t *p, const char *s, size_t max_bytes);

/* ----- Start and stop ----- */

/* The buffers of n_caps capabilities and the global one; false when out
 * of C heap (then call evbufs_free). */
bool evbufs_init(unsigned n_caps);
void evbufs_free(void);
unsigned evbufs_n_caps(void);
/* Opens w (false if it cannot: it has said why) and forgets the last
 * run's losses. */
bool evbufs_writer_start(const EventLogWriter *w);
void evbufs_writer_stop(void);
/* Writes the file header (n bytes), as the first output. */
void evbufs_write_header(const void *bytes, size_t n);
/* Writes every buffer out, the global one first (it holds the capsets
 * the others refer to), and flushes the writer.  The world is stopped, or
 * only one thread runs. */
void evbufs_flush_all(void);
/* Writes the global buffer out (a thread that holds no capability). */
void evbufs_flush_global(void);
/* Writes the global buffer out and stamps the block it starts, and the
 * events posted into it, at_ns (0: the clock again, after writing the
 * stamped block out).  For events about an earlier moment, in a block of
 * their own, so that no event of a block is earlier than the one before. */
void evbufs_stamp_global(uint64_t at_ns);
/* After the last flush: the data end marker, then the writer is stopped;
 * after a write error, the one message about what was lost. */
void evbufs_finish(void);
/* Every buffer's marker and bounds, and no loss before a write error. */
bool evbufs_check(void);

/* ----- Posting ----- */

/* The buffer the calling thread posts into: its capability's, or the
 * global one (locked) for a thread that holds none; give it back after. */
EventBuf *evbuf_take(void);
void evbuf_give(EventBuf *b);
/* The global buffer, locked; and capability c's (start-up and shutdown). */
EventBuf *evbuf_global_take(void);
void evbuf_global_give(EventBuf *g);
EventBuf *evbuf_of_cap(unsigned c);
/* Room for an event of payload_bytes (plus its length field if
 * variable), the event header written: returns where the payload goes.
 * A fixed-size event ends at evbuf_event_end(b, its payload's end)
 * (.inv.fixed-size); a variable one starts with evbuf_var_event_begin and
 * ends with evbuf_var_event_end, which writes its length (.inv.var-length). */
uint8_t *evbuf_event_begin(EventBuf *b, uint16_t type, size_t payload_bytes);
void evbuf_event_end(EventBuf *b, uint8_t *p);
uint8_t *evbuf_var_event_begin(EventBuf *b, uint16_t type, size_t max_payload_bytes);
void evbuf_var_event_end(EventBuf *b, uint8_t *payload_start, uint8_t *p);

#endif /* STRATA_EVENT_BUFFERS_H */
