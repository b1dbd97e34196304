/*
 * reader/EventLogReader.c -- a streaming reader for GHC-format eventlogs.
 *
 * Parses the header's event type table, then yields events one by one with
 * their capability (from the enclosing block marker) and, for the event
 * types the tools need, decoded fields.  Relies only on stdio and the
 * format constants in strata/EventLogFormat.h; the format itself is
 * described in docs/reference/eventlog-format.md.
 *
 * The fields are decoded by EventDecode.c.  Notes here: [Reader buffer],
 * [Reader errors], [Block attribution], [GHC's IPE length].
 */
#include "EventLogReader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"

/* Note [Reader buffer]
 * ~~~~~~~~~~~~~~~~~~~~
 * A file reader owns one buffer of EVR_BUF_BYTES.  The largest event is
 * 2 (type) + 8 (time) + 2 (length) + 65535 (payload) bytes, so any whole
 * event fits; reader_fill() slides the unread tail to the front and tops
 * the buffer up with fread() when the next item needs more than is there.
 * The payload pointer handed out in EvrEvent points into this buffer, so
 * it stays valid until the next evr_next().  Header items that can be long
 * (a description, the extra-info field: Word32 lengths) are consumed with
 * reader_skip() in buffer-sized steps, so no length in the file decides how
 * much memory is allocated.  A memory reader uses the caller's buffer as
 * its (already full) buffer and never refills.
 */
#define EVR_BUF_BYTES (1u << 17)
#define EVR_EVENT_MAX_BYTES (EVENT_HEADER_BYTES + 2u + EVENT_PAYLOAD_SIZE_MAX)
#define EVR_ERROR_BYTES 256
#define EVR_N_IDS 65536u
#define EVR_INDEX_PAGE 256u   /* ids per page of the type index */

_Static_assert(EVR_EVENT_MAX_BYTES <= EVR_BUF_BYTES, "a whole event must fit in the buffer");

enum ReaderState {
    STATE_EVENTS,   /* header parsed; reading events */
    STATE_END,      /* end of data reached; evr_next returns 0 */
    STATE_ERROR,    /* evr_next returns -1 */
};

struct EventLogReader {
    EvrReadFn read;            /* NULL for a memory reader */
    void *read_ctx;            /* read's argument (a FILE for a file reader); not owned */
    uint8_t *buf;              /* owned buffer of EVR_BUF_BYTES (stream readers) */
    const uint8_t *data;       /* buf, or the caller's memory */
    size_t len;                /* valid bytes at data */
    size_t pos;                /* next unread byte; pos <= len */
    uint64_t base;             /* file offset of data[0] */
    int at_eof;                /* the input has no more bytes (or failed) */
    char *name;                /* owned copy of the name given at open */

    EvrEventType *types;       /* declared types, header order; owns descriptions */
    size_t n_types;
    size_t types_capacity;
    uint16_t *index[EVR_N_IDS / EVR_INDEX_PAGE];   /* pages of EVR_INDEX_PAGE entries,
                                  allocated on first use: 1 + position in types,
                                  0 = undeclared; a NULL page declares nothing */

    enum ReaderState state;
    int saw_data_end;          /* the Word16 0xffff marker was read */
    int block_cap;             /* cap of the current block, -1 for global */
    uint64_t block_end;        /* offset just past the current block (0: none) */

    uint64_t error_offset;
    char error[EVR_ERROR_BYTES];   /* "" until the first error; first one wins */
};

/* ----------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------- */

/* Note [Reader errors]
 * ~~~~~~~~~~~~~~~~~~~~
 * An error stops the reader: every later evr_next() returns -1 and the
 * events already returned stay valid results.  Errors are what would stop
 * ghc-events too: a bad header (magic, markers, an id declared twice, or
 * id 0xffff declared), an event id not declared in the header, or input
 * that ends inside the header or inside an event.  The message starts with
 * the file offset of the item that is wrong or cut short.
 *
 * Tolerated, as ghc-events tolerates them: input that ends at an event
 * boundary without the data-end marker (a crashed program's log; see
 * evr_saw_data_end), bytes after the data-end marker, declared types we do
 * not decode (skipped by size), and decoded types whose payload does not
 * match the layout (EvrEvent.malformed says why; `strata-events check`
 * reports it).
 */
