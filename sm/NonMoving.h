/*
 * sm/NonMoving.h -- the non-moving old generation (+RTS --nonmoving-gc):
 * what the copying collector calls to promote into it, and its cycle of
 * snapshot, mark and sweep.  See Note [The non-moving collector] in
 * NonMoving.c and docs/design/gc.md, "The non-moving generation".
 */
#ifndef STRATA_NONMOVING_H
#define STRATA_NONMOVING_H

#include <stdbool.h>

#include "Heap.h"
#include "Messages.h"
#include "NonMovingMark.h"
#include "Segment.h"

/* What one GC thread has of the generation during a collection. */
typedef struct NonMovingThread_ {
    Segment *current[SEGMENT_CLASSES]; /* where its copies of each class go */
    BlockDesc *todo;             /* its copies not yet scanned: a block of
                                    object pointers filled up to ->free */
    BlockDesc *todo_full;        /* full ones it kept (->link; sequential GC) */
    BlockDesc *spent;            /* emptied ones, freed after the collection */
    MarkQueue reached;           /* objects of the generation a snapshot's
                                    roots or copies point at (Note [The
                                    snapshot] in NonMoving.c) */
} NonMovingThread;

/* Whether the storage manager runs with a non-moving oldest generation. */
static inline bool nonmoving_on(void)
{
    return storage_config.nonmoving;
}

/* Sets up the generation's state for n_threads GC threads (storage_init,
 * after gc_threads_init); false after a message when out of C heap. */
bool nonmoving_init(unsigned n_threads);
void nonmoving_exit(void);

/* ----------------------------------------------------------------------
 * Promotion (the copying collector's threads, the world stopped)
 * ---------------------------------------------------------------------- */

/* Whether a copy into the generation of an object with header info must
 * be queued to be scanned: it has pointers, or a census counts it as it is
 * scanned (counting: a tally is due).  Note [Copies with nothing to scan]
 * in NonMovingAlloc.c. */
static inline bool nonmoving_copy_needs_scan(const StgInfoTable *info, bool counting)
{
    return info->ptrs != 0 || info->fixed_words == 0 || counting;
}

/* A slot of n_words for a copy of an object of era era, into which the
 * calling GC thread copies next; the copy is queued to be scanned if
 * scan. */
StgPtr nonmoving_alloc_copy(StgWord n_words, uint64_t era, bool scan);

/* The first free slot of seg at or after its hint; seg has one. */
static inline unsigned nonmoving_first_free_slot(const Segment *seg)
{
    unsigned i = seg->next_free;
    while (seg->marks[i] != 0)
        i++;
    ASSERT(i < seg->n_slots);
    return i;
}

/* Takes free slot i of seg for a copy, marked with the current epoch
 * (Note [Promoting into segments] in NonMovingAlloc.c). */
static inline StgPtr nonmoving_take_slot(Segment *seg, unsigned i)
{
    /* Read by other GC threads (nonmoving_gc_reached): atomic. */
    __atomic_store_n(&seg->marks[i], nonmoving_epoch, __ATOMIC_RELAXED);
    seg->n_used++;
    seg->next_free = (uint16_t)(i + 1);
    return segment_slot(seg, i);
}

/* nonmoving_alloc_copy for the GC thread whose state is nm, with its
 * common case inline (Note [The common copy into a segment] in
 * NonMovingAlloc.c): the class's current segment has a free slot of the
 * copy's era, and the todo block has room for the copy (or it needs no
 * scan). */
static inline StgPtr nonmoving_alloc_copy_inline(NonMovingThread *nm, StgWord n_words,
                                                 uint64_t era, bool scan)
{
    Segment *seg = nm->current[segment_class_of(n_words)];
    BlockDesc *todo = nm->todo;
    if (STRATA_UNLIKELY(seg == NULL || seg->n_used == seg->n_slots || seg->runs != NULL ||
                        seg->era != era ||
                        (scan && (todo == NULL || todo->free >= todo->start + BLOCK_SIZE_W))))
        return nonmoving_alloc_copy(n_words, era, scan);
    ASSERT(n_words <= SEGMENT_MAX_OBJECT_WORDS);
    StgPtr to = nonmoving_take_slot(seg, nonmoving_first_free_slot(seg));
    if (scan)
        *todo->free++ = (StgWord)to;
    return to;
}

/* Takes back the calling thread's latest copy, at to, its header written
 * (another thread won the object). */
void nonmoving_retract_copy(StgPtr to);

/* Scans one of the calling thread's copies into the generation (or a
 * block of them that it has kept); false when it has none. */
