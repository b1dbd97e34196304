/*
 * reader/EventLogReader.h -- a streaming reader for GHC-format eventlogs
 * (strata's and GHC's own): the whole API of the reader module.
 *
 * The reader parses the header (the event type table) when it is opened,
 * then yields one event at a time.  It reads through one fixed-size buffer
 * and never loads the whole file, so memory is bounded by the buffer plus
 * the type table.  The binary format is the one in strata/EventLogFormat.h
 * (docs/reference/eventlog-format.md).  See Note [Reader errors] in
 * EventLogReader.c for what is an error and what is tolerated.  An event
 * is an EvrEvent (EvrEvent.h), its fields decoded by EventDecode.c; this
 * header includes both, so a tool includes this one.
 *
 * Typical use:
 *
 *     EventLogReader *r = evr_open_file(f, "prog.eventlog");
 *     EvrEvent ev;
 *     int rc;
 *     while ((rc = evr_next(r, &ev)) == 1)
 *         use(&ev);
 *     if (rc < 0)
 *         report(evr_error(r));   // "offset 1234: truncated event payload ..."
 *     evr_close(r);
 */
#ifndef STRATA_EVENTLOGREADER_H
#define STRATA_EVENTLOGREADER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "EventDecode.h"
#include "EvrEvent.h"

typedef struct EventLogReader EventLogReader;


/* Opens a reader on f (not closed by the reader) and parses the header.
 * name is used only by callers (evr_name).  Returns NULL only when out of
 * memory; a bad header is reported by evr_error() and the first evr_next(). */
EventLogReader *evr_open_file(FILE *f, const char *name);

/* Reads up to max_bytes of the stream into buf, as read(2) does: returns
 * how many bytes it read (> 0; fewer than asked is fine), 0 at the end of
 * the input, or -1 on an error with errno set.  It may block until there
 * is at least one byte. */
typedef ptrdiff_t (*EvrReadFn)(void *ctx, void *buf, size_t max_bytes);

/* Opens a reader on a stream (a socket, a pipe, a file still being
 * written) and parses the header, calling read(ctx, ...) for input.  Each
 * evr_next() reads only until its event is whole, so an event is returned
 * as soon as its bytes have arrived.  The end of the input at an event
 * boundary ends the log, as for a file.  ctx is not owned.  Returns NULL
 * only when out of memory. */
EventLogReader *evr_open_stream(EvrReadFn read, void *ctx, const char *name);

/* The same over a memory buffer, which must outlive the reader. */
EventLogReader *evr_open_memory(const void *data, size_t size_bytes, const char *name);

/* Frees the reader (not the FILE or the buffer). NULL is allowed. */
void evr_close(EventLogReader *r);

/* Reads the next event into *out: 1 = an event, 0 = end of the log (the
 * data-end marker, or end of input at an event boundary; see
 * evr_saw_data_end), -1 = error (evr_error).  After 0 or -1 every further
 * call returns the same. */
int evr_next(EventLogReader *r, EvrEvent *out);

/* "offset N: what went wrong (key=value ...)", or NULL if no error. */
const char *evr_error(const EventLogReader *r);

/* The file offset the error refers to (0 if none). */
uint64_t evr_error_offset(const EventLogReader *r);

/* The file offset of the next unread byte. */
uint64_t evr_offset(const EventLogReader *r);

/* 1 if the log ended with the data-end marker, 0 if it simply stopped. */
int evr_saw_data_end(const EventLogReader *r);

/* The name given at open. */
const char *evr_name(const EventLogReader *r);

/* Declared event types, in header order: index 0 .. evr_type_count()-1. */
size_t evr_type_count(const EventLogReader *r);
const EvrEventType *evr_type_at(const EventLogReader *r, size_t index);

/* The declaration of id, or NULL if the header does not declare it. */
const EvrEventType *evr_type(const EventLogReader *r, uint16_t id);


/* Checks the reader's internal invariants (buffer bounds, type index);
 * returns 1 if they hold.  For tests. */
int evr_check(const EventLogReader *r);

#endif /* STRATA_EVENTLOGREADER_H */
