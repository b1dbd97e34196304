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

/* A slot of n_words for a copy of an object of era era, into which the
 * calling GC thread copies next; the copy is queued to be scanned. */
StgPtr nonmoving_alloc_copy(StgWord n_words, uint64_t era);

/* Takes back the calling thread's latest copy (another thread won the
 * object). */
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
 * The cycle
 * ---------------------------------------------------------------------- */

/* Whether the next collection of the oldest generation may start a cycle
 * (false while one runs). */
bool nonmoving_can_start_cycle(void);

/* A collection that takes the snapshot: before its copying starts (the
 * epoch flips, so its copies are allocated marked), and the threads that
 * will run it push what they reach. */
void nonmoving_snapshot_begin(unsigned n_threads);

/* After the snapshot's copying: the mark, the weak pointers, the sweep,
 * all with the world stopped (the first stage of issue 50's item 2).
 * Counts what it marks into tally (NULL: no census is due), which the
 * snapshot's collection has counted its copies into. */
void nonmoving_collect_stw(LiveTally *tally);

/* The budget of the generation after a cycle: its live words. */
StgWord nonmoving_live_words(void);

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
