/*
 * utils/strata-events/CheckCmd.c -- `strata-events check FILE`: validates a
 * log beyond what the reader needs to parse it, and stops at the first
 * problem with "<file>: offset N: <problem>" (stdout, exit 1).  See
 * Note [What check checks].  Format: docs/strata-events.md.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "CheckCmd.h"
#include "Tool.h"

/* Note [What check checks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * The reader already rejects bad framing: header markers, undeclared or
 * twice-declared types, cut-short events.  check adds:
 *   - payloads of the types the reader decodes must match their layout
 *     exactly (EvrEvent.malformed), since ghc-events reads a variable-size
 *     event's fields from the stream, not by its length, and so misparses
 *     the rest of the log after one with extra bytes (docs/reference/
 *     eventlog-format.md);
 *   - their string fields must be valid UTF-8, since ghc-events rejects
 *     the whole log otherwise (Note [Strings are UTF-8] in
 *     reader/EventDecode.c);
 *   - a block marker's size is at least the marker itself (24 bytes), the
 *     block ends exactly at an event boundary, at or before the data end
 *     (or just after the data-end marker, which GHC writes into its last
 *     block), and blocks do not nest.  A strata log (its RTS identifier
 *     starts "strata-") fails on any of these: strata's writer frames
 *     exactly.  Another log only has them counted on the OK line, since
 *     ghc-events reads past them (they only blur which capability wrote
 *     an event), and GHC 9.10's non-threaded RTS, flushing on a timer,
 *     now and then writes a block inside another;
 *   - timestamps within a block are counted when they decrease (from the
 *     marker's own timestamp on) and reported, but do not fail the check:
 *     GHC 9.0's own logs have a few (a GC_END stamped before the event
 *     before it), and check must accept what GHC writes;
 *   - the data-end marker is present, and nothing follows it.
 * Events outside blocks (the header-time events GHC writes before its
 * first flush, say) have no ordering requirement.
 */

#define BLOCK_MARKER_BYTES (EVENT_HEADER_BYTES + EVENT_SIZE_BLOCK_MARKER)

typedef struct CheckState {
    const char *path;
    uint64_t n_events;
    uint64_t n_blocks;
    uint64_t block_start;      /* offset of the current block's marker */
    uint64_t block_end;        /* offset just past it; 0 = not in a block */
    uint64_t last_time_ns;     /* latest timestamp in the current block */
    uint64_t n_backwards;      /* timestamps earlier than the one before */
    uint64_t first_backwards;  /* offset of the first such event */
    int strict_blocks;         /* a strata log: block framing must be exact */
    uint64_t n_irregular;      /* block framing slips tolerated (a GHC log) */
    uint64_t first_irregular;  /* offset of the first */
    char irregular[160];       /* what the first was */
} CheckState;

/* A block framing problem: fatal in a strata log, counted in another
 * (ghc-events reads past it; only capability attribution suffers).
 * Returns 0 (after printing) when fatal.  See Note [What check checks]. */
__attribute__((format(printf, 3, 4)))
static int block_irregular(CheckState *s, uint64_t offset, const char *fmt, ...)
{
    char what[sizeof s->irregular];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (s->strict_blocks) {
        printf("%s: offset %" PRIu64 ": %s\n", s->path, offset, what);
        return 0;
    }
    if (s->n_irregular++ == 0) {
        s->first_irregular = offset;
        memcpy(s->irregular, what, sizeof what);
    }
    return 1;
}

/* Prints "<file>: offset N: <problem>" and returns 0. */
__attribute__((format(printf, 3, 4)))
static int check_fail(const CheckState *s, uint64_t offset, const char *fmt, ...)
{
    printf("%s: offset %" PRIu64 ": ", s->path, offset);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    return 0;
}

