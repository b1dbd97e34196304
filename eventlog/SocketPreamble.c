/*
 * eventlog/SocketPreamble.c -- what the socket writer sends first to a
 * client that connects late (SocketPreamble.h): a copy of the log's
 * header and of every event that describes the program, found by walking
 * the events of the blocks it is given (the eventlog format,
 * strata/EventLogFormat.h, and its eventlog_type_size).  Called
 * under the socket writer's lock.  See Note [What a client is sent] and
 * docs/design/eventlog.md, "The socket writer".
 */
#include "SocketPreamble.h"

#include <stdlib.h>
#include <string.h>

#include "EventBuffers.h"
#include "GrowArray.h"
#include "Messages.h"
#include "strata/EventLogFormat.h"

/* Note [What a client is sent]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A client must get a log that parses on its own, whenever it connects.
 * EventLog.c gives the writer the header in its first write, then whole
 * blocks (each starting with its BLOCK_MARKER), then the 2-byte data end
 * marker; nothing else.  So the writer keeps a copy of the header and,
 * scanning each block as it passes, a copy of every event that describes
 * the program rather than something that happened (the "preamble"
 * types below: capsets, capabilities, wall clock, pids, RTS identifier,
 * program arguments, heap parameters, HEAP_PROF_BEGIN, every IPE entry).
 * A client that connects gets the header, then those events regrouped in
 * blocks of their own capability (their original timestamps, so times
 * still only grow), then every block written after it connected.  A
 * client that connects before the header was written gets everything
 * as it is written, and nothing twice: an event is in the cache only once
 * its block has been written, and a client gets from the cache only what
 * was written before it connected.
 *
 * The socket writer thus knows the framing, which the file writer does
 * not.
 * Regenerating the preamble in EventLog.c instead would need the IPE
 * entries from profiling/, a layer above; scanning costs a walk over the
 * event headers of each global block (and of each capability's first
 * block, where CAP_CREATE lies), measured in docs/design/eventlog.md.
 *
 * The era has no event of its own in GHC's format (the -he labels carry
 * it), so there is none to replay. */

static bool is_preamble_type(uint16_t type)
{
    switch (type) {
    case EVENT_CAPSET_CREATE: case EVENT_CAPSET_ASSIGN_CAP: case EVENT_CAP_CREATE:
    case EVENT_WALL_CLOCK_TIME: case EVENT_OSPROCESS_PID: case EVENT_OSPROCESS_PPID:
    case EVENT_RTS_IDENTIFIER: case EVENT_PROGRAM_ARGS: case EVENT_HEAP_INFO_GHC:
    case EVENT_HEAP_PROF_BEGIN: case EVENT_IPE:
    case EVENT_ALLOC_SAMPLING: case EVENT_ALLOC_FRAME: case EVENT_ALLOC_STACK:
        return true;
    default:
        return false;
    }
}

/* A kept preamble event: its capability and where its bytes are. */
typedef struct {
    uint16_t cap;
    size_t offset, n;
} PreambleRecord;

static uint8_t *header;               /* the header's bytes; NULL until written */
static size_t header_n;
static uint8_t *preamble;             /* kept events' bytes */
static size_t preamble_n, preamble_cap;
static PreambleRecord *records;
static size_t n_records, records_cap;
static bool cap_scanned[1024];        /* capability's first block scanned */

/* eventlog_type_size of types 0..255, filled at open: the walk over a
 * block's events looks each one up (the table search is linear). */
static int type_sizes[256];

void preamble_open(void)
{
    for (int t = 0; t < 256; t++)
        type_sizes[t] = eventlog_type_size((uint16_t)t);
}

void preamble_reset(void)
{
    free(header);
    free(preamble);
    free(records);
    header = preamble = NULL;
    records = NULL;
    header_n = preamble_n = preamble_cap = n_records = records_cap = 0;
    memset(cap_scanned, 0, sizeof cap_scanned);
}

