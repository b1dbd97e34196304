/*
 * eventlog/EventLog.h -- the eventlog writer's API: start-up and shutdown,
 * and one posting function per event strata emits.  Bytes are GHC's format
 * exactly (strata/EventLogFormat.h, docs/reference/eventlog-format.md).  All calls come
 * from the mutator thread (the ticker only asks; see support/os/Ticker.h).
 * Every post is a no-op when the eventlog is off.  See
 * docs/design/eventlog.md.
 */
#ifndef STRATA_EVENTLOG_H
#define STRATA_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "EventLogWriter.h"
#include "strata/Config.h"

/* The writer eventlog_start opens; NULL restores the default (the file
 * writer).  Call before eventlog_start (tests use the memory writer). */
void eventlog_set_writer(const EventLogWriter *writer);

/* Eventlog classes selected by -l<letters> (GHC's letters). */
enum {
    EVENTLOG_CLASS_SCHED = 1u << 0,   /* s */
    EVENTLOG_CLASS_GC = 1u << 1,      /* g */
    EVENTLOG_CLASS_NONMOVING = 1u << 2, /* n */
    EVENTLOG_CLASS_SPARKS_SAMPLED = 1u << 3, /* p */
    EVENTLOG_CLASS_SPARKS_FULL = 1u << 4,    /* f */
    EVENTLOG_CLASS_USER = 1u << 5,    /* u */
    EVENTLOG_CLASS_TICKY = 1u << 6,   /* T */
    EVENTLOG_CLASS_DEFAULT = EVENTLOG_CLASS_SCHED | EVENTLOG_CLASS_GC |
                             EVENTLOG_CLASS_SPARKS_SAMPLED | EVENTLOG_CLASS_USER,
};

/* What the eventlog is configured with (from the RTS flags; the runtime
 * fills it in, eventlog/ never reads flags). */
typedef struct {
    bool enabled;                /* -l */
    unsigned classes;            /* -l's event classes (EVENTLOG_CLASS_*) */
    const char *file;            /* -ol: NULL = <program>.eventlog */
    unsigned generations;        /* heap parameters for HEAP_INFO_GHC */
    StgWord max_heap_bytes;
    StgWord nursery_bytes;
    unsigned capabilities;       /* -N: one buffer each (0 counts as 1) */
} EventLogConfig;

/* The configuration eventlog_start was given (the file writer reads the
 * file name from it). */
extern EventLogConfig eventlog_config;

/* If config->enabled: opens the writer, writes the header and the
 * start-up events (capsets, capability 0, wall clock, pids, RTS
 * identifier, argv, heap parameters) in GHC's order.  argv must be the
 * original argv, +RTS options included.  A writer that cannot open turns
 * the eventlog off after one message; only an out-of-memory start returns
 * false.  config is copied. */
bool eventlog_start(const EventLogConfig *config, int argc, char **argv);

/* Posts the shutdown events, flushes, writes the data-end marker and
 * closes the writer.  After a write error it prints instead, once, how
 * many events and bytes were lost and how the log ends.  Safe to call
 * when the eventlog is off or stopped. */
void eventlog_stop(void);

/* True between a successful eventlog_start and eventlog_stop.  It stays
 * true after a write error: events are then still posted, and counted as
 * lost rather than written, so that eventlog_stop can say once how much
 * was lost (Note [After a write error] in EventBuffers.c). */
bool eventlog_enabled(void);

/* True if the writer's state is consistent: when enabled, both buffers
 * exist, start with a block marker of their cap and have their write
 * position inside them past that marker (nothing to check when off).
 * Checks only; never prints or aborts. */
bool eventlog_check(void);

/* Writes both buffers out as blocks (a tick action; see Ticker.h). */
void eventlog_flush(void);

/* GC and heap events: class 'g'.  The collector posts them in GHC's order:
 * request_seq_gc, gc_global_sync, gc_start, gc_work, gc_idle, gc_done,
 * gc_end, heap_allocated, heap_size, blocks_size, gc_stats_ghc, and after
 * a major GC heap_live and mem_return. */
/* Posts an event of integer fields by its row of wire/EventFormat.c's
 * table (Note [Posting by the table] in EventLog.c): values in the row's
 * order, in the calling capability's buffer, when class cls is on.  A new
 * event of integers needs its row (marked emitted) and this call. */