__attribute__((format(printf, 3, 4)))
static void reader_fail(EventLogReader *r, uint64_t offset, const char *fmt, ...)
{
    if (r->state == STATE_ERROR)
        return;
    r->state = STATE_ERROR;
    r->error_offset = offset;
    int n = snprintf(r->error, sizeof r->error, "offset %llu: ", (unsigned long long)offset);
    if (n < 0 || (size_t)n >= sizeof r->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ----------------------------------------------------------------------
 * Input: buffer, big-endian loads
 * ------------------------------------------------------------------- */

static size_t reader_avail(const EventLogReader *r)
{
    return r->len - r->pos;
}

static uint64_t reader_tell(const EventLogReader *r)
{
    return r->base + r->pos;
}

/* Makes up to `need` bytes available (need <= EVR_BUF_BYTES) and returns
 * how many are, which is less only at end of input.  See Note [Reader buffer]. */
static size_t reader_fill(EventLogReader *r, size_t need)
{
    if (reader_avail(r) >= need || r->read == NULL || r->at_eof)
        return reader_avail(r);
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, reader_avail(r));
        r->base += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    while (r->len < need && !r->at_eof) {
        errno = 0;
        ptrdiff_t got = r->read(r->read_ctx, r->buf + r->len, EVR_BUF_BYTES - r->len);
        if (got > 0) {
            r->len += (size_t)got;
            continue;
        }
        r->at_eof = 1;
        if (got < 0) {
            int e = errno;
            reader_fail(r, reader_tell(r) + reader_avail(r), "read error (errno=%d: %s)", e,
                        strerror(e));
        }
    }
    return reader_avail(r);
}

/* Consumes n bytes; returns 0 (consuming what there was) if input ends first. */
static int reader_skip(EventLogReader *r, uint64_t n)
{
    while (n > 0) {
        size_t want = n < EVR_BUF_BYTES ? (size_t)n : EVR_BUF_BYTES;
        size_t have = reader_fill(r, want);
        if (have == 0)
            return 0;
        size_t take = have < want ? have : want;
        r->pos += take;
        n -= take;
    }
    return 1;
}

static int header_read_u32(EventLogReader *r, const char *what, uint32_t *out)
{
    size_t have = reader_fill(r, 4);
    if (have < 4) {
        reader_fail(r, reader_tell(r), "truncated header (need 4 bytes for %s, have %zu)", what,
                    have);
        return 0;
    }
    *out = evr_be32(r->data + r->pos);
    r->pos += 4;
    return 1;
}

/* Reads the Word32 marker `want` (ascii name for messages). */
static int header_expect(EventLogReader *r, uint32_t want, const char *what)
{
    uint64_t at = reader_tell(r);
    uint32_t got;
    if (!header_read_u32(r, what, &got))
        return 0;
    if (got != want) {
        reader_fail(r, at, "bad %s (expected 0x%08x, got 0x%08x)", what, want, got);
        return 0;
    }
    return 1;
}

/* ----------------------------------------------------------------------
 * Header: the event type table
 * ------------------------------------------------------------------- */

static uint16_t index_get(const EventLogReader *r, uint16_t id)
{
    const uint16_t *page = r->index[id / EVR_INDEX_PAGE];
    return page != NULL ? page[id % EVR_INDEX_PAGE] : 0;
}

static int types_add(EventLogReader *r, uint16_t id, uint16_t size, char *description)
{
    uint16_t **page = &r->index[id / EVR_INDEX_PAGE];
    if (*page == NULL) {
        *page = calloc(EVR_INDEX_PAGE, sizeof **page);
        if (*page == NULL)
            return 0;
    }
    if (GROW_ARRAY_RESERVE_MIN(r->types, r->types_capacity, r->n_types + 1, 64) != 0)
        return 0;
    r->types[r->n_types] = (EvrEventType){ .id = id, .size = size, .description = description };
    r->n_types++;
    (*page)[id % EVR_INDEX_PAGE] = (uint16_t)r->n_types;
    return 1;
}

/* Parses one type entry after its "etb\0" marker. */
static int header_read_type(EventLogReader *r)
{
    uint64_t at = reader_tell(r);
    size_t have = reader_fill(r, 8);
    if (have < 8) {
        reader_fail(r, at, "truncated event type (need 8 bytes for id, size and description "
                           "length, have %zu)", have);
        return 0;
    }
    const uint8_t *p = r->data + r->pos;
    uint16_t id = evr_be16(p), size = evr_be16(p + 2);
    uint32_t desc_bytes = evr_be32(p + 4);
    r->pos += 8;
    if (id == EVENT_DATA_END) {
        reader_fail(r, at, "event type id 0xffff is reserved for the data-end marker");
        return 0;
    }
    if (index_get(r, id) != 0) {
        reader_fail(r, at, "event type %u declared twice", id);
        return 0;
    }
    size_t keep = desc_bytes < EVR_DESCRIPTION_MAX ? desc_bytes : EVR_DESCRIPTION_MAX;
    uint64_t desc_at = reader_tell(r);
    have = reader_fill(r, keep);
    if (have < keep) {
        reader_fail(r, desc_at, "truncated event type description (type %u, need %u bytes, "
                                "have %zu)", id, desc_bytes, have);
        return 0;
    }
    char *desc = malloc(keep + 1);
    if (desc == NULL) {
        reader_fail(r, desc_at, "out of memory (bytes=%zu)", keep + 1);
        return 0;
    }
    memcpy(desc, r->data + r->pos, keep);
    desc[keep] = '\0';
    r->pos += keep;
    if (!types_add(r, id, size, desc)) {
        free(desc);
        reader_fail(r, at, "out of memory (types=%zu)", r->n_types + 1);
        return 0;
    }
    if (!reader_skip(r, desc_bytes - keep)) {
        reader_fail(r, desc_at, "truncated event type description (type %u, need %u bytes)", id,
                    desc_bytes);
        return 0;
    }
    uint64_t extra_at = reader_tell(r);
    uint32_t extra_bytes;
    if (!header_read_u32(r, "extra info length", &extra_bytes))
        return 0;
    if (!reader_skip(r, extra_bytes)) {
        reader_fail(r, extra_at, "truncated event type extra info (type %u, need %u bytes)", id,
                    extra_bytes);
        return 0;
    }
    return header_expect(r, EVENT_ET_END, "event type end marker \"ete\\0\"");
}

static int header_read(EventLogReader *r)
{
    if (!header_expect(r, EVENT_HEADER_BEGIN, "header begin marker \"hdrb\" (not an eventlog?)"))
        return 0;
    if (!header_expect(r, EVENT_HET_BEGIN, "event type list marker \"hetb\""))
        return 0;
    for (;;) {
        uint64_t at = reader_tell(r);
        uint32_t marker;
        if (!header_read_u32(r, "event type marker", &marker))
            return 0;
        if (marker == EVENT_HET_END)
            break;
        if (marker != EVENT_ET_BEGIN) {
            reader_fail(r, at, "bad event type marker (expected 0x%08x \"etb\\0\" or 0x%08x "
                               "\"hete\", got 0x%08x)", EVENT_ET_BEGIN, EVENT_HET_END, marker);
            return 0;
        }
        if (!header_read_type(r))
            return 0;
    }
    if (!header_expect(r, EVENT_HEADER_END, "header end marker \"hdre\""))
        return 0;
    return header_expect(r, EVENT_DATA_BEGIN, "data begin marker \"datb\"");
}

/* ----------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------- */

/* Note [Block attribution]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A block marker says the next block_bytes bytes, counted from the marker's
 * own first byte, were written by one capability (0xffff: the global
 * buffer).  Events that start inside that range get its cap; events
 * outside any block (and the global buffer's) get -1, as ghc-events gives
 * them Nothing.  The marker itself is attributed to the block it opens.
 * A wrong size only mis-attributes caps; `check` reports it.
 */
static void event_attribute_cap(EventLogReader *r, EvrEvent *ev)
{
    ev->cap = ev->offset < r->block_end ? r->block_cap : -1;
    if (ev->type == EVENT_BLOCK_MARKER && ev->decoded) {
        r->block_end = ev->offset + ev->u.block.block_bytes;
        r->block_cap = ev->u.block.cap == EVENT_CAP_GLOBAL ? -1 : (int)ev->u.block.cap;
        ev->cap = r->block_cap;
    }
}

/* Note [GHC's IPE length]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC 9.10 declares each IPE event one byte longer than it writes: its
 * length counts a NUL after the source file name, but it joins file and
 * span with ':' and writes one NUL, after the span.  ghc-events reads the
 * IPE fields from the stream and never looks at the length, so it reads
 * these logs; a reader that trusts the length takes the next event's first
 * byte as the last payload byte and then reads a type like 0xa900.
 *
 * So for an IPE event, where the fields (a Word64 and six NUL-terminated
 * strings) end exactly one byte before the declared end, the reader asks
 * which end the next event starts at: the field end or the declared end.
 * The field end wins when an event (a declared type, or the data-end
 * marker) starts there and none starts at the declared end.  Everything
 * else is read by the declared length, as every other event is, so a
 * field that a later GHC appends is skipped, and a GHC that fixes its
 * length is read as it is.  EvrEvent.declared_payload_bytes keeps the
 * length as written; `strata-events show` prints both.
 */

/* True if the two bytes at data[i] begin an event: a declared type or the
 * data-end marker. */
static int starts_event(const EventLogReader *r, size_t i)
{
    uint16_t type = evr_be16(r->data + i);
    return type == EVENT_DATA_END || evr_type(r, type) != NULL;
}

/* Where the IPE event at r->pos (head_bytes of header, declared_bytes of
 * payload, all in the buffer) is GHC 9.10's: see Note [GHC's IPE length]. */
static int ipe_length_overstated(EventLogReader *r, size_t head_bytes, size_t declared_bytes)
{
    const uint8_t *payload = r->data + r->pos + head_bytes;
    size_t fields = 8;
    if (declared_bytes < fields + 6 + 1)
        return 0;
    for (int i = 0; i < 6; i++) {
        const uint8_t *nul = memchr(payload + fields, 0, declared_bytes - fields);
        if (nul == NULL)
            return 0;
        fields = (size_t)(nul - payload) + 1;
    }
    if (fields + 1 != declared_bytes)
        return 0;
    /* The look-ahead: two bytes past the declared end, if the input has them. */
    size_t end = head_bytes + declared_bytes;
    size_t have = reader_fill(r, end + 2);
    if (have < end + 1)
        return 0;
    size_t field_end = r->pos + end - 1;
    if (!starts_event(r, field_end))
        return 0;
    return have < end + 2 || !starts_event(r, field_end + 1);
}

int evr_next(EventLogReader *r, EvrEvent *out)
{
    if (r->state == STATE_END)
        return 0;
    if (r->state == STATE_ERROR)
        return -1;
    uint64_t at = reader_tell(r);
    size_t have = reader_fill(r, 2);
    if (r->state == STATE_ERROR)
        return -1;
    if (have == 0) {
        r->state = STATE_END;   /* tolerated: see Note [Reader errors] */
        return 0;
    }
    if (have < 2) {
        reader_fail(r, at, "truncated event header (need 2 bytes for the event type, have %zu)",
                    have);
        return -1;
    }
    uint16_t type = evr_be16(r->data + r->pos);
    if (type == EVENT_DATA_END) {
        r->pos += 2;
        r->saw_data_end = 1;
        r->state = STATE_END;
        return 0;
    }
    const EvrEventType *t = evr_type(r, type);
    if (t == NULL) {
        reader_fail(r, at, "undeclared event type %u (not in the header's type table)", type);
        return -1;
    }
    int variable = t->size == EVENT_SIZE_VARIABLE;
    size_t head_bytes = EVENT_HEADER_BYTES + (variable ? 2u : 0u);
    have = reader_fill(r, head_bytes);
    if (have < head_bytes) {
        reader_fail(r, at, "truncated event header (type %u, need %zu bytes, have %zu)", type,
                    head_bytes, have);
        return -1;
    }
    const uint8_t *p = r->data + r->pos;
    size_t payload_bytes = variable ? evr_be16(p + EVENT_HEADER_BYTES) : t->size;
    have = reader_fill(r, head_bytes + payload_bytes);
    if (have < head_bytes + payload_bytes) {
        reader_fail(r, at + head_bytes, "truncated event payload (type %u, need %zu bytes, "
                                        "have %zu)", type, payload_bytes, have - head_bytes);
        return -1;
    }
    p = r->data + r->pos;   /* reader_fill may have moved the bytes */
    memset(out, 0, sizeof *out);
    out->type = type;
    out->time_ns = evr_be64(p + 2);
    out->offset = at;
    out->payload = p + head_bytes;
    out->declared_payload_bytes = (uint32_t)payload_bytes;
    if (type == EVENT_IPE && variable && ipe_length_overstated(r, head_bytes, payload_bytes)) {
        payload_bytes--;
        p = r->data + r->pos;   /* the look-ahead may have moved the bytes */
        out->payload = p + head_bytes;
    }
    out->size_bytes = (uint32_t)(head_bytes + payload_bytes);
    out->payload_bytes = (uint32_t)payload_bytes;
    r->pos += head_bytes + payload_bytes;
    evr_decode(out, variable);
    event_attribute_cap(r, out);
    return 1;
}

/* ----------------------------------------------------------------------
 * Opening, closing, queries
 * ------------------------------------------------------------------- */

static EventLogReader *reader_alloc(const char *name)
{
    EventLogReader *r = calloc(1, sizeof *r);
    if (r == NULL)
        goto fail_reader;
    r->name = strdup(name != NULL ? name : "<eventlog>");
    if (r->name == NULL)
        goto fail_name;
    r->block_cap = -1;
    r->state = STATE_EVENTS;
    return r;

fail_name:
    free(r);
fail_reader:
    return NULL;
}

/* The file reader's read function: fread(), whose short count means end
 * of file or an error (ferror tells which). */
static ptrdiff_t file_read(void *ctx, void *buf, size_t max_bytes)
{
    FILE *f = ctx;
    size_t got = fread(buf, 1, max_bytes, f);
    if (got == 0 && ferror(f))
        return -1;
    return (ptrdiff_t)got;
}

EventLogReader *evr_open_stream(EvrReadFn read, void *ctx, const char *name)
{
    EventLogReader *r = reader_alloc(name);
    if (r == NULL)
        return NULL;
    r->buf = malloc(EVR_BUF_BYTES);
    if (r->buf == NULL) {
        evr_close(r);
        return NULL;
    }
    r->read = read;
    r->read_ctx = ctx;
    r->data = r->buf;
    header_read(r);
    return r;
}

EventLogReader *evr_open_file(FILE *f, const char *name)
{
    return evr_open_stream(file_read, f, name);
}

EventLogReader *evr_open_memory(const void *data, size_t size_bytes, const char *name)
{
    EventLogReader *r = reader_alloc(name);
    if (r == NULL)
        return NULL;
    r->data = size_bytes > 0 ? data : (const uint8_t *)"";
    r->len = size_bytes;
    r->at_eof = 1;
    header_read(r);
    return r;
}

void evr_close(EventLogReader *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n_types; i++)
        free((char *)r->types[i].description);
    free(r->types);
    for (size_t i = 0; i < EVR_N_IDS / EVR_INDEX_PAGE; i++)
        free(r->index[i]);
    free(r->buf);
    free(r->name);
    free(r);
}