/* Returns 0 (after printing the problem) if ev breaks a rule. */
static int check_event(CheckState *s, const EventLogReader *r, const EvrEvent *ev)
{
    if (ev->malformed != NULL)
        return check_fail(s, ev->offset, "malformed %s event (type %u): %s",
                          evr_type(r, ev->type)->description, ev->type, ev->malformed);
    EvrBadUtf8 bad;
    if (evr_find_invalid_utf8(ev, &bad)) {
        char index[16] = "";
        if (bad.index >= 0)
            snprintf(index, sizeof index, "[%d]", bad.index);
        return check_fail(s, ev->offset, "invalid UTF-8 in field %s%s of %s event (type %u, "
                          "time=%" PRIu64 "ns): byte 0x%02x at offset %zu of the field "
                          "(ghc-events rejects the whole log)", bad.field, index,
                          evr_type(r, ev->type)->description, ev->type, ev->time_ns,
                          bad.value, bad.byte);
    }
    if (ev->type == EVENT_RTS_IDENTIFIER && ev->decoded && s->n_events <= 64)
        s->strict_blocks = ev->u.rts_id.ident.len >= 7 &&
                           memcmp(ev->u.rts_id.ident.ptr, "strata-", 7) == 0;
    int in_block = ev->offset < s->block_end;
    if (in_block && ev->offset + ev->size_bytes > s->block_end &&
        !block_irregular(s, ev->offset, "event (type %u, %" PRIu32 " bytes) runs past the end "
                         "of its block (block at offset %" PRIu64 " ends at offset %" PRIu64 ")",
                         ev->type, ev->size_bytes, s->block_start, s->block_end))
        return 0;
    if (ev->type == EVENT_BLOCK_MARKER && ev->decoded) {
        if (in_block && !block_irregular(s, ev->offset, "block marker inside the block at offset "
                                         "%" PRIu64 " (which ends at offset %" PRIu64 ")",
                                         s->block_start, s->block_end))
            return 0;
        if (ev->u.block.block_bytes < BLOCK_MARKER_BYTES) {
            s->block_end = 0;
            return block_irregular(s, ev->offset, "block size too small (size=%" PRIu32
                                   ", at least %d)", ev->u.block.block_bytes,
                                   BLOCK_MARKER_BYTES);
        }
        s->n_blocks++;
        s->block_start = ev->offset;
        s->block_end = ev->offset + ev->u.block.block_bytes;
        s->last_time_ns = ev->time_ns;
        return 1;
    }
    if (in_block) {
        if (ev->time_ns < s->last_time_ns) {
            if (s->n_backwards++ == 0)
                s->first_backwards = ev->offset;
        } else {
            s->last_time_ns = ev->time_ns;
        }
    }
    return 1;
}

/* The end-of-log rules; end is the offset just past the last byte read. */
static int check_end(CheckState *s, const EventLogReader *r, FILE *f)
{
    uint64_t end = evr_offset(r);
    if (!evr_saw_data_end(r))
        return check_fail(s, end, "missing data end marker (0xffff): log cut short");
    uint64_t data_end = end - 2;
    /* GHC posts the data-end marker into its last buffer before flushing
     * it, so its last block counts the marker's two bytes: tolerated, as
     * ghc-events tolerates it.  See Note [What check checks]. */
    if (s->block_end > data_end && s->block_end != end &&
        !block_irregular(s, s->block_start, "block runs past the data end marker (ends at "
                         "offset %" PRIu64 ", data end at offset %" PRIu64 ")", s->block_end,
                         data_end))
        return 0;
    if (f != stdin && fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size >= 0 && (uint64_t)size > end)
            return check_fail(s, end, "%" PRIu64 " bytes after the data end marker",
                              (uint64_t)size - end);
    }
    return 1;
}

int cmd_check(const char *path)
{
    FILE *f;
    EventLogReader *r = tool_open(path, &f);
    if (r == NULL)
        return TOOL_EXIT_FAIL;
    CheckState s = { .path = path };
    EvrEvent ev;
    int rc = 0, ok = 1;
    while (ok && (rc = evr_next(r, &ev)) == 1) {
        s.n_events++;
        ok = check_event(&s, r, &ev);
    }
    if (ok && rc < 0) {
        printf("%s: %s\n", path, evr_error(r));
        ok = 0;
    }
    if (ok)
        ok = check_end(&s, r, f);
    if (ok) {
        printf("%s: OK: %" PRIu64 " events, %zu event types, %" PRIu64 " blocks", path,
               s.n_events, evr_type_count(r), s.n_blocks);
        if (s.n_backwards > 0)
            printf("; %" PRIu64 " timestamp(s) earlier than the event before in their block "
                   "(first at offset %" PRIu64 ")", s.n_backwards, s.first_backwards);
        if (s.n_irregular > 0)
            printf("; %" PRIu64 " block framing slip(s) that ghc-events reads past, which "
                   "only blur which capability wrote an event (first at offset %" PRIu64
                   ": %s)", s.n_irregular, s.first_irregular, s.irregular);
        putchar('\n');
    }
    tool_close(r, f);
    return ok ? TOOL_EXIT_OK : TOOL_EXIT_FAIL;
}
