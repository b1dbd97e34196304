/*
 * sm/NonMovingPrivate.h -- what NonMoving.c, NonMovingAlloc.c and
 * NonMovingSweep.c share: the lists of segments, the mark queue of the
 * cycle, and the sweep's results.  Nothing else includes it.
 */
#ifndef STRATA_NONMOVINGPRIVATE_H
#define STRATA_NONMOVINGPRIVATE_H

#include "NonMoving.h"
#include "os/Thread.h"

/* Each segment in use is on exactly one list (its seg->list), or is a GC
 * thread's current one during a collection (SEGMENT_ON_NONE).  The lists
 * change during collections (the copying threads, under
 * nonmoving_segments_lock) and in the sweep, with the world stopped. */
extern OsMutex nonmoving_segments_lock;
extern Segment *nonmoving_active[SEGMENT_CLASSES];
extern Segment *nonmoving_filled[SEGMENT_CLASSES];
extern Segment *nonmoving_free_pool;
extern StgWord nonmoving_n_free_pool;
extern Segment *nonmoving_sweep_list;

/* Puts seg on the list its occupancy calls for (active, filled, or the
 * pool when empty).  Caller holds the lock or runs alone. */
void nonmoving_segment_put_locked(Segment *seg);

/* Gives an empty segment back: to the pool, or to the block allocator
 * when the pool is full; returns the blocks given to the allocator. */
StgWord nonmoving_segment_release_locked(Segment *seg);

/* The mark queue of the running cycle. */
extern MarkQueue nonmoving_queue;

/* Resets the lists (storage_init). */
void nonmoving_alloc_init(void);

/* What a sweep freed, for the generation's counts. */
typedef struct {
    StgWord segment_blocks;      /* blocks of segments given back */
    StgWord large_blocks;        /* blocks of large and pinned groups freed */
    StgWord large_words;         /* their words */
    StgWord words;               /* words of the objects freed from slots */
} NonMovingSwept;

/* Moves every segment and large group of the generation to the sweep
 * (the world stopped, the mark done). */
void nonmoving_sweep_prepare(void);

/* Sweeps until done, or until stop(arg) says so between segments; true
 * when done.  Adds what it freed to *out. */
bool nonmoving_sweep_until(NonMovingSwept *out, bool (*stop)(void *), void *arg);

#endif /* STRATA_NONMOVINGPRIVATE_H */
