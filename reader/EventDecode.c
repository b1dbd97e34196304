/*
 * reader/EventDecode.c -- the fields of the event types the tools need
 * (EventDecode.h), decoded from a payload the reader (EventLogReader.c)
 * has already framed, and the check that their strings are UTF-8
 * (base/Utf8.c's rule).  Notes here: [Decoding known events], [Strings
 * are UTF-8].
 */
#include "EventDecode.h"

#include <string.h>

#include "Utf8.h"

/* ----------------------------------------------------------------------
 * Decoding the events the tools need
 * ------------------------------------------------------------------- */

/* Note [Decoding known events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Fields are decoded from the payload the framing already delimited, never
 * from the stream, so a payload of the wrong shape cannot desynchronise the
 * reader.  A fixed-size event longer than the fields is fine (GHC extends
 * fixed events by appending; readers take the prefix).  A shorter one, a
 * missing NUL terminator, or bytes left after the last field of a
 * variable-size event we know sets EvrEvent.malformed: ghc-events would
 * misparse such an event (docs/reference/eventlog-format.md, section 3), so `check` reports it.
 */
typedef struct Cursor {
    const uint8_t *p;
    size_t left;
    const char *bad;   /* first problem, or NULL */
} Cursor;

static int cursor_take(Cursor *c, size_t n, const uint8_t **out)
{
    if (c->bad != NULL)
        return 0;
    if (c->left < n) {
        c->bad = "payload shorter than the event's fields";
        return 0;
    }
    *out = c->p;
    c->p += n;
    c->left -= n;
    return 1;
}

static uint8_t cursor_u8(Cursor *c)
{
    const uint8_t *p;
    return cursor_take(c, 1, &p) ? p[0] : 0;
}

static uint16_t cursor_u16(Cursor *c)
{
    const uint8_t *p;
    return cursor_take(c, 2, &p) ? evr_be16(p) : 0;
}

static uint32_t cursor_u32(Cursor *c)
{
    const uint8_t *p;
    return cursor_take(c, 4, &p) ? evr_be32(p) : 0;
}

static uint64_t cursor_u64(Cursor *c)
{
    const uint8_t *p;
    return cursor_take(c, 8, &p) ? evr_be64(p) : 0;
}

/* A NUL-terminated string; the NUL is consumed but not counted. */
static EvrStr cursor_cstr(Cursor *c)
{
    EvrStr s = { .ptr = "", .len = 0 };
    if (c->bad != NULL)
        return s;
    const uint8_t *nul = memchr(c->p, 0, c->left);
    if (nul == NULL) {
        c->bad = "string not NUL-terminated";
        return s;
    }
    s.ptr = (const char *)c->p;
    s.len = (size_t)(nul - c->p);
    c->left -= s.len + 1;
    c->p = nul + 1;
    return s;
}

/* The rest of the payload as one string. */
static EvrStr cursor_rest(Cursor *c)
{
    EvrStr s = { .ptr = "", .len = 0 };
    if (c->bad != NULL)
        return s;
    s.ptr = (const char *)c->p;
    s.len = c->left;
    c->p += c->left;
    c->left = 0;
    return s;
}

static void cursor_expect_end(Cursor *c)
{
    if (c->bad == NULL && c->left != 0)
        c->bad = "trailing bytes after the event's fields";
}

static int str_is_decimal(EvrStr s)
{
    if (s.len == 0)
        return 0;
    for (size_t i = 0; i < s.len; i++)
        if (s.ptr[i] < '0' || s.ptr[i] > '9')
            return 0;
    return 1;
}

uint32_t evr_ccs_id(const EvrEvent *ev, size_t k)
{
    return evr_be32(ev->u.sample_cc.stack + 4 * k);
}

