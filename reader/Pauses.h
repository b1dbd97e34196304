/*
 * reader/Pauses.h -- the pauses of a program, from its eventlog (strata's
 * or GHC's), and the latency figures a collector is judged by: the worst
 * pause, percentiles of pause length, and the minimum mutator utilisation
 * (MMU) over windows of a given length.  strata-events pauses prints them;
 * bench/run puts them in its latency table.
 *
 * What is a pause, from which events: Note [Pauses from the eventlog] in
 * Pauses.c.  The figures: Note [Minimum mutator utilisation].
 *
 * Typical use:
 *
 *     PauseLog pl;
 *     pause_log_init(&pl);
 *     while (evr_next(r, &ev) == 1)
 *         if (!pause_log_add(&pl, &ev)) out_of_memory();
 *     if (!pause_log_finish(&pl)) out_of_memory();
 *     // pl.pauses[0 .. pl.n_pauses-1]: disjoint, in time order
 *     uint64_t worst = pause_log_percentile(&pl, 100);
 *     double mmu = pause_log_mmu(&pl, 10000000);   // 10 ms
 *     pause_log_free(&pl);
 */
#ifndef STRATA_PAUSES_H
#define STRATA_PAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"

/* What stopped the program during a pause (bits: a GC and a sync that
 * overlap make one pause of both kinds). */
#define PAUSE_GC 1u     /* a collection, REQUEST_*_GC or GC_START to GC_END */
#define PAUSE_SYNC 2u   /* a non-moving collector's sync, CONC_SYNC_BEGIN to _END */

typedef struct Pause {
    uint64_t start_ns;   /* the log's clock: ns since the runtime started */
    uint64_t end_ns;     /* > start_ns, or == for a pause too short to time */
    unsigned kinds;      /* PAUSE_GC | PAUSE_SYNC */
} Pause;

/* An event that opens or closes a pause, as read (kept until finish). */
typedef struct PauseMark {
    uint64_t time_ns;
    size_t seq;               /* its place in the order read (ties keep it) */
    int cap;                  /* -1: none (the global buffer) */
    uint16_t type;            /* EVENT_REQUEST_*_GC, GC_START/END, CONC_SYNC_BEGIN/END */
} PauseMark;

typedef struct PauseLog {
    PauseMark *marks;         /* in the order read */
    size_t n_marks, marks_cap;
    Pause *pauses;            /* after finish: merged, disjoint, by start time */
    size_t n_pauses, pauses_cap;
    uint64_t first_ns;        /* the earliest event time seen (the run's start) */
    uint64_t last_ns;         /* the latest (the run's end) */
    int seen_event;           /* first_ns/last_ns are valid */
    uint64_t *sorted_ns;      /* after finish: pause lengths, ascending */
    uint64_t *prefix_ns;      /* after finish: prefix_ns[i] = total length of pauses[0..i-1] */
} PauseLog;

/* An empty log (a zeroed PauseLog is one too). */
void pause_log_init(PauseLog *pl);

/* Takes one event in the order the reader yields them.  Returns 0 when out
 * of memory (pl is then only fit for pause_log_free). */
int pause_log_add(PauseLog *pl, const EvrEvent *ev);

/* Closes the pauses still open at the end of the log at its last event,
 * sorts and merges them, and computes what the queries below need.
 * Returns 0 when out of memory. */
int pause_log_finish(PauseLog *pl);

/* After finish: the run's length (last event - first), the total paused. */
uint64_t pause_log_span_ns(const PauseLog *pl);
uint64_t pause_log_paused_ns(const PauseLog *pl);

/* After finish: the pct-th percentile of pause lengths by nearest rank
 * (the smallest length at least pct% of the pauses do not exceed): 100 is
 * the worst pause, 50 the median.  0 when there is no pause.  pct in
 * 1..100. */
uint64_t pause_log_percentile(const PauseLog *pl, unsigned pct);

/* After finish: the index of the longest pause (the first of equals), or
 * -1 when there is none. */
ptrdiff_t pause_log_worst(const PauseLog *pl);

/* After finish: the minimum mutator utilisation at window_ns, in [0, 1]:
 * over every window of that length inside the run, the smallest share of
 * it not paused.  -1 when the run is shorter than the window (no window
 * fits) or window_ns is 0. */
double pause_log_mmu(const PauseLog *pl, uint64_t window_ns);

/* Frees what pl holds; it is then empty. */
void pause_log_free(PauseLog *pl);

#endif /* STRATA_PAUSES_H */
