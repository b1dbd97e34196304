/*
 * rts/Flags.h -- the one structure every RTS option is parsed into, and
 * the limits the options are held to.  Types only: the parser is
 * RtsOptions.h's (one option) and RtsFlags.h's (the command line), the
 * value syntax FlagValues.h's.
 */
#ifndef STRATA_FLAGS_H
#define STRATA_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "EventLog.h"
#include "Heap.h"
#include "Messages.h"
#include "ProfHeap.h"
#include "strata/Config.h"

/* -A: two blocks, so that allocate() always has a block to grab (GHC). */
#define NURSERY_MIN_BYTES ((uint64_t)2 * BLOCK_SIZE)
#define NURSERY_DEFAULT_BYTES ((StgWord)4 * 1024 * 1024)

/* -M: see Note [Minimum -M] in RtsOptions.c. */
#define MAX_HEAP_MIN_BYTES ((uint64_t)MBLOCK_SIZE)

/* Note [Largest size]
 * ~~~~~~~~~~~~~~~~~~~
 * Every size flag is capped at 128 TiB, the user address space of x86-64
 * Linux: no heap can be larger, and the cap keeps every product of a
 * size and a small count well inside 64 bits.  GHC caps at HS_INT_MAX;
 * a 2^63-byte nursery is no more meaningful than a 2^47-byte one, and a
 * cap we can print as "128t" makes a better error message. */
#define SIZE_MAX_BYTES ((uint64_t)1 << 47)

/* -G: the block descriptor keeps the generation in a uint16_t. */
#define CAPABILITIES_MAX 256u   /* cap numbers stay small in the eventlog */
#define GENERATIONS_MAX UINT16_MAX

#define DEBUG_FLAGS_ALL (DEBUG_SANITY | DEBUG_GC | DEBUG_BLOCK)
#define EVENTLOG_CLASS_ALL                                                   \
    (EVENTLOG_CLASS_SCHED | EVENTLOG_CLASS_GC | EVENTLOG_CLASS_NONMOVING |   \
     EVENTLOG_CLASS_SPARKS_SAMPLED | EVENTLOG_CLASS_SPARKS_FULL |            \
     EVENTLOG_CLASS_USER | EVENTLOG_CLASS_TICKY)

/* --prefault: when the prefault helper runs (Note [Faulting in ahead of
 * the heap] in sm/block/Prefault.c). */
typedef enum {
    PREFAULT_AUTO = 0,   /* when a processor is left over: more available
                            than capabilities */
    PREFAULT_ALWAYS,
    PREFAULT_NEVER,
} RtsPrefault;

typedef struct {
    /* Storage manager */
    StgWord nursery_bytes;        /* -A, default 4 MiB, at least 8 KiB */
    unsigned generations;         /* -G, default 2, at least 1 */
    unsigned capabilities;        /* -N, default 1, at most CAPABILITIES_MAX */
    unsigned gc_threads;          /* -qn, 0 (default) = one per capability */
    RtsPrefault prefault;         /* --prefault=<when>, default auto */
    PromoteInPlaceMode promote_in_place;  /* --promote-in-place=<when>,
                                             default auto */
    unsigned par_gc_from_gen;     /* -qg<gen>: collections of gen and older
                                     are parallel (default 0); -qg alone:
                                     PAR_GC_NEVER */
    double oldgen_factor;         /* -F, default 2.0, > 0 */
    bool nonmoving;               /* --nonmoving-gc / -xn: the oldest
                                     generation is marked and swept
                                     (sm/NonMoving.h); needs -G2 or more */
    StgWord max_heap_bytes;       /* -M, 0 = unlimited */

    /* Shutdown */
    double exit_wait_secs;        /* --exit-wait=<secs>: how long hs_exit
                                     waits for other attached threads
                                     (default 10) */

    /* Statistics */
    bool stats_summary;           /* -s */
    bool stats_per_gc;            /* -S (implies the summary, as in GHC) */
    char *stats_file;             /* -s<file>/-S<file>; NULL = stderr; malloc'd */

    /* Debugging */
    unsigned debug_flags;         /* -D<letters>: DEBUG_* in Messages.h */

    /* Heap profiling */
    HeapBreakdown heap_breakdown; /* -hT -hi -he -hd -hy -hm */
    bool era_selected;            /* -he<n> or -he<lo>-<hi> was given */
    EraRange eras;                /* eras counted; ERA_RANGE_ALL unless
                                   * era_selected */
    double census_interval_secs;  /* -i<secs>, default 0.1; 0 = every major GC */
    bool census_every_tick;       /* --census-gc=every-tick: each -i tick forces a
                                   * major GC and a census, as GHC does; false
                                   * (=budget): Note [When a census runs] in
                                   * profiling/ProfHeap.c */
    bool automatic_heap_samples;  /* false with --no-automatic-heap-samples */
    bool automatic_era_increment; /* --automatic-era-increment */
    StgWord alloc_sample_bytes;   /* --alloc-sample[=<size>]: mean bytes
                                     between sampled allocations (512k
                                     when given bare); 0 = off */

    /* Eventlog */
    bool eventlog;                /* -l given */
    unsigned eventlog_classes;    /* EVENTLOG_CLASS_* bits */
    char *eventlog_file;          /* -ol<file>; NULL = <prog>.eventlog; malloc'd */
    double eventlog_flush_secs;   /* --eventlog-flush-interval, 0 = none */
    char *eventlog_socket_path;   /* --eventlog-socket=PATH; NULL = none; malloc'd */
    bool eventlog_socket_tcp;     /* --eventlog-socket-tcp=HOST:PORT given */
    char *eventlog_socket_tcp_host; /* its HOST ("" = loopback); malloc'd */
    uint16_t eventlog_socket_tcp_port; /* its PORT (0 = any, printed) */
    bool eventlog_socket_wait;    /* --eventlog-socket-wait */

    /* Heap debugger */
    bool debug_socket;            /* --debug-socket[=PATH] given */
    char *debug_socket_path;      /* its PATH; NULL = default; malloc'd */

    /* Actions that end start-up */
    bool show_usage;              /* -? */
    bool show_info;               /* --info */
} RtsFlags;


#define PAR_GC_NEVER 0xffffffffu

/* --alloc-sample: Go's and jemalloc's default rate. */
#define ALLOC_SAMPLE_DEFAULT_BYTES ((StgWord)512 * 1024)
/* Samples are drawn in words (Note [Exponential gaps] in
 * sm/alloc/AllocSample.c): a smaller mean samples every object. */
#define ALLOC_SAMPLE_MIN_BYTES ((uint64_t)WORD_SIZE)

#endif /* STRATA_FLAGS_H */
