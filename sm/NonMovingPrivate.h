/*
 * sm/NonMovingPrivate.h -- what NonMoving.c, NonMovingAlloc.c and
 * NonMovingSweep.c share: the lists of segments, the mark queue of the
 * cycle, and the sweep's results.  Nothing else includes it.
 */
#ifndef STRATA_NONMOVINGPRIVATE_H
#define STRATA_NONMOVINGPRIVATE_H

#include "NonMoving.h"
#include "os/Thread.h"

/* The cycle's phase changes under nonmoving_lock, with a broadcast of
 * nonmoving_changed (the mark thread waits on it); nonmoving_cycle counts
 * the snapshots, so that the mark thread can tell that a collection ran
 * its cycle to the end while it was parked. */
extern OsMutex nonmoving_lock;
extern OsCond nonmoving_changed;
extern uint64_t nonmoving_cycle;

/* The mark thread's work between its parks (NonMoving.c): mark, true when
 * nothing is left; sweep, true when done (the phase is then SWEPT). */
bool nonmoving_mark_step(bool (*stop)(void *));
bool nonmoving_sweep_step(bool (*stop)(void *));

/* Called by the mark thread with an empty queue: the sync, please. */
void nonmoving_ask_for_sync(uint64_t cycle);

/* The mark thread starts work on a cycle with its CPU clock at at_ns: the
 * first call for a cycle is where the cycle's cost begins
 * (nonmoving_sweep_step, on the mark thread, takes it when the sweep
 * ends: nonmoving_last_cycle_cpu_ns). */
void nonmoving_note_cycle_cpu_start(uint64_t cycle, uint64_t at_ns);

/* NonMovingThread.c: starts the mark thread (at the first cycle) or wakes
 * it; whether it was stopped (from then on every cycle runs in its
 * collection's pause); makes it startable again (nonmoving_init). */
void nonmoving_thread_wake(void);
bool nonmoving_thread_stopped(void);
void nonmoving_thread_reset(void);

/* Whether a test holds phase (nonmoving_hold): then the collections do
 * not help with it either. */
bool nonmoving_phase_held(NonMovingPhase phase);

/* The mark thread's work so far, in stop checks passed (each after 256
 * entries marked, or a segment or group swept); read by a collection
 * with the thread parked or idle. */
uint64_t nonmoving_thread_progress(void);

/* Each segment in use is on exactly one list (its seg->list), or is a GC
 * thread's current one during a collection (SEGMENT_ON_NONE).  The lists
 * change during collections (the copying threads, under
 * nonmoving_segments_lock) and in the sweep, on the mark thread while no
 * collection runs (Note [The mark thread parks] in NonMovingThread.c). */
extern OsMutex nonmoving_segments_lock;
extern Segment *nonmoving_active[SEGMENT_CLASSES];
extern Segment *nonmoving_filled[SEGMENT_CLASSES];
extern Segment *nonmoving_free_pool;
extern StgWord nonmoving_n_free_pool;
/* The sweep's lists: at the sync the class lists become these whole,
 * so a segment keeps its list tag until it is swept (Note [Handing the
 * segments to the sweep] in NonMovingSweep.c). */
extern Segment *nonmoving_sweep_active[SEGMENT_CLASSES];
extern Segment *nonmoving_sweep_filled[SEGMENT_CLASSES];

/* Puts seg on the list its occupancy calls for (active, filled, or the
 * pool when empty).  Caller holds the lock or runs alone. */
void nonmoving_segment_put_locked(Segment *seg);

/* Gives an empty segment back: to the pool (NULL), or, when the pool is
 * full, out of the generation: returns its group, for the caller to give
 * to the block allocator. */
BlockDesc *nonmoving_segment_release_locked(Segment *seg);

/* Whether the pool would take an empty segment now (so that
 * nonmoving_segment_release_locked returns NULL).  Caller holds the lock
 * or runs alone. */
bool nonmoving_pool_has_room(void);

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

/* What the running cycle's sweep has freed so far, taken off the
 * generation's counts with the world stopped (NonMoving.c). */
extern NonMovingSwept nonmoving_swept_pending;

/* Moves every segment and large group of the generation to the sweep
 * (the world stopped, the mark done); returns the list heads it moved. */
StgWord nonmoving_sweep_prepare(void);

/* Whether the sweep has yet to reach the large or pinned group bd; and
 * whether slot i of seg holds an object the running cycle's mark found
 * dead, which the sweep has yet to free. */
bool nonmoving_sweep_pending_group(const BlockDesc *bd);
bool nonmoving_sweep_pending_slot(const Segment *seg, unsigned i);

/* Sweeps until done, or until stop(arg) (if set) says so between
 * segments and groups; true when done.  Adds what it freed to *out.
 * concurrent: beside the program (Note [The sweep beside the program]);
 * else the world is stopped. */
bool nonmoving_sweep_until(NonMovingSwept *out, bool concurrent, bool (*stop)(void *),
                           void *arg);

/* Rewrites the era runs a sweep beside the program left, and frees the
 * groups it left until budget_blocks blocks are freed or none is left
 * (Note [The sweep beside the program], Note [Freeing the sweep's groups
 * a budget at a time] in NonMovingSweep.c), the world stopped;
 * nonmoving_sweep_exit forgets them. */
void nonmoving_settle_swept(StgWord budget_blocks);
void nonmoving_sweep_exit(void);

/* The mark thread, after each phase's work: its CPU time so far
 * (NonMovingStats.thread_cpu_ns). */
void nonmoving_note_thread_cpu(uint64_t ns);

#endif /* STRATA_NONMOVINGPRIVATE_H */