void eventlog_post_fields(unsigned cls, uint16_t type, const uint64_t *values);

/* Thread events (class 's'): status is one of THREAD_STOP_* in
 * strata/EventLogFormat.h. */
void eventlog_post_create_thread(uint32_t thread);
void eventlog_post_run_thread(uint32_t thread);
void eventlog_post_stop_thread(uint32_t thread, uint16_t status);

void eventlog_post_request_seq_gc(void);
void eventlog_post_request_par_gc(void);
/* GC_WORK, GC_IDLE, GC_DONE of the GC thread working for capability cap
 * (called by that thread, with the world stopped). */
void eventlog_post_gc_work_on(uint32_t cap);
void eventlog_post_gc_idle_on(uint32_t cap);
void eventlog_post_gc_done_on(uint32_t cap);
void eventlog_post_gc_global_sync(void);
void eventlog_post_gc_start(void);
void eventlog_post_gc_work(void);
void eventlog_post_gc_idle(void);
void eventlog_post_gc_done(void);
void eventlog_post_gc_end(void);
void eventlog_post_heap_allocated(uint64_t total_allocated_bytes);
void eventlog_post_heap_size(uint64_t heap_bytes);
void eventlog_post_blocks_size(uint64_t blocks_bytes);
void eventlog_post_gc_stats_ghc(uint16_t gen, uint64_t copied_bytes, uint64_t slop_bytes,
                                uint64_t fragmentation_bytes, uint32_t par_n_threads,
                                uint64_t par_max_copied, uint64_t par_tot_copied,
                                uint64_t par_balanced_copied);
void eventlog_post_heap_live(uint64_t live_bytes);
void eventlog_post_mem_return(uint32_t current_mblocks, uint32_t needed_mblocks,
                              uint32_t returned_mblocks);

/* Heap-profile and IPE events: posted whenever the eventlog is on, into
 * the global buffer.  Strings may be NULL (written as ""); they are made
 * valid UTF-8 (an invalid byte becomes '?') and clamped so the payload
 * fits in 65535 bytes. */
void eventlog_post_heap_prof_begin(uint64_t sampling_period_ns, uint32_t breakdown);
void eventlog_post_heap_prof_sample_begin(uint64_t census_counter);
void eventlog_post_heap_prof_sample_string(uint64_t residency_bytes, const char *label);
void eventlog_post_heap_prof_sample_end(uint64_t census_counter);
/* Until eventlog_stamp_global(0), the global buffer's events carry the
 * time at_ns, in a block of their own that starts then: a census of the
 * heap as it was at an earlier moment (a non-moving cycle's snapshot),
 * posted when it is complete.  The world is stopped. */
void eventlog_stamp_global(uint64_t at_ns);
void eventlog_post_ipe(uint64_t info_addr, const char *table_name, const char *closure_desc,
                       const char *ty_desc, const char *label, const char *module,
                       const char *srcloc);

/* Allocation sampling (+RTS --alloc-sample), strata's own events: posted
 * whenever the eventlog is on, into the global buffer, from any thread.
 * ALLOC_SAMPLING once (the mean bytes between samples); a FRAME (function,
 * file, line; strings made valid UTF-8 and clamped) and a STACK (frame
 * ids, innermost first, at most EVENT_ALLOC_STACK_MAX_FRAMES) before the
 * first sample that names them; a SAMPLE per sampled object, a DEATH when
 * the collector finds it dead.  docs/design/alloc-sampling.md. */
void eventlog_post_alloc_sampling(uint64_t rate_bytes);
void eventlog_post_alloc_frame(uint32_t frame, const char *function, const char *file,
                               uint32_t line);
void eventlog_post_alloc_stack(uint32_t stack, const uint32_t *frames, size_t n_frames);
void eventlog_post_alloc_sample(uint64_t sample, uint64_t size_bytes, uint32_t stack,
                                uint64_t era, uint16_t cap, uint8_t kind);
void eventlog_post_alloc_death(uint64_t sample);

/* User events: class 'u'.  len bytes of msg (no NUL needed), made valid
 * UTF-8 like every string in an event (an invalid byte becomes '?') and
 * clamped to 65535 bytes without splitting a character. */
void eventlog_post_user_msg(const char *msg, size_t len);
void eventlog_post_user_marker(const char *msg, size_t len);

#endif /* STRATA_EVENTLOG_H */
