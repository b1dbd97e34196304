/*
 * sm/NonMoving.c -- the non-moving old generation (+RTS --nonmoving-gc):
 * its cycle of snapshot, mark, weak pointers and sweep, and its state.
 * Relies on the copying collector (GC.c) for the snapshot's collection
 * of the young generations, on NonMovingAlloc.c for promotion into
 * segments, NonMovingMark.c for the mark and NonMovingSweep.c for the
 * sweep.  See docs/design/gc.md, "The non-moving generation".
 *
 * Note [The non-moving collector]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With --nonmoving-gc the young generations stay copying and the oldest
 * one is never copied: its small objects live in segments (Note
 * [Segments] in Segment.h), its large and pinned objects in their groups,
 * and a cycle finds the dead ones by marking from the roots, then frees
 * them in place.  The design follows GHC's non-moving collector (Gamari
 * and Dietz, "Alligator collector", ISMM 2020), itself after Ueno and
 * Ohori's snapshot-at-the-beginning collector for functional programs.
 * A cycle:
 *
 *   1. The snapshot [world stopped].  A collection of every young
 *      generation that promotes each survivor into the oldest (so nothing
 *      young exists at the snapshot).  The epoch flips first, so its
 *      copies are allocated marked; whenever it meets an object of the
 *      generation from a root or a copy, it queues it for the mark
 *      (Note [The snapshot]).
 *   2. The mark.  Everything the queue reaches through the generation is
 *      marked.
 *   3. Weak pointers, weak roots and remembered sets [world stopped]: a
 *      weak pointer whose key is marked keeps its value (marked in turn,
 *      to a fixed point); the others die and their finalizers are queued;
 *      every weak root source learns which of its objects died; dead
 *      objects leave the remembered sets.
 *   4. The sweep: unmarked slots and groups are freed.
 *
 * In this first stage every step runs in the pause of step 1; the
 * concurrent mark and sweep (item 2's second stage) move steps 2 and 4
 * beside the mutators.
 *
 * Note [Mark epochs]
 * ~~~~~~~~~~~~~~~~~~
 * A slot's mark byte is 0 when free, else 1 or 2: the epoch of the cycle
 * that last marked it, or in which it was allocated; a large or pinned
 * group keeps the same in two flag bits.  nonmoving_epoch is the epoch of
 * the running (or last) cycle, and every allocation writes it.  A cycle
 * starts by flipping it (1 <-> 2): every object then carries the other
 * epoch, unmarked, with nothing to clear; marking writes the new one, so
 * does allocation from then on (allocated black).  After the mark every
 * object of the other epoch is dead, and the sweep frees it.  So a slot
 * allocated between cycles is marked as live only by the next cycle's
 * mark, and one allocated during a cycle survives it.
 *
 * Note [The snapshot]
 * ~~~~~~~~~~~~~~~~~~~
 * The mark must mark everything reachable at the snapshot.  At the end of
 * the snapshot's collection every reachable object is either a copy it
 * made (already marked) or an object of the generation reached from a
 * root, a static root, a copy or another such object.  The collection
 * queues every object of the generation it meets while evacuating a
 * root, a static root, a copy's field or a remembered object's field
 * (the last only for safety: a remembered object may be dead, so this can
 * keep garbage for one cycle), but not a weak pointer's value: weak
 * pointers are decided in step 3.  The mark then follows the generation's
 * own pointers from the queue.
 */
#include "NonMoving.h"

#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "GC.h"
#include "GCThread.h"
#include "Messages.h"
#include "MutList.h"
#include "NonMovingPrivate.h"
#include "Weak.h"

MarkQueue nonmoving_queue;

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

bool nonmoving_init(unsigned n_threads)
{
    nonmoving_alloc_init();
    nonmoving_epoch = 1;
    nonmoving_marked_words = 0;
    memset(&nonmoving_queue, 0, sizeof nonmoving_queue);
    for (unsigned i = 0; i < n_threads; i++) {
        NonMovingThread *nm = calloc(1, sizeof *nm);
        if (nm == NULL) {
            rts_error("storage: out of C heap for the non-moving generation (threads=%u)",
                      n_threads);
            return false;
        }
        gc_threads[i]->nm = nm;
    }
    return true;
}

