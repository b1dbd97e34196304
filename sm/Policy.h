/*
 * sm/Policy.h -- when to collect and how big the heap may grow: which
 * generations a collection takes, the old generations' budgets (-F), the
 * heap limit (-M), when large-object allocation triggers a GC (-A), and
 * how many megablocks go back to the OS.  The collector's mechanism (GC.c,
 * Evac.c, Scav.c) asks; this module decides.  Aging (which survivors stay
 * in generation 0 once more) is the other policy, in Tenure.c.
 */
#ifndef STRATA_POLICY_H
#define STRATA_POLICY_H

#include <stdbool.h>

#include "strata/Config.h"

#include "NonMoving.h"

/* Makes the next collection a major one (a heap census is due). */
void gc_request_major(void);

/* Whether the heap was left above -M: the non-moving generation then
 * finishes its cycle at once.  A census's request (gc_request_major) is
 * not: its census comes from the next cycle's snapshot (Note [A census
 * from the snapshot] in NonMoving.c). */
bool policy_exact_wanted(void);

/* The oldest generation this collection takes: all of them when major is
 * true or a major GC was asked for (gc_request_major, or a minor GC that
 * left the heap above -M), else the oldest that outgrew its budget. */
unsigned policy_collected_gen(bool major);

/* The generation policy_collected_gen would take now, taking no request:
 * what a collection asks for as the world stops (sm/GCPlan.c). */
unsigned policy_gen_due(bool major);

/* After collecting generations 0..N: new budgets for them, and after a
 * major GC the megablocks the next cycle will not need go back to the OS:
 * it keeps at least as many as the busiest of the last
 * RETURN_DECAY_CYCLES major cycles used.  Returns how many megablocks
 * went back. */
StgWord policy_resize_after_gc(unsigned N);
#define RETURN_DECAY_CYCLES 8

/* The budgets of the generations above the nursery, from the oldest's
 * last major collection or non-moving cycle: policy_resize_after_gc sets
 * them after a major GC, and a collection whose step ended a non-moving
 * cycle sets them before it decides what it collects (Note [A cycle's
 * budget from what its mark found live]). */
void policy_set_budgets(void);

/* How far the running non-moving cycle lags behind the program: whether
 * the generation has grown an eighth, or a half, past the peak its budget
 * planned (Note [A collection helps a lagging cycle] in NonMoving.c). */
NonMovingLag policy_cycle_lag(void);

/* After collecting generations 0..N: a heap above -M after a major GC is
 * a heap overflow; after a minor one, the next GC is major. */
void policy_check_heap_limit(unsigned N);

/* Large and pinned allocation counts against -A: true when the bytes
 * allocated so far call for a GC before the next one. */
bool policy_large_alloc_wants_gc(void);

/* True if growing the heap by extra_blocks would pass -M. */
bool policy_heap_would_pass_limit(StgWord extra_blocks);

/* The prefault window (Note [Sizing the prefault window] in Policy.c):
 * set before a GC of generations 0..N and after any GC.  The window has
 * no effect unless the prefault helper runs. */
void policy_prefault_start(void);   /* starts the helper (storage_init) */
void policy_prefault_before_gc(unsigned N);
void policy_prefault_after_gc(void);

/* Forgets the policy's state (hs_exit). */
void policy_reset(void);

#endif /* STRATA_POLICY_H */