const char *evr_error(const EventLogReader *r)
{
    return r->state == STATE_ERROR ? r->error : NULL;
}

uint64_t evr_error_offset(const EventLogReader *r)
{
    return r->state == STATE_ERROR ? r->error_offset : 0;
}

uint64_t evr_offset(const EventLogReader *r)
{
    return reader_tell(r);
}

int evr_saw_data_end(const EventLogReader *r)
{
    return r->saw_data_end;
}

const char *evr_name(const EventLogReader *r)
{
    return r->name;
}

size_t evr_type_count(const EventLogReader *r)
{
    return r->n_types;
}

const EvrEventType *evr_type_at(const EventLogReader *r, size_t index)
{
    return index < r->n_types ? &r->types[index] : NULL;
}

const EvrEventType *evr_type(const EventLogReader *r, uint16_t id)
{
    uint16_t i = index_get(r, id);
    return i == 0 ? NULL : &r->types[i - 1];
}

int evr_check(const EventLogReader *r)
{
    if (r == NULL || r->name == NULL || r->data == NULL)
        return 0;
    if (r->pos > r->len)
        return 0;
    if (r->read != NULL && (r->buf != r->data || r->len > EVR_BUF_BYTES))
        return 0;
    if (r->n_types > r->types_capacity || r->n_types >= EVR_N_IDS)
        return 0;
    for (size_t i = 0; i < r->n_types; i++) {
        const EvrEventType *t = &r->types[i];
        if (t->description == NULL || index_get(r, t->id) != i + 1)
            return 0;
    }
    size_t declared = 0;
    for (size_t p = 0; p < EVR_N_IDS / EVR_INDEX_PAGE; p++)
        for (size_t k = 0; r->index[p] != NULL && k < EVR_INDEX_PAGE; k++)
            declared += r->index[p][k] != 0;
    return declared == r->n_types;
}
