/*
 * support/os/Clock.h -- the clocks and process counters the statistics need:
 * monotonic elapsed time, process CPU time, page faults and peak resident
 * set size.  Linux only (clock_gettime, getrusage), like the rest of
 * support/os/.  Times are in nanoseconds, sizes in bytes.
 *
 * Preconditions: clock_init is called once, single-threaded, at start-up
 * (hs_init) before the other calls; if it is not, the first
 * clock_elapsed_ns call sets the start point instead.
 */
#ifndef STRATA_OS_CLOCK_H
#define STRATA_OS_CLOCK_H

#include <stdint.h>

/* Sets the start point that clock_elapsed_ns measures from (now). */
void clock_init(void);

/* Nanoseconds of CLOCK_MONOTONIC since the start point.  clock_gettime
 * cannot fail for this clock on Linux; if it ever did, this returns 0. */
uint64_t clock_elapsed_ns(void);

/* CPU time used by the whole process (all threads, user + system), from
 * CLOCK_PROCESS_CPUTIME_ID; 0 if the clock cannot be read. */
uint64_t clock_cpu_ns(void);

/* CPU time used by the calling thread (user + system), from
 * CLOCK_THREAD_CPUTIME_ID; 0 if the clock cannot be read. */
uint64_t clock_thread_cpu_ns(void);

/* Page faults of the process so far: minor (no I/O) and major (needed
 * I/O).  Either pointer may be NULL.  Returns 0, or the errno of
 * getrusage (and leaves the outputs untouched). */
int os_page_faults(uint64_t *minor, uint64_t *major);

/* Peak resident set size of the process in bytes (getrusage ru_maxrss,
 * which Linux gives in KiB); 0 if it cannot be read. */
uint64_t os_peak_rss_bytes(void);

#endif /* STRATA_OS_CLOCK_H */