void nonmoving_exit(void)
{
    for (unsigned i = 0; i < gc_threads_max; i++) {
        NonMovingThread *nm = gc_threads[i]->nm;
        if (nm == NULL)
            continue;
        mark_queue_free(&nm->reached);
        free(nm);
        gc_threads[i]->nm = NULL;
    }
    mark_queue_free(&nonmoving_queue);
    /* Segments' era runs live in the C heap; their blocks go back with
     * the reservation. */
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link)
        segment_release((Segment *)bd->start);
}

/* ----------------------------------------------------------------------
 * The cycle
 * ---------------------------------------------------------------------- */

bool nonmoving_can_start_cycle(void)
{
    return true;   /* every cycle ends in the pause it starts in */
}

void nonmoving_snapshot_begin(unsigned n_threads)
{
    nonmoving_epoch = (uint8_t)(3 - nonmoving_epoch);   /* Note [Mark epochs] */
    nonmoving_marked_words = 0;
    for (unsigned i = 0; i < n_threads; i++)
        gc_threads[i]->nm_push = true;
}

/* A weak root source's slot: NULL if its object died in this cycle
 * (indirections followed, as weak_gc_is_alive does). */
static void update_weak_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    *slot = nonmoving_alive_or_null(*slot);
}

static BlockDesc *mut_block(void)
{
    BlockDesc *bd = block_alloc_group(1);
    if (bd == NULL)
        storage_heap_overflow(BLOCK_SIZE);
    return bd;
}

/* Drops the dead objects from the generation's remembered set: after the
 * sweep their slots may hold other objects, or nothing. */
static void forget_dead_remembered(void)
{
    BlockDesc *kept = NULL;
    MUT_LIST_FOR_EACH(oldest_gen->mut_list, c, {
        if (nonmoving_is_marked(c))
            mut_chain_append(&kept, c, mut_block);
    });
    mut_list_free(oldest_gen->mut_list);
    oldest_gen->mut_list = kept;
}

/* Step 3: weak pointers to a fixed point with the mark, then the weak
 * roots and the remembered set. */
static void settle_weaks_and_roots(LiveTally *tally)
{
    weak_nonmoving_begin();
    while (weak_nonmoving_traverse(&nonmoving_queue))
        nonmoving_mark_until(&nonmoving_queue, false, tally, NULL, NULL);
    weak_nonmoving_end();
    gc_visit_weak_roots(update_weak_root, NULL);
    forget_dead_remembered();
}

/* The generation's counts after a sweep: what it freed goes. */
static void apply_sweep(const NonMovingSwept *s)
{
    Generation *g = oldest_gen;
    ASSERT(g->n_blocks >= s->segment_blocks && g->n_words >= s->words &&
           g->n_large_blocks >= s->large_blocks && g->n_large_words >= s->large_words);
    g->n_blocks -= s->segment_blocks;
    g->n_words -= s->words;
    g->n_large_blocks -= s->large_blocks;
    g->n_large_words -= s->large_words;
}

void nonmoving_collect_stw(LiveTally *tally)
{
    nonmoving_mark_until(&nonmoving_queue, false, tally, NULL, NULL);
    settle_weaks_and_roots(tally);
    if (tally != NULL)
        live_tally_flush(tally);
    nonmoving_sweep_prepare();
    NonMovingSwept swept = {0};
    nonmoving_sweep_until(&swept, NULL, NULL);
    apply_sweep(&swept);
    debug_trace(DEBUG_GC, "gc: non-moving cycle: %lu words marked, %lu words and %lu large words "
                "freed", (unsigned long)nonmoving_marked_words,
                (unsigned long)swept.words, (unsigned long)swept.large_words);
}

StgWord nonmoving_live_words(void)
{
    return oldest_gen->n_words + oldest_gen->n_large_words;
}