int evr_decodes_type(uint16_t id)
{
    switch (id) {
    case EVENT_BLOCK_MARKER:
    case EVENT_HEAP_SIZE:
    case EVENT_HEAP_LIVE:
    case EVENT_BLOCKS_SIZE:
    case EVENT_HEAP_ALLOCATED:
    case EVENT_RTS_IDENTIFIER:
    case EVENT_PROGRAM_ARGS:
    case EVENT_WALL_CLOCK_TIME:
    case EVENT_USER_MSG:
    case EVENT_USER_MARKER:
    case EVENT_HEAP_PROF_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_END:
    case EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_STRING:
    case EVENT_HEAP_PROF_COST_CENTRE:
    case EVENT_HEAP_PROF_SAMPLE_COST_CENTRE:
    case EVENT_IPE:
    case EVENT_GC_START:
    case EVENT_GC_END:
    case EVENT_ALLOC_SAMPLING:
    case EVENT_ALLOC_FRAME:
    case EVENT_ALLOC_STACK:
    case EVENT_ALLOC_SAMPLE:
    case EVENT_ALLOC_DEATH:
        return 1;
    default:
        return 0;
    }
}

uint32_t evr_alloc_stack_frame(const EvrEvent *ev, size_t k)
{
    return evr_be32(ev->u.alloc_stack.frames + 4 * k);
}

/* evr_decode for allocation sampling's events (strata's own). */
static void decode_alloc(EvrEvent *ev, Cursor *c)
{
    switch (ev->type) {
    case EVENT_ALLOC_SAMPLING:
        ev->u.alloc_sampling.rate_bytes = cursor_u64(c);
        if (c->bad == NULL && ev->u.alloc_sampling.rate_bytes == 0)
            c->bad = "allocation sampling at a rate of 0 bytes";
        break;
    case EVENT_ALLOC_FRAME:
        ev->u.alloc_frame.frame = cursor_u32(c);
        ev->u.alloc_frame.line = cursor_u32(c);
        ev->u.alloc_frame.function = cursor_cstr(c);
        ev->u.alloc_frame.file = cursor_cstr(c);
        break;
    case EVENT_ALLOC_STACK: {
        const uint8_t *ids = NULL;
        ev->u.alloc_stack.stack = cursor_u32(c);
        ev->u.alloc_stack.depth = cursor_u8(c);
        cursor_take(c, (size_t)ev->u.alloc_stack.depth * 4, &ids);
        ev->u.alloc_stack.frames = ids;
        break;
    }
    case EVENT_ALLOC_SAMPLE:
        ev->u.alloc_sample.sample = cursor_u64(c);
        ev->u.alloc_sample.size_bytes = cursor_u64(c);
        ev->u.alloc_sample.stack = cursor_u32(c);
        ev->u.alloc_sample.era = cursor_u64(c);
        ev->u.alloc_sample.cap = cursor_u16(c);
        ev->u.alloc_sample.kind = cursor_u8(c);
        break;
    case EVENT_ALLOC_DEATH:
        ev->u.alloc_death.sample = cursor_u64(c);
        break;
    default:
        break;
    }
}

/* evr_decode for the heap profile's events. */
static void decode_heap_prof(EvrEvent *ev, Cursor *c)
{
    switch (ev->type) {
    case EVENT_HEAP_PROF_BEGIN:
        ev->u.prof_begin.profile_id = cursor_u8(c);
        ev->u.prof_begin.interval_ns = cursor_u64(c);
        ev->u.prof_begin.breakdown = cursor_u32(c);
        for (int i = 0; i < EVR_HEAP_PROF_FILTERS; i++)
            ev->u.prof_begin.filters[i] = cursor_cstr(c);
        if (c->bad == NULL && (ev->u.prof_begin.breakdown < HEAP_PROF_BREAKDOWN_COST_CENTRE ||
                              ev->u.prof_begin.breakdown > HEAP_PROF_BREAKDOWN_ERA))
            c->bad = "unknown heap profile breakdown code (GHC's are 1-9)";
        break;
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_END:
        ev->u.sample.census = cursor_u64(c);
        ev->u.sample.sample_time_ns = ev->time_ns;
        break;
    case EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN:
        ev->u.sample.census = cursor_u64(c);
        ev->u.sample.sample_time_ns = cursor_u64(c);
        break;
    case EVENT_HEAP_PROF_SAMPLE_STRING:
        ev->u.sample_string.profile_id = cursor_u8(c);
        ev->u.sample_string.residency_bytes = cursor_u64(c);
        ev->u.sample_string.label = cursor_cstr(c);
        break;
    case EVENT_HEAP_PROF_COST_CENTRE:
        ev->u.cost_centre.id = cursor_u32(c);
        ev->u.cost_centre.label = cursor_cstr(c);
        ev->u.cost_centre.module = cursor_cstr(c);
        ev->u.cost_centre.srcloc = cursor_cstr(c);
        ev->u.cost_centre.flags = cursor_u8(c);
        break;
    case EVENT_HEAP_PROF_SAMPLE_COST_CENTRE: {
        const uint8_t *ids = NULL;
        ev->u.sample_cc.profile_id = cursor_u8(c);
        ev->u.sample_cc.residency_bytes = cursor_u64(c);
        ev->u.sample_cc.depth = cursor_u8(c);
        cursor_take(c, (size_t)ev->u.sample_cc.depth * 4, &ids);
        ev->u.sample_cc.stack = ids;
        break;
    }
    default:
        break;
    }
}