/* Bytes of the event at p (avail bytes left), or 0 if it does not fit. */
static size_t event_bytes(const uint8_t *p, size_t avail)
{
    if (avail < EVENT_HEADER_BYTES)
        return 0;
    uint16_t type = evbuf_get16(p);
    int size = type < 256 ? type_sizes[type] : eventlog_type_size(type);
    size_t n;
    if (size < 0)
        return 0;
    if ((unsigned)size == EVENT_SIZE_VARIABLE) {
        if (avail < EVENT_HEADER_BYTES + 2)
            return 0;
        n = EVENT_HEADER_BYTES + 2 + evbuf_get16(p + EVENT_HEADER_BYTES);
    } else {
        n = EVENT_HEADER_BYTES + (size_t)size;
    }
    return n <= avail ? n : 0;
}

static void cache_event(uint16_t cap, const uint8_t *ev, size_t n)
{
    if (GROW_ARRAY_RESERVE_MIN(preamble, preamble_cap, preamble_n + n, 4096) != 0 ||
        GROW_ARRAY_RESERVE(records, records_cap, n_records + 1) != 0) {
        rts_error("eventlog-socket: out of C heap caching an event (type=%u, bytes=%zu); "
                  "clients that connect later will not get it", (unsigned)evbuf_get16(ev), n);
        return;
    }
    memcpy(preamble + preamble_n, ev, n);
    records[n_records++] = (PreambleRecord){cap, preamble_n, n};
    preamble_n += n;
}

/* Caches the preamble events of a block (global blocks, and each
 * capability's first). */
static void scan_block(const uint8_t *b, size_t n)
{
    uint16_t cap = evbuf_get16(b + EVBUF_MARKER_BYTES - 2);
    if (cap != EVENT_CAP_GLOBAL) {
        if (cap < sizeof cap_scanned && cap_scanned[cap])
            return;
        if (cap < sizeof cap_scanned)
            cap_scanned[cap] = true;
    }
    size_t off = EVBUF_MARKER_BYTES;
    while (off < n) {
        size_t len = event_bytes(b + off, n - off);
        if (len == 0)
            break;   /* not our framing: nothing more to find */
        if (is_preamble_type(evbuf_get16(b + off)))
            cache_event(cap, b + off, len);
        off += len;
    }
}

size_t preamble_records_bytes(size_t from, size_t to)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        if (i == from || records[i].cap != records[i - 1].cap)
            n += EVBUF_MARKER_BYTES;
        n += records[i].n;
    }
    return n;
}

uint8_t *preamble_put_records(uint8_t *p, size_t from, size_t to)
{
    size_t i = from;
    while (i < to) {
        size_t j = i, bytes = EVBUF_MARKER_BYTES;
        while (j < to && records[j].cap == records[i].cap)
            bytes += records[j++].n;
        const uint8_t *first = preamble + records[i].offset;
        const uint8_t *last = preamble + records[j - 1].offset;
        p = evbuf_put_marker(p, evbuf_get64(first + 2), (uint32_t)bytes, evbuf_get64(last + 2),
                             records[i].cap);
        for (size_t k = i; k < j; k++) {
            memcpy(p, preamble + records[k].offset, records[k].n);
            p += records[k].n;
        }
        i = j;
    }
    return p;
}

bool preamble_take(const uint8_t *bytes, size_t n)
{
    if (header == NULL) {
        header = malloc(n);
        if (header != NULL) {
            memcpy(header, bytes, n);
            header_n = n;
        }
        return false;
    }
    if (n >= EVBUF_MARKER_BYTES && evbuf_get16(bytes) == EVENT_BLOCK_MARKER) {
        scan_block(bytes, n);
        return true;
    }
    return false;
}

size_t preamble_header_bytes(void)
{
    return header_n;
}

uint8_t *preamble_put_header(uint8_t *p)
{
    memcpy(p, header, header_n);
    return p + header_n;
}

size_t preamble_n_records(void)
{
    return n_records;
}
