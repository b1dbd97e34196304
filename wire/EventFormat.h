/*
 * wire/EventFormat.h -- the event format as one table: every GHC event
 * type strata knows, with its id, fixed payload size (or
 * EVENT_SIZE_VARIABLE), GHC's description and its payload's fields in
 * order.  The writer's header (eventlog/EventLog.c) declares the types
 * marked `emitted` from it; eventlog_type_size and
 * eventlog_type_description (strata/EventLogFormat.h) answer from it; the
 * round-trip test (testsuite/unit/test_event_format.c) writes every
 * emitted type with the real writer and reads each field back, by this
 * table, with the reader.  See Note [One table for the event format].
 */
#ifndef STRATA_EVENTFORMAT_H
#define STRATA_EVENTFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/EventLogFormat.h"

/* How one payload field is encoded (every integer big-endian). */
typedef enum {
    EVENT_FIELD_U8,
    EVENT_FIELD_U16,
    EVENT_FIELD_U32,
    EVENT_FIELD_U64,
    EVENT_FIELD_CSTR,        /* bytes, then a NUL */
    EVENT_FIELD_REST,        /* bytes up to the payload's end, no NUL */
    EVENT_FIELD_CSTR_LIST,   /* NUL-terminated strings up to the payload's end */
    EVENT_FIELD_U32_COUNTED, /* as many Word32s as the U8 field before says */
} EventFieldKind;

typedef struct {
    const char *name;        /* GHC's (ghc-events') name for it */
    EventFieldKind kind;
} EventField;

#define EVENT_FORMAT_MAX_FIELDS 13

typedef struct {
    uint16_t id;             /* GHC's event type id */
    uint16_t size;           /* payload bytes, or EVENT_SIZE_VARIABLE */
    bool emitted;            /* strata's writer declares and posts it */
    const char *name;        /* the id's name, as in EventLogFormat.h */
    const char *description; /* GHC's header text */
    size_t n_fields;
    EventField fields[EVENT_FORMAT_MAX_FIELDS];
} EventFormat;

/* The table, in ascending id order. */
extern const EventFormat event_formats[];
extern const size_t n_event_formats;

/* The entry for id, or NULL if strata does not know it. */
const EventFormat *event_format_find(uint16_t id);

/* The bytes a field of fixed width takes (1, 2, 4, 8), or 0 for the
 * variable kinds. */
size_t event_field_width(EventFieldKind kind);

#endif /* STRATA_EVENTFORMAT_H */
