/*
 * reader/EvrEvent.h -- an eventlog event as the reader yields it: the
 * type's declaration from the header, the event's framing and its
 * decoded fields.  Types only (and one inline copy); the reader is
 * EventLogReader.h, the decoding EventDecode.h.
 */
#ifndef STRATA_EVR_EVENT_H
#define STRATA_EVR_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <strata/EventLogFormat.h>

/* A byte string inside an event's payload; not NUL-terminated.  Valid until
 * the next evr_next() or evr_close() on the same reader. */
typedef struct EvrStr {
    const char *ptr;   /* first byte (never NULL once decoded) */
    size_t len;        /* bytes, excluding any NUL terminator */
} EvrStr;

/* A NUL-terminated copy of s (malloc'd; free() it), or NULL when out of
 * memory.  Inline: it needs nothing of the reader. */
static inline char *evr_str_dup(EvrStr s)
{
    char *c = malloc(s.len + 1);
    if (c != NULL) {
        memcpy(c, s.ptr, s.len);
        c[s.len] = '\0';
    }
    return c;
}

/* One declared event type from the header. */
typedef struct EvrEventType {
    uint16_t id;              /* GHC's event type id; never EVENT_DATA_END */
    uint16_t size;            /* fixed payload bytes, or EVENT_SIZE_VARIABLE */
    const char *description;  /* NUL-terminated; clamped to EVR_DESCRIPTION_MAX bytes */
} EvrEventType;

#define EVR_DESCRIPTION_MAX 1024   /* longer descriptions are truncated */
#define EVR_HEAP_PROF_FILTERS 7    /* filter strings in HEAP_PROF_BEGIN */

/* One event.  The decoded fields (`u`) are filled for the event types the
 * tools need (see evr_decodes_type); `decoded` says whether they are valid. */
typedef struct EvrEvent {
    uint16_t type;             /* event type id (declared in the header) */
    uint64_t time_ns;          /* the event's timestamp */
    int cap;                   /* cap of the enclosing block; -1 for none or global */
    uint64_t offset;           /* file offset of the event's first byte */
    uint32_t size_bytes;       /* whole event on the wire: header, length, payload */
    const uint8_t *payload;    /* payload bytes (valid until the next evr_next) */
    uint32_t payload_bytes;    /* payload length (excludes the Word16 length field) */
    uint32_t declared_payload_bytes;  /* the length the event declares: payload_bytes,
                                  or one more for GHC 9.10's IPE events (Note [GHC's
                                  IPE length] in EventLogReader.c) */
    int decoded;               /* 1: `u` holds this type's fields */
    const char *malformed;     /* non-NULL: a type we decode whose payload does
                                  not match its layout (static string, why) */
    union {
        struct {               /* EVENT_BLOCK_MARKER */
            uint32_t block_bytes;   /* from this marker's first byte to block end */
            uint64_t end_time_ns;
            uint16_t cap;           /* raw, EVENT_CAP_GLOBAL for the global buffer */
        } block;
        struct {               /* HEAP_SIZE, HEAP_LIVE, BLOCKS_SIZE, HEAP_ALLOCATED */
            uint32_t capset;
            uint64_t bytes;
        } heap;
        struct {               /* RTS_IDENTIFIER */
            uint32_t capset;
            EvrStr ident;
        } rts_id;
        struct {               /* PROGRAM_ARGS */
            uint32_t capset;
            EvrStr args;            /* NUL-separated: argv[0]\0argv[1]\0... */
            uint32_t n_args;
        } args;
        struct {               /* WALL_CLOCK_TIME */
            uint32_t capset;
            uint64_t secs;
            uint32_t nsecs;
        } wall_clock;
        struct {               /* USER_MSG, USER_MARKER */
            EvrStr text;
        } user;
        struct {               /* HEAP_PROF_BEGIN */
            uint8_t profile_id;
            uint64_t interval_ns;
            uint32_t breakdown;     /* HEAP_PROF_BREAKDOWN_* */
            EvrStr filters[EVR_HEAP_PROF_FILTERS];  /* module, closure descr, type
                                       descr, cost centre, CCS, retainer, biography */
        } prof_begin;
        struct {               /* HEAP_PROF_SAMPLE_BEGIN/END, HEAP_BIO_PROF_SAMPLE_BEGIN */
            uint64_t census;        /* GHC's census counter (its LDV "era", not a -he
                                       era): 0 but under -hb; strata writes 0 */
            uint64_t sample_time_ns;   /* BIO begin only; else the event's time */
        } sample;
        struct {               /* HEAP_PROF_SAMPLE_STRING */
            uint8_t profile_id;
            uint64_t residency_bytes;
            EvrStr label;
        } sample_string;
        struct {               /* HEAP_PROF_COST_CENTRE: one cost centre (-prof) */
            uint32_t id;
            EvrStr label, module, srcloc;
            uint8_t flags;          /* bit 0: a CAF */
        } cost_centre;
        struct {               /* HEAP_PROF_SAMPLE_COST_CENTRE (-hc) */
            uint8_t profile_id;
            uint64_t residency_bytes;
            uint8_t depth;          /* cost centres in the stack (CCS_MAIN not counted) */
            const uint8_t *stack;   /* depth big-endian Word32 ids, innermost first:
                                       read with evr_ccs_id() */
        } sample_cc;
        struct {               /* IPE */
            uint64_t info;
            EvrStr table_name, closure_desc, ty_desc, label, module, srcloc;
        } ipe;
        struct {               /* ALLOC_SAMPLING (strata's own, as those below) */
            uint64_t rate_bytes;    /* mean bytes between samples; never 0 */
        } alloc_sampling;
        struct {               /* ALLOC_FRAME */
            uint32_t frame;
            uint32_t line;          /* 0 if unknown */
            EvrStr function, file;  /* either may be empty */
        } alloc_frame;
        struct {               /* ALLOC_STACK */
            uint32_t stack;
            uint8_t depth;          /* frames, innermost first: read with
                                       evr_alloc_stack_frame() */
            const uint8_t *frames;
        } alloc_stack;
        struct {               /* ALLOC_SAMPLE */
            uint64_t sample;        /* its number (1, 2, ...); a repeat
                                       re-announces a live one */
            uint64_t size_bytes;
            uint32_t stack;
            uint64_t era;
            uint16_t cap;
            uint8_t kind;           /* 0 nursery, 1 large, 2 pinned */
        } alloc_sample;
        struct {               /* ALLOC_DEATH */
            uint64_t sample;
        } alloc_death;
    } u;
} EvrEvent;

/* Where a decoded event's string field is not valid UTF-8. */
typedef struct EvrBadUtf8 {
    const char *field;   /* the field's name ("text", "label", "args", ...); static */
    int index;           /* which element of a list field (args, filters); -1 if none */
    size_t byte;         /* offset within the field of the first invalid byte */
    uint8_t value;       /* that byte */
} EvrBadUtf8;

#endif /* STRATA_EVR_EVENT_H */