bool nonmoving_scavenge_own(void);

/* Scans every copy listed in todo block bd, taken from another thread. */
void nonmoving_scavenge_todo_block(BlockDesc *bd);

/* The copying collector met q, an object of the generation (it does not
 * move): in a snapshot's collection it is queued for the mark. */
void nonmoving_gc_reached(StgClosure *q);

/* A large or pinned group joins the generation (the world stopped): it
 * belongs to it from now on, marked as allocated in the current cycle. */
void nonmoving_adopt_group(BlockDesc *bd);

/* After every collection's scan, with its threads stopped: each thread's
 * segments go back to their lists and its lists are freed. */
void nonmoving_gc_done(void);

/* ----------------------------------------------------------------------
 * The cycle (Note [The non-moving collector] in NonMoving.c)
 * ---------------------------------------------------------------------- */

typedef enum {
    NONMOVING_IDLE,              /* no cycle runs */
    NONMOVING_MARKING,           /* the mark thread marks */
    NONMOVING_SYNC_WANTED,       /* ... and has asked for the sync pause */
    NONMOVING_SWEEPING,          /* the mark thread sweeps */
    NONMOVING_SWEPT,             /* the next collection ends the cycle */
} NonMovingPhase;

NonMovingPhase nonmoving_phase_now(void);

/* At the start of every collection (the world stopped): runs the sync the
 * mark thread asked for, takes a sweep's frees off the generation's
 * counts, and with exact runs whatever is left of the cycle.  True when a
 * cycle ended: the generation's budget is settled after this collection. */
bool nonmoving_gc_begin(bool exact);

/* Whether the next collection of the oldest generation may start a cycle
 * (false while one runs). */
bool nonmoving_can_start_cycle(void);

/* A collection that takes the snapshot: before its copying starts (the
 * epoch flips, so its copies are allocated marked), and the threads that
 * will run it push what they reach. */
void nonmoving_snapshot_begin(unsigned n_threads);

/* After the snapshot's copying: starts the concurrent mark, or with exact
 * runs the whole cycle in this pause and returns true.  tally (NULL:
 * none), into which the snapshot's collection counted its copies, is the
 * cycle's census: its mark counts on into it (Note [A census from the
 * snapshot] in NonMoving.c). */
bool nonmoving_snapshot_end(LiveTally *tally, bool exact);

/* Stops the mark thread for good (hs_exit, before it stops the world: the
 * caller holds a capability and parks for others' syncs meanwhile); the
 * next collection finishes a running cycle, and every later cycle runs
 * in its collection's pause. */
void nonmoving_thread_stop(void);

/* For tests: the mark thread does no work in phase (NONMOVING_MARKING or
 * NONMOVING_SWEEPING; NONMOVING_IDLE holds nothing): it waits as an idle
 * thread, so syncs do not wait for it, and the snapshot, the barrier's
 * log, the collections and an exact collection's cycle go on as ever.  A
 * test that holds the mark before a cycle starts changes the heap after
 * the snapshot and before the mark has traced anything, then lets go:
 * what the snapshot reached stays marked only if the barrier logged it.
 * One that holds the sweep walks the heap while the dead are unswept.
 * A held phase is held for the collections' help too (Note [A collection
 * helps a lagging cycle] in NonMoving.c). */
void nonmoving_hold(NonMovingPhase phase);

/* For tests: the mark thread does no work in any phase, as if it were
 * never scheduled, but the collections help the cycle as ever: a cycle
 * then ends only by their help. */
void nonmoving_starve_mark_thread(bool on);

/* For tests: the mark thread does checks more stop checks of work (256
 * entries marked, or a segment or group swept, each), then none, as if
 * starved, until the next call or nonmoving_starve_mark_thread: a
 * thread that works, slowly, a counted amount between two collections.
 * nonmoving_mark_thread_has_ration: whether it has not yet used it up. */
void nonmoving_ration_mark_thread(uint64_t checks);
bool nonmoving_mark_thread_has_ration(void);

/* How far the running cycle is behind the plan its budget made
 * (policy_cycle_lag in Policy.c; Note [A collection helps a lagging
 * cycle] in NonMoving.c). */
typedef enum {
    NONMOVING_ON_PLAN,           /* within the plan, or no cycle runs */
    NONMOVING_BEHIND_PLAN,       /* past the planned peak by an eighth */
    NONMOVING_FAR_BEHIND_PLAN,   /* ... by a half */
} NonMovingLag;

