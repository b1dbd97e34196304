/*
 * rts/Stats.h -- run-time statistics: the +RTS -s summary and the +RTS -S
 * line per GC, in GHC's format.  The collector reports each GC through
 * stats_gc_begin/stats_gc_end; start-up and exit through the phase calls.
 */
#ifndef STRATA_STATS_H
#define STRATA_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "GC.h"
#include "strata/Config.h"

/* What the collector tells the statistics about one GC. */

/* Cumulative figures, for tests, the eventlog and the benchmarks. */
typedef struct {
    StgWord gcs;                  /* all collections */
    StgWord major_gcs;
    uint64_t allocated_bytes;     /* total since start */
    uint64_t copied_bytes;
    StgWord max_live_bytes;       /* max live after a major GC */
    StgWord max_slop_bytes;
    StgWord max_mem_in_use_bytes;
    uint64_t returned_mblocks;    /* total megablocks returned to the OS */
    uint64_t cumulative_live_bytes; /* sum of live bytes over major GCs */
    double gc_cpu_secs, gc_elapsed_secs;
    double mut_cpu_secs, mut_elapsed_secs;
    StgWord par_gcs;              /* collections by more than one GC thread */
    uint64_t par_copied_bytes;    /* bytes they copied */
    uint64_t par_balanced_copied_bytes;  /* GHC's balanced figure, summed */
    unsigned max_gc_threads;      /* most GC threads in one collection */
} RtsStats;

void stats_init(unsigned generations);  /* at hs_init start: INIT begins */
void stats_end_init(void);              /* INIT ends, MUT begins */
void stats_gc_begin(void);
void stats_gc_end(const GCDetails *gc);
void stats_start_exit(void);            /* MUT ends, EXIT begins */
void stats_end_exit(void);              /* EXIT ends; with -S writes the last
                                           line (allocation since the last GC) */

/* Bytes allocated since the last GC, which no GCDetails reported (the
 * nursery's use at exit).  Call after stats_start_exit, before
 * stats_end_exit, as GHC counts them in stat_exit. */
void stats_add_allocated_bytes(StgWord bytes);

/* The elapsed time of the most recent GC (0 before the first). */
uint64_t stats_last_gc_elapsed_ns(void);

/* One heap census took this long over this many live bytes (+RTS -s
 * reports the total and the rate). */
void stats_note_census(uint64_t cpu_ns, uint64_t elapsed_ns, uint64_t bytes);

/* How many censuses the run asked for (the heap profiler's count at its
 * exit: Note [Censuses asked for and taken] in profiling/ProfHeap.c); +RTS
 * -s prints it beside the number taken. */
void stats_note_censuses_asked(uint64_t asked);

/* The peak memory held from the OS, if higher than any GC reported (at
 * exit: the megablocks' high-water mark). */
void stats_note_mem_in_use(StgWord bytes);

/* Frees what stats_init allocated (the per-generation counters). */
void stats_exit(void);

/* Writes the summary (+RTS -s) to f; f == NULL means the output opened by
 * stats_open_output (stderr if none is open).  The per-GC header (+RTS
 * -S) is written by stats_open_output. */
void stats_print_summary(FILE *f);

/* Opens the statistics output chosen by the flags (may be stderr).
 * Returns false, after a message naming the file, if it cannot be opened. */
bool stats_open_output(void);
void stats_close_output(void);

/* A copy of the cumulative figures so far. */
void stats_get(RtsStats *out);

/* True if the counters are consistent (per-generation collections add up
 * to gcs, major_gcs <= gcs, pauses within totals, ...). */
bool stats_check(void);

/* One reading of the clocks the statistics use (see support/os/Clock.h). */
typedef struct {
    uint64_t cpu_ns;              /* process CPU time */
    uint64_t elapsed_ns;          /* monotonic, from any fixed start */
    uint64_t major_faults;        /* page faults that needed I/O, so far */
} StatsClockReading;
typedef void (*StatsClockFn)(StatsClockReading *now);

/* For tests: reads time from fn instead of the OS (NULL restores the OS
 * clocks), so that a summary can be compared byte for byte. */
void stats_set_clock(StatsClockFn fn);

#endif /* STRATA_STATS_H */
