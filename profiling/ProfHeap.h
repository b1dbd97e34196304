/*
 * profiling/ProfHeap.h -- the heap profiler: when censuses run and where
 * their samples go (the eventlog with -l, a .hp file otherwise).
 */
#ifndef STRATA_PROFHEAP_H
#define STRATA_PROFHEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "Era.h"

/* Heap-profile breakdowns: the eventlog's HEAP_PROF_BEGIN codes. */
typedef enum {
    HEAP_BY_NONE = 0,
    HEAP_BY_MOD = 2,           /* -hm */
    HEAP_BY_DESCR = 3,         /* -hd */
    HEAP_BY_TYPE = 4,          /* -hy */
    HEAP_BY_CLOSURE_TYPE = 7,  /* -hT (and the deprecated -h) */
    HEAP_BY_INFO_TABLE = 8,    /* -hi */
    HEAP_BY_ERA = 9,           /* -he */
} HeapBreakdown;

/* What the heap profiler is configured with (from the RTS flags; the
 * runtime fills it in, profiling/ never reads flags). */
typedef struct {
    HeapBreakdown breakdown;      /* -h<x>; HEAP_BY_NONE = no profiling */
    EraRange eras;                /* eras counted: -he<n> or -he<lo>-<hi>,
                                     else ERA_RANGE_ALL */
    double interval_secs;         /* -i<secs>; 0 = a census every major GC */
    bool every_tick;              /* --census-gc=every-tick */
    bool automatic_samples;       /* false with --no-automatic-heap-samples */
} ProfConfig;

/* The configuration prof_heap_init was given. */
extern ProfConfig prof_config;

/* Where the profiler reports its own cost (the runtime's statistics): each
 * census's CPU and elapsed time and bytes, and at the end how many
 * censuses were asked for.  Either may be NULL. */
typedef struct {
    void (*census)(uint64_t cpu_ns, uint64_t elapsed_ns, uint64_t bytes);
    void (*asked)(uint64_t censuses_asked);
} ProfReporter;
void prof_heap_set_reporter(const ProfReporter *reporter);

/* Starts heap profiling if config names a breakdown: opens the output,
 * registers the census after major GCs and the -i ticks.  job is the
 * program's command line (the .hp JOB line).  After the eventlog starts.
 * config is copied. */
bool prof_heap_init(const ProfConfig *config, const char *job);

/* The final census (after a major GC) and closing the output.  Before the
 * eventlog stops. */
void prof_heap_exit(void);

/* Closes the output without a final census (heap overflow, <<loop>>). */
void prof_heap_abandon(void);

/* Turns the automatic censuses (-i ticks, -i0's every major GC, the one
 * at exit) on or off (eventlog-socket's start/stop commands).  False if
 * no heap profile is being taken.  See Note [Censuses on request] in
 * ProfHeap.c. */
bool prof_heap_set_sampling(bool on);

/* Takes one census now, after a major GC (eventlog-socket's census
 * command).  False if no heap profile is being taken. */
bool prof_heap_request_census(void);

/* A marker: MARK in the .hp file (the eventlog has its own event). */
void prof_heap_mark(void);

/* Censuses taken so far, and the total of the last one (for tests). */
uint64_t prof_heap_census_count(void);
/* Censuses asked for: one per -i tick served and one at exit, or with -i0
 * one per census (Note [Censuses asked for and taken] in ProfHeap.c). */
uint64_t prof_heap_censuses_asked(void);
uint64_t prof_heap_last_total_bytes(void);

/* How long after the last major GC's end an -i tick waits before it
 * forces the major GC its census needs: CENSUS_GC_BUDGET times that GC's
 * cost; UINT64_MAX while a non-moving cycle runs (Note [When a census
 * runs] in ProfHeap.c). */
uint64_t prof_heap_census_gc_wait_ns(void);

/* For tests: fn sees each census as it is posted, with the moment it is
 * of (a non-moving snapshot's, else when it was taken); NULL: none. */
struct Census_;
typedef void (*ProfCensusObserver)(const struct Census_ *c, uint64_t at_ns);
void prof_heap_set_census_observer(ProfCensusObserver fn);

/* A GC post-hook: takes a census after a major GC when one is due. */
void prof_heap_after_gc(unsigned collected_gen, bool major);

#endif /* STRATA_PROFHEAP_H */