/* Called by every collection under --nonmoving-gc, the world stopped,
 * after nonmoving_gc_begin, with how far the policy finds the running
 * cycle behind its plan (policy_cycle_lag): if far behind, or behind with
 * a mark thread that has stalled, if the cycle has lasted many
 * collections (late), or if a collection helped with the running phase
 * already, marks or sweeps a slice of what the
 * mark thread has not done (Note [A collection helps a lagging cycle] in
 * NonMoving.c); true when that ended the cycle. */
bool nonmoving_help_cycle(NonMovingLag lag);

/* Finishes the running cycle's sweep now, the world stopped (or the mark
 * thread held): a walk of the heap's blocks then meets no object the
 * cycle found dead, whose fields may point at slots the sweep freed. */
void nonmoving_finish_sweep(void);

/* Called with the world stopped when a cycle has finished counting the
 * census t (t->filled; t->at_ns is the snapshot's moment) beside the
 * program (gc_request_tally); NULL: none. */
typedef void (*NonMovingCensusHook)(LiveTally *t);
void nonmoving_set_census_hook(NonMovingCensusHook hook);

/* Whether the mark thread waits for the sync pause; the mutators' slow
 * path then runs it (nonmoving_sync stops the world itself). */
bool nonmoving_sync_wanted(void);
void nonmoving_sync(void);

/* What the cycles took (+RTS -s). */
typedef struct {
    uint64_t cycles;             /* cycles ended */
    uint64_t stw_cycles;         /* ... of which run in one pause (exact) */
    uint64_t syncs;              /* sync pauses of their own (not in a GC) */
    uint64_t sync_ns, max_sync_ns;   /* their length, elapsed */
    uint64_t syncs_in_gcs;       /* syncs run inside a collection's pause
                                    (its time is the collection's) */
    uint64_t mark_ns, sweep_ns;  /* the concurrent phases, elapsed */
    uint64_t thread_cpu_ns;      /* the mark thread's CPU time (marking and
                                    sweeping), as of its last phase's end;
                                    written by that thread (relaxed) */
    uint64_t phase_start_ns;     /* when the running phase began */
    uint64_t last_sync_steps;    /* the last sync's work: entries of the lists
                                    it walks and objects it marks (Note
                                    [Handing the segments to the sweep]) */
    StgWord last_start_words;    /* the generation's words when the last
                                    cycle started (before its snapshot) */
    StgWord last_live_words;     /* what the last ended cycle's mark found
                                    live: the generation's words after its
                                    snapshot less what its sweep freed */
    StgWord last_allocated_words; /* the rest of the generation when that
                                    cycle ended: what the program promoted
                                    while it ran (allocated marked) */
    uint64_t helps;              /* collections that helped a lagging cycle */
    uint64_t help_steps;         /* what they did: objects marked, segments
                                    and groups swept */
    uint64_t max_help_steps;     /* ... the most by one collection */
} NonMovingStats;
const NonMovingStats *nonmoving_stats(void);

/* The mark thread's CPU time (marking and sweeping) in the last cycle
 * whose sweep ended (0 before the first, and after a cycle run whole in a
 * pause): the census budget's cost of a cycle beside the program (Note
 * [When a census runs] in profiling/ProfHeap.c).  Read from any thread. */
uint64_t nonmoving_last_cycle_cpu_ns(void);

/* The groups a sweep beside the program freed that the collections have
 * not yet given back to the block allocator, a budget per collection
 * (Note [Freeing the sweep's groups a budget at a time] in
 * NonMovingSweep.c): their blocks, the budget, and what the collections
 * gave back (for tests and the sanity checker's block inventory). */
StgWord nonmoving_unfreed_blocks(void);
StgWord nonmoving_settle_budget_blocks(void);
typedef struct {
    StgWord blocks;              /* given back since start-up */
    StgWord max_blocks;          /* the most one collection gave back */
} NonMovingSettled;
const NonMovingSettled *nonmoving_settled(void);
void nonmoving_for_each_unfreed_group(void (*fn)(BlockDesc *bd, void *ctx), void *ctx);

/* The words of the generation's objects now (its slots and groups in
 * use, the dead ones not yet swept included). */
StgWord nonmoving_generation_words(void);

/* Blocks of segments in use (every list) and the fragmentation figures
 * (+RTS -s). */
typedef struct {
    StgWord segments;            /* segments in use */
    StgWord slot_words;          /* words of their slots */
    StgWord used_slot_words;     /* words of their allocated slots */
    StgWord free_segments;       /* empty segments kept for reuse */
} NonMovingOccupancy;
void nonmoving_occupancy(NonMovingOccupancy *out);

#endif /* STRATA_NONMOVING_H */
