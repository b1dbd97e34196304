/*
 * profiling/ProfHeap.h -- the heap profiler: when censuses run and where
 * their samples go (the eventlog with -l, a .hp file otherwise).
 */
#ifndef STRATA_PROFHEAP_H
#define STRATA_PROFHEAP_H

#include <stdbool.h>
#include <stdint.h>

/* Starts heap profiling if a -h breakdown was given: opens the output,
 * registers the census after major GCs and the -i ticks.  job is the
 * program's command line (the .hp JOB line).  After the eventlog starts. */
bool prof_heap_init(const char *job);

/* The final census (after a major GC) and closing the output.  Before the
 * eventlog stops. */
void prof_heap_exit(void);

/* Closes the output without a final census (heap overflow, <<loop>>). */
void prof_heap_abandon(void);

/* A marker: MARK in the .hp file (the eventlog has its own event). */
void prof_heap_mark(void);

/* Censuses taken so far, and the total of the last one (for tests). */
uint64_t prof_heap_census_count(void);
/* Censuses asked for: one per -i tick served and one at exit, or with -i0
 * one per census (Note [Censuses asked for and taken] in ProfHeap.c). */
uint64_t prof_heap_censuses_asked(void);
uint64_t prof_heap_last_total_bytes(void);

/* A GC post-hook: takes a census after a major GC when one is due. */
void prof_heap_after_gc(unsigned collected_gen, bool major);

#endif /* STRATA_PROFHEAP_H */