void evr_decode(EvrEvent *ev, int variable)
{
    Cursor c = { .p = ev->payload, .left = ev->payload_bytes, .bad = NULL };
    if (!evr_decodes_type(ev->type))
        return;
    switch (ev->type) {
    case EVENT_GC_START:
    case EVENT_GC_END:
        break;
    case EVENT_BLOCK_MARKER:
        ev->u.block.block_bytes = cursor_u32(&c);
        ev->u.block.end_time_ns = cursor_u64(&c);
        ev->u.block.cap = cursor_u16(&c);
        break;
    case EVENT_HEAP_SIZE:
    case EVENT_HEAP_LIVE:
    case EVENT_BLOCKS_SIZE:
    case EVENT_HEAP_ALLOCATED:
        ev->u.heap.capset = cursor_u32(&c);
        ev->u.heap.bytes = cursor_u64(&c);
        break;
    case EVENT_RTS_IDENTIFIER:
        ev->u.rts_id.capset = cursor_u32(&c);
        ev->u.rts_id.ident = cursor_rest(&c);
        break;
    case EVENT_PROGRAM_ARGS: {
        ev->u.args.capset = cursor_u32(&c);
        ev->u.args.args = cursor_rest(&c);
        ev->u.args.n_args = 0;
        EvrStr a = ev->u.args.args;
        for (size_t i = 0; i < a.len; i++)
            if (a.ptr[i] == '\0')
                ev->u.args.n_args++;
        if (c.bad == NULL && a.len > 0 && a.ptr[a.len - 1] != '\0')
            c.bad = "last argument not NUL-terminated";
        break;
    }
    case EVENT_WALL_CLOCK_TIME:
        ev->u.wall_clock.capset = cursor_u32(&c);
        ev->u.wall_clock.secs = cursor_u64(&c);
        ev->u.wall_clock.nsecs = cursor_u32(&c);
        break;
    case EVENT_USER_MSG:
    case EVENT_USER_MARKER:
        ev->u.user.text = cursor_rest(&c);
        break;
    case EVENT_HEAP_PROF_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_END:
    case EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_STRING:
    case EVENT_HEAP_PROF_COST_CENTRE:
    case EVENT_HEAP_PROF_SAMPLE_COST_CENTRE:
        decode_heap_prof(ev, &c);
        break;
    case EVENT_IPE:
        ev->u.ipe.info = cursor_u64(&c);
        ev->u.ipe.table_name = cursor_cstr(&c);
        ev->u.ipe.closure_desc = cursor_cstr(&c);
        ev->u.ipe.ty_desc = cursor_cstr(&c);
        ev->u.ipe.label = cursor_cstr(&c);
        ev->u.ipe.module = cursor_cstr(&c);
        ev->u.ipe.srcloc = cursor_cstr(&c);
        if (c.bad == NULL && !str_is_decimal(ev->u.ipe.closure_desc))
            c.bad = "IPE closure description is not a decimal number";
        break;
    case EVENT_ALLOC_SAMPLING:
    case EVENT_ALLOC_FRAME:
    case EVENT_ALLOC_STACK:
    case EVENT_ALLOC_SAMPLE:
    case EVENT_ALLOC_DEATH:
        decode_alloc(ev, &c);
        break;
    default:
        return;
    }
    if (variable)
        cursor_expect_end(&c);
    ev->malformed = c.bad;
    ev->decoded = c.bad == NULL;
}

