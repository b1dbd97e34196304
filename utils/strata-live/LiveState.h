/*
 * utils/strata-live/LiveState.h -- what strata-live knows about the program
 * it watches, built from its eventlog stream one event at a time, and its
 * two renderings: Prometheus' text exposition (/metrics) and the latest
 * census as a pprof profile (/debug/pprof/heap).  The whole API of the
 * module.  Memory is bounded whatever the stream's length: see Note [What
 * strata-live keeps] in LiveState.c.
 *
 * Thread safety: none here.  The reading thread and the HTTP threads share
 * one LiveState under the caller's lock (main.c).
 */
#ifndef STRATA_LIVESTATE_H
#define STRATA_LIVESTATE_H

#include <stddef.h>
#include <stdint.h>

#include "AllocModel.h"
#include "EventLogReader.h"
#include "HeapModel.h"

#define LIVE_MAX_CAPS 256          /* capabilities tracked per stream */
#define LIVE_PAUSE_BUCKETS 12      /* GC pause histogram buckets, +Inf excluded */

/* The figures of the stream now being read (reset when a new one starts). */
typedef struct LiveStream {
    char *program;                 /* owned: argv[0] from PROGRAM_ARGS, or NULL */
    char *rts_id;                  /* owned: RTS_IDENTIFIER, or NULL */
    int have_pid;
    uint32_t pid;                  /* OSPROCESS_PID */
    int have_heap_size, have_heap_live, have_blocks_size;
    uint64_t heap_size_bytes, heap_live_bytes, blocks_size_bytes;   /* latest */
    uint64_t allocated_bytes[LIVE_MAX_CAPS];   /* HEAP_ALLOCATED: per cap, cumulative */
    int have_allocated;
    uint64_t gcs;                  /* GC_END events */
    uint64_t copied_bytes;         /* GC_STATS_GHC: sum of copied bytes */
    uint64_t gc_start_ns[LIVE_MAX_CAPS];       /* open GC per cap; 0 = none */
    uint64_t pause_counts[LIVE_PAUSE_BUCKETS + 1];   /* per bucket, +Inf last;
                                      not cumulative (rendering sums them) */
    double pause_sum_seconds;
    double last_pause_seconds;     /* the latest GC's pause (the page's header) */
    uint64_t pause_count;
    HeapModel census;              /* the latest census, its labels and the IPEs */
    uint64_t censuses;             /* censuses read */
    int have_era;                  /* a -he census was read: */
    uint64_t era;                  /* its largest era */
    AllocModel samples;            /* the sampled allocations (--alloc-sample) */
} LiveStream;

typedef struct LiveState {
    const char *service_name;      /* --service-name, or NULL: the program's name */
    size_t top;                    /* census bands shown; the rest summed as other */
    LiveStream stream;             /* the figures served */
    LiveStream pending;            /* a new stream's preamble, not yet served */
    int pending_active;            /* the stream being read is still in pending */
    /* strata-live's own figures, kept across streams */
    uint64_t streams;              /* streams that gave a figure, not a preamble alone */
    uint64_t stream_errors;        /* streams that ended with a reader error */
    uint64_t events;               /* events read, all streams */
    uint64_t bytes;                /* eventlog bytes read, all streams */
    int connected;                 /* a stream is being read now */
    int out_of_memory;             /* sticky: a census or IPE was lost */
} LiveState;

void live_state_init(LiveState *s, const char *service_name, size_t top);
void live_state_free(LiveState *s);

/* A new stream begins (a connection, a file reopened): its figures
 * replace the last stream's. */
void live_state_stream_begin(LiveState *s);

/* The stream ended (ok: at its end; else with an error).  Its figures stay
 * until the next stream begins. */
void live_state_stream_end(LiveState *s, int ok);

/* Takes in one event of the current stream. */
void live_state_add(LiveState *s, const EvrEvent *ev);

/* Renders /metrics (Prometheus text exposition format 0.0.4) into a
 * malloc'd NUL-terminated buffer; NULL when out of memory. */
char *live_state_render_metrics(const LiveState *s, size_t *len_out);

/* What /debug/pprof/heap and /debug/pprof/allocs serve. */
typedef enum LiveProfile {
    LIVE_PROFILE_HEAP,             /* the sampled heap, inuse_space first, as
                                      Go's; without samples, the latest census */
    LIVE_PROFILE_ALLOCS,           /* the sampled heap, alloc_space first */
} LiveProfile;

/* Profile `which` of the samples of eras era_lo to era_hi (0 and
 * UINT64_MAX: all; a census is never filtered) as a gzipped pprof profile
 * (malloc'd): 1, or 0 with *why saying what is missing ("no census yet",
 * "no sampled allocations ...") or why encoding failed. */
int live_state_render_pprof(const LiveState *s, LiveProfile which, uint64_t era_lo,
                            uint64_t era_hi, uint8_t **out, size_t *out_bytes,
                            const char **why);

/* Appends s (len bytes) to out as a Prometheus label value, without the
 * quotes: '\\' as "\\\\", '"' as "\\\"", newline as "\\n"; UTF-8 as it is;
 * other control characters and bytes that are not well-formed UTF-8 as
 * \\xNN (Note [One way to write a string] in wire/TextOut.c).  Returns the
 * bytes written, at most TEXT_ESCAPED_MAX(len) (wire/TextOut.h), then a
 * NUL: out must have room for TEXT_ESCAPED_MAX(len) + 1 bytes. */
size_t live_escape_label_value(char *out, const char *s, size_t len);

#endif /* STRATA_LIVESTATE_H */
