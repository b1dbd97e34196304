/*
 * sm/GCPrivate.h -- what GC.c, GCThread.c, Evac.c, Scav.c and Weak.c share
 * during one collection, and nothing else.
 */
#ifndef STRATA_GCPRIVATE_H
#define STRATA_GCPRIVATE_H

#include <stdbool.h>

#include "GC.h"
#include "GCThread.h"
#include "LiveTally.h"
#include "Heap.h"
#include "Nursery.h"

/* Block descriptor fields other GC threads may change while this one reads
 * them (a live large group's generation and BF_EVACUATED, a to-space
 * block's BF_SCANQ): relaxed atomic accesses, plain moves on x86-64. */
static inline uint16_t bd_flags(const BlockDesc *bd)
{
    return __atomic_load_n(&bd->flags, __ATOMIC_ACQUIRE);
}
static inline uint16_t bd_gen_no(const BlockDesc *bd)
{
    return __atomic_load_n(&bd->gen_no, __ATOMIC_RELAXED);
}
static inline void bd_flags_set(BlockDesc *bd, uint16_t f)
{
    __atomic_fetch_or(&bd->flags, f, __ATOMIC_RELEASE);
}
static inline void bd_flags_clear(BlockDesc *bd, uint16_t f)
{
    __atomic_fetch_and(&bd->flags, (uint16_t)~f, __ATOMIC_RELAXED);
}

/* Evac.c / Evac.h: evacuate(p) and gc_alloc_for_copy are inline there. */

/* Scav.c */
void scavenge_loop(void);                    /* until no thread has work */
void scavenge_object(StgClosure *c);         /* fields of one object */
/* The same for an object of the heap (not a static one), with the scan
 * loop's fast path for fixed layouts; returns its size in words. */
StgWord scavenge_heap_object(StgClosure *c);
void scavenge_mut_list_block(unsigned gen, BlockDesc *mut_block);
void gc_remember(unsigned gen, StgClosure *c);  /* onto this thread's list */

/* GC.c */
/* Entries of lists the collection walks outside the scan, counted by each
 * walk (GCDetails.bookkeeping_steps; Note [A minor GC costs what is young]
 * in GC.c).  Written by the collecting thread alone, world stopped. */
extern StgWord gc_bookkeeping_steps;
void gc_push_scan_queue(BlockDesc *bd);
bool gc_roots_all_taken(void);          /* no root item is left to take */
void gc_observe_thread_phase(unsigned thread, GCPhase phase);

#endif /* STRATA_GCPRIVATE_H */