/* ----------------------------------------------------------------------
 * UTF-8 in string fields
 * ------------------------------------------------------------------- */

/* Note [Strings are UTF-8]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * ghc-events decodes every string field as UTF-8 and fails the whole log
 * at the first invalid byte, so a log with one is as broken as one with a
 * bad payload layout, yet our reader (which hands out bytes) parses it
 * fine.  evr_find_invalid_utf8 lets `check` report it.  The rule is the
 * strict one (RFC 3629): no overlong forms, no surrogates, nothing above
 * U+10FFFF (base/Utf8.c, which the tools' output shares).  It is written
 * independently of the writer's repair (eventlog/EventLog.c), so each
 * checks the other through the format.  U+0000 is
 * valid; it only matters in the fields the payload length delimits
 * (user messages), since the others end at their NUL.
 */

/* Fills *bad and returns 1 if s has an invalid byte. */
static int utf8_check(EvrStr s, const char *field, int index, EvrBadUtf8 *bad)
{
    const uint8_t *p = (const uint8_t *)s.ptr;
    for (size_t i = 0; i < s.len;) {
        size_t n = utf8_valid_len(p + i, s.len - i);
        if (n == 0) {
            *bad = (EvrBadUtf8){ .field = field, .index = index, .byte = i, .value = p[i] };
            return 1;
        }
        i += n;
    }
    return 0;
}

/* Each NUL-terminated element of a NUL-separated list (program args). */
static int utf8_check_list(EvrStr s, const char *field, EvrBadUtf8 *bad)
{
    int index = 0;
    size_t start = 0;
    for (size_t i = 0; i <= s.len; i++) {
        if (i == s.len || s.ptr[i] == '\0') {
            EvrStr elem = { .ptr = s.ptr + start, .len = i - start };
            if (utf8_check(elem, field, index, bad)) {
                bad->byte += start;   /* offset within the whole field */
                return 1;
            }
            index++;
            start = i + 1;
        }
    }
    return 0;
}

int evr_find_invalid_utf8(const EvrEvent *ev, EvrBadUtf8 *bad)
{
    static const char *const filter_names[EVR_HEAP_PROF_FILTERS] = {
        "module_filter", "closure_descr_filter", "type_descr_filter",
        "cost_centre_filter", "cost_centre_stack_filter", "retainer_filter",
        "biography_filter",
    };
    if (!ev->decoded)
        return 0;
    switch (ev->type) {
    case EVENT_RTS_IDENTIFIER:
        return utf8_check(ev->u.rts_id.ident, "ident", -1, bad);
    case EVENT_PROGRAM_ARGS:
        return utf8_check_list(ev->u.args.args, "args", bad);
    case EVENT_USER_MSG:
    case EVENT_USER_MARKER:
        return utf8_check(ev->u.user.text, "text", -1, bad);
    case EVENT_HEAP_PROF_BEGIN:
        for (int i = 0; i < EVR_HEAP_PROF_FILTERS; i++)
            if (utf8_check(ev->u.prof_begin.filters[i], filter_names[i], -1, bad))
                return 1;
        return 0;
    case EVENT_HEAP_PROF_SAMPLE_STRING:
        return utf8_check(ev->u.sample_string.label, "label", -1, bad);
    case EVENT_ALLOC_FRAME:
        return utf8_check(ev->u.alloc_frame.function, "function", -1, bad) ||
               utf8_check(ev->u.alloc_frame.file, "file", -1, bad);
    case EVENT_IPE:
        return utf8_check(ev->u.ipe.table_name, "table_name", -1, bad) ||
               utf8_check(ev->u.ipe.closure_desc, "closure_desc", -1, bad) ||
               utf8_check(ev->u.ipe.ty_desc, "ty_desc", -1, bad) ||
               utf8_check(ev->u.ipe.label, "label", -1, bad) ||
               utf8_check(ev->u.ipe.module, "module", -1, bad) ||
               utf8_check(ev->u.ipe.srcloc, "srcloc", -1, bad);
    default:
        return 0;
    }
}
