/*
 * sm/GCPlan.h -- what a collection takes: the generations, whether it is
 * the non-moving generation's snapshot, a promotion in place, and how
 * many GC threads (Note [Asking before the cycle's step] in GCPlan.c).
 */
#ifndef STRATA_SM_GCPLAN_H
#define STRATA_SM_GCPLAN_H

#include <stdbool.h>

typedef struct {
    unsigned N;            /* the oldest generation collected */
    unsigned copied_gen;   /* the oldest copied: N - 1 for a snapshot */
    unsigned n_threads;    /* GC threads */
    bool is_major;         /* N is the oldest generation */
    bool snapshot;         /* a non-moving cycle's snapshot (NonMoving.h) */
    bool in_place;         /* a promotion in place is wanted (PromoteInPlace.h) */
    bool major_deferred;   /* a major collection waits for the running cycle */
} GCPlan;

/* The collection to run now (the world stopped, after the non-moving
 * cycle's step): takes the requests for a major collection it answers
 * (policy_collected_gen). */
GCPlan gc_plan(bool major);

/* The GC threads the collection asks for as the world stops, before the
 * non-moving cycle's step: gc_plan's, changing nothing. */
unsigned gc_plan_threads_asked(bool major);

#endif
