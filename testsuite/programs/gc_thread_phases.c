/*
 * testsuite/programs/gc_thread_phases.c -- parallel collections in which
 * every GC thread is sure to take part, so that par-gc.sh can check each
 * capability's GC_WORK, GC_IDLE and GC_DONE events in the eventlog.
 *
 * A GC thread other than 0 joins a collection only if the OS runs it
 * before thread 0 has done all the work (Note [Joining a parallel phase]
 * in sm/GCThread.c), so on a loaded machine a short program may see no
 * event from it at all.  Here the runtime's own observer (rts/GcReport.c,
 * which posts the events) is wrapped: the wrapper passes every call on,
 * and holds thread 0 at its first GC_WORK of each collection until every
 * other GC thread has said GC_WORK (30 s at most).  Nothing else changes:
 * the events are the runtime's, posted where it posts them.
 *
 *     gc_thread_phases GCS +RTS -N<n> -qn<n> -l -ol<file> -RTS
 *
 * Prints "gc_thread_phases: ok gcs=G threads=T" and exits 0, or says
 * which collection a GC thread never joined and exits 1 (2: bad
 * arguments).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <strata.h>

#include "GC.h"
#include "GcReport.h"

STRATA_CONSTR_INFO(Cell_info, "Cell", 1, 1);

#define JOIN_WAIT_NS (30 * 1000000000LL)

static atomic_uint joined;           /* GC threads other than 0 that said GC_WORK */
static atomic_bool holding;          /* thread 0 has yet to start this collection */
static unsigned others;              /* GC threads other than 0 per collection */
static atomic_uint missed;           /* collections some thread never joined */

static void wrapped_start(unsigned gc_threads)
{
    atomic_store(&joined, 0);
    atomic_store(&holding, gc_threads > 1);
    others = gc_threads > 1 ? gc_threads - 1 : 0;
    gc_report_observer.start(gc_threads);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* GC thread 0 is the collecting capability's; the program has one
 * mutator thread, on capability 0. */
static void wrapped_thread_phase(unsigned cap, GCPhase phase)
{
    gc_report_observer.thread_phase(cap, phase);
    if (phase != GC_PHASE_WORK)
        return;
    if (cap != 0) {
        atomic_fetch_add(&joined, 1);
        return;
    }
    if (!atomic_exchange(&holding, false))
        return;
    long long deadline = now_ns() + JOIN_WAIT_NS;
    while (atomic_load(&joined) < others) {
        if (now_ns() > deadline) {
            atomic_fetch_add(&missed, 1);
            return;
        }
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
}

static void wrapped_end(const GCDetails *d)
{
    gc_report_observer.end(d);
}

static void wrapped_nonmoving(NonMovingEvent event, uint64_t marked)
{
    gc_report_observer.nonmoving(event, marked);
}

static const GCObserver waiting_observer = {
    .start = wrapped_start,
    .thread_phase = wrapped_thread_phase,
    .end = wrapped_end,
    .nonmoving = wrapped_nonmoving,
};

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long gcs = argc == 2 ? atol(argv[1]) : 0;
    if (gcs < 1) {
        fprintf(stderr, "usage: %s GCS\n", argv[0]);
        hs_exit();
        return 2;
    }
    gc_set_observer(&waiting_observer);
    /* A list that grows by 1000 cells a collection, all of it young and
     * alive at each: work for the roots and the scan. */
    STRATA_ROOTS(r, 1);
    for (long g = 0; g < gcs; g++) {
        for (StgWord i = 0; i < 1000; i++) {
            StgClosure *c = strata_alloc_constr(&Cell_info);
            STRATA_FIELD(c, 0) = r[0];
            STRATA_WORD(c, 1) = i;
            r[0] = c;
        }
        strata_perform_gc(0);
    }
    STRATA_ROOTS_POP(r);
    gc_set_observer(&gc_report_observer);
    unsigned threads = others + 1;
    unsigned bad = atomic_load(&missed);
    hs_exit();
    if (bad > 0) {
        fprintf(stderr, "gc_thread_phases: in %u of %ld collections a GC thread never joined within 30 s\n",
                bad, gcs);
        return 1;
    }
    printf("gc_thread_phases: ok gcs=%ld threads=%u\n", gcs, threads);
    return 0;
}
