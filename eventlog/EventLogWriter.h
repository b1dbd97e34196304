/*
 * eventlog/EventLogWriter.h -- where the eventlog's bytes go: a struct of
 * function pointers (docs/HACKING.md, Module boundaries; in the manner of GHC's EventLogWriter)
 * with three implementations: a file, nowhere, and a growable memory
 * buffer that tests read back.  The writer sees only bytes; framing is
 * EventLog.c's business.  See docs/design/eventlog.md.
 */
#ifndef STRATA_EVENTLOGWRITER_H
#define STRATA_EVENTLOGWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    /* Opens the output.  Returns false (after reporting why, once) if it
     * cannot; the eventlog then stays off. */
    bool (*init)(void);
    /* Writes all n bytes.  Returns false (after reporting why, once) on
     * any error, leaving none of the n bytes in the output where the
     * output allows it (a file is cut back to its size before the call);
     * where it does not, every later write fails too.  After a failure
     * the caller may try one more write (the data end marker), then calls
     * stop.  See Note [Eventlog write errors] in EventLogWriter.c. */
    bool (*write)(const void *bytes, size_t n);
    /* Pushes written bytes to their destination (no-op if unbuffered). */
    void (*flush)(void);
    /* Closes the output; init may be called again afterwards. */
    void (*stop)(void);
} EventLogWriter;

/* Writes to rts_flags.eventlog_file, or "<prog>.eventlog" in the current
 * directory.  On an error prints, once,
 * "<prog>: eventlog: cannot write <file>: <strerror>; continuing without
 * the eventlog". */
extern const EventLogWriter eventlog_file_writer;

/* Discards everything (--null-eventlog-writer). */
extern const EventLogWriter eventlog_null_writer;

/* Appends to a buffer in memory; init empties it. */
extern const EventLogWriter eventlog_memory_writer;

/* The bytes the memory writer holds (valid until its next write or
 * init); *n_bytes receives their number. */
const uint8_t *eventlog_memory_writer_bytes(size_t *n_bytes);

/* Makes the memory writer's write fail from now on (as a full disk
 * would), or work again; for tests of the error path. */
void eventlog_memory_writer_set_failing(bool failing);

/* Makes the memory writer act as a disk holding max_bytes in all
 * (SIZE_MAX: no limit): a write that does not fit keeps nothing and fails
 * as a full disk would.  For tests of what a write error loses. */
void eventlog_memory_writer_set_limit(size_t max_bytes);

/* Frees the memory writer's buffer (and lifts any failure or limit). */
void eventlog_memory_writer_free(void);

#endif /* STRATA_EVENTLOGWRITER_H */
