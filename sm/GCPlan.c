/*
 * sm/GCPlan.c -- what a collection takes (GCPlan.h): the policy's
 * generation, the non-moving generation's snapshot or not, a promotion
 * in place, and the GC threads.
 *
 * Note [Asking before the cycle's step]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Under --nonmoving-gc a collection first takes the non-moving cycle's
 * step (nonmoving_gc_begin: the sweep's freed groups given back, a sync
 * the mark thread asked for, a cycle finished), and only then knows what
 * it collects: the step changes the generation's counts the policy reads
 * and whether a new cycle may start.  But the step runs with the world
 * stopped, so its time is the collection's pause: the collection's
 * request and GC_START (and +RTS -s's timer) come before it, and the
 * request says how many GC threads are asked for before they are known
 * for sure.  GHC does the same: it decides REQUEST_PAR_GC from the
 * generation it expects to collect, before its sync.  gc_plan_threads_asked
 * is the plan as the world stops, without taking any request; the
 * collection's GC_WORK events say which threads ran.
 */
#include "GCPlan.h"

#include "Capability.h"
#include "GCThread.h"
#include "NonMoving.h"
#include "Policy.h"
#include "PromoteInPlace.h"
#include "Heap.h"

/* How many GC threads collect generations 0..N: -qn's, from -qg's
 * generation up, at most one per capability. */
static unsigned threads_for(unsigned N)
{
    if (N < storage_config.par_gc_from_gen)
        return 1;
    unsigned n = storage_config.gc_threads;
    if (n == 0 || n > capabilities_n)
        n = capabilities_n;
    if (n > gc_threads_max)
        n = gc_threads_max;
    return gc_threads_available(n < 1 ? 1 : n);
}

/* The collection of generations 0..N.  The non-moving generation is
 * never copied: its collection is a snapshot's collection of the
 * younger ones, then its cycle; while a cycle runs, only the younger
 * ones are collected. */
static GCPlan plan_for(unsigned N)
{
    GCPlan p = {0};
    p.is_major = N == storage_n_gens - 1;
    p.snapshot = p.is_major && nonmoving_on();
    if (p.snapshot && !nonmoving_can_start_cycle()) {
        N--;
        p.is_major = p.snapshot = false;
        p.major_deferred = true;
    }
    p.N = N;
    p.copied_gen = p.snapshot ? N - 1 : N;
    p.in_place = !p.snapshot && promote_in_place_wanted(N);
    p.n_threads = p.in_place ? 1 : threads_for(N);
    return p;
}

GCPlan gc_plan(bool major)
{
    return plan_for(policy_collected_gen(major));
}

unsigned gc_plan_threads_asked(bool major)
{
    return plan_for(policy_gen_due(major)).n_threads;
}
