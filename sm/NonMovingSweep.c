/*
 * sm/NonMovingSweep.c -- the sweep of the non-moving generation: after a
 * cycle's mark, every slot whose mark is not the cycle's epoch is freed
 * (zeroed: Note [Segments] in Segment.h), every segment goes back to the
 * list its occupancy calls for, an empty one to the pool or the block
 * allocator, and every large or pinned group not marked is freed.  Runs
 * on the mark thread while no collection runs (Note [The mark thread
 * parks] in NonMovingThread.c), or with the world stopped.  Relies on the segment
 * lists (NonMovingAlloc.c) and the marks (NonMovingMark.c).
 */
#include "NonMovingPrivate.h"

#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "GrowArray.h"
#include "Messages.h"

/* Note [The sweep beside the program]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sweep beside the program changes nothing that the program, or
 * another user of the block allocator, reads without the world stopped:
 *   - It rewrites a segment's era runs from its allocated slots (Note
 *     [The eras of a segment] in Segment.c), which frees the old runs, and
 *     the program may be reading them (heap_object_era of one of the
 *     segment's live objects: the test programs check their objects'
 *     eras as they run).  So the runs of a segment that keeps live
 *     objects stay as they are -- they still give every allocated slot
 *     its era -- and the segment is listed; a segment it empties holds
 *     nothing the program can reach, and its runs go at once.
 *   - It gives no group back to the block allocator: freeing a group
 *     reads the descriptors of its neighbours (to merge free ones), and a
 *     neighbour may be a nursery block or large object whose owner writes
 *     its descriptor without a lock.  The freed segments and large and
 *     pinned groups are listed instead; what they held comes off the
 *     generation's counts as before.
 * The next collection, the world stopped, rewrites the listed runs
 * first, before it allocates anything, and frees listed groups up to its
 * budget (nonmoving_settle_swept, Note [Freeing the sweep's groups a
 * budget at a time]).  ThreadSanitizer found both, in par-gc.sh's
 * programs under GHCRTS='--nonmoving-gc -N2 -qn2'.
 *
 * Note [Freeing the sweep's groups a budget at a time]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sweep beside the program lists every group it frees: all the dead
 * large and pinned objects of the cycle, and the segments it emptied.
 * Their number grows with the old generation -- msgbuf's 200 MB window
 * of pinned 1 KiB messages leaves 30,000-70,000 dead pinned blocks per
 * cycle -- so the collection that freed them all in its pause took 1-4
 * ms of CPU, the longest of its pauses, and more at 1 GB.  So each
 * collection frees a budget of them (the first that reaches or passes
 * it ends the turn), and the rest wait for the next ones.  The budget is
 * twice the blocks the program can take between two collections (its
 * nurseries, and the large and pinned allocation that asks for a
 * collection: policy_large_alloc_wants_gc), so the list shrinks faster
 * than the heap grows, and a cycle's groups are back well before the
 * next cycle's sweep: the pause costs what the nursery costs.  A
 * collection that must be exact (nonmoving_gc_begin's exact) frees
 * them all.  Until then the listed groups are garbage that belongs to no
 * list or generation: the sanity checker counts them in the block
 * inventory (nonmoving_for_each_unfreed_group), and storage_heap_blocks
 * leaves them out, as it leaves out free blocks. */
static Segment **eras_to_compact;   /* changed by the sweep, or the world stopped */
static size_t n_eras_to_compact, cap_eras_to_compact;
static BlockDesc *groups_to_free;   /* the same; linked by ->link */
static StgWord blocks_to_free;      /* their blocks */
static NonMovingSettled settled;    /* changed with the world stopped */

/* The next large or pinned group to sweep, on the generation's list: the
 * groups from here on were there at the end of the mark, and those the
 * program promotes meanwhile go in front of the list, marked. */
static BlockDesc *sweep_large;
static bool sweeping_large;
static bool sweeping_segments;   /* some segment awaits the sweep */
static unsigned sweep_class;     /* the classes below it are swept */

/* Gives bd back to the block allocator, or beside the program lists it. */
static void free_group(BlockDesc *bd, bool concurrent)
{
    if (concurrent) {
        bd->link = groups_to_free;
        groups_to_free = bd;
        blocks_to_free += bd->blocks;
        return;
    }
    sm_lock();
    block_free_group(bd);
    sm_unlock();
}

void nonmoving_settle_swept(StgWord budget_blocks)
{
    for (size_t i = 0; i < n_eras_to_compact; i++)
        if (!segment_compact_eras(eras_to_compact[i]))
            rts_panic("out of C heap compacting a segment's era runs (segment=%p)",
                      (void *)eras_to_compact[i]);
    n_eras_to_compact = 0;
    StgWord freed = 0;
    if (groups_to_free != NULL) {
        sm_lock();
        while (groups_to_free != NULL && freed < budget_blocks) {
            BlockDesc *bd = groups_to_free;
            groups_to_free = bd->link;
            freed += bd->blocks;
            block_free_group(bd);
        }
        sm_unlock();
    }
    blocks_to_free -= freed;
    settled.blocks += freed;
    if (freed > settled.max_blocks)
        settled.max_blocks = freed;
}

StgWord nonmoving_unfreed_blocks(void)
{
    return blocks_to_free;
}

const NonMovingSettled *nonmoving_settled(void)
{
    return &settled;
}

void nonmoving_for_each_unfreed_group(void (*fn)(BlockDesc *bd, void *ctx), void *ctx)
{
    for (BlockDesc *bd = groups_to_free; bd != NULL; bd = bd->link)
        fn(bd, ctx);
}

void nonmoving_sweep_exit(void)
{
    free(eras_to_compact);
    eras_to_compact = NULL;
    n_eras_to_compact = cap_eras_to_compact = 0;
    groups_to_free = NULL;   /* their blocks go back with the reservation */
    blocks_to_free = 0;
    memset(&settled, 0, sizeof settled);
    sweeping_segments = sweeping_large = false;
    sweep_large = NULL;
}


/* Note [Handing the segments to the sweep]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The sync hands every segment of the generation to the sweep, with the
 * world stopped.  It moves the class lists whole (the list heads, one
 * store per list), never the segments one by one: relinking each
 * segment touched every segment's header in the pause, a cache miss
 * each, and made the sync grow with the heap (msgbuf 200000 1000000
 * movable: 29-33 ms of a 30-34 ms sync, at load 11; 6,700 segments).  A
 * segment on the sweep's lists keeps its ACTIVE or FILLED tag; the
 * collections that run during the sweep take segments from the class
 * lists, which start empty, the pool and the block allocator, never from
 * the sweep's.  Until the sweep ends, a slot whose mark byte holds the
 * other epoch is dead and not yet freed: every object the mark reached,
 * and every one allocated since the snapshot, holds the cycle's epoch,
 * a swept slot holds that or 0, and a segment from the pool or the block
 * allocator starts with every mark 0. */
StgWord nonmoving_sweep_prepare(void)
{
    ASSERT(!sweeping_segments);
    memcpy(nonmoving_sweep_active, nonmoving_active, sizeof nonmoving_active);
    memcpy(nonmoving_sweep_filled, nonmoving_filled, sizeof nonmoving_filled);
    memset(nonmoving_active, 0, sizeof nonmoving_active);
    memset(nonmoving_filled, 0, sizeof nonmoving_filled);
    sweeping_segments = true;
    sweep_class = 0;
    sweep_large = oldest_gen->large_objects;
    sweeping_large = true;
    return 2 * SEGMENT_CLASSES + 1;
}

bool nonmoving_sweep_pending_group(const BlockDesc *bd)
{
    return sweeping_large && nonmoving_group_epoch(bd) != nonmoving_epoch;
}

bool nonmoving_sweep_pending_slot(const Segment *seg, unsigned i)
{
    uint8_t m = seg->marks[i];
    return sweeping_segments && m != 0 && m != nonmoving_epoch;
}

/* The next segment to sweep, taken off the sweep's lists; NULL when none
 * is left. */
static Segment *next_to_sweep(void)
{
    for (; sweep_class < SEGMENT_CLASSES; sweep_class++) {
        unsigned c = sweep_class;
        Segment **list = nonmoving_sweep_active[c] != NULL ? &nonmoving_sweep_active[c]
                                                           : &nonmoving_sweep_filled[c];
        Segment *seg = *list;
        if (seg != NULL) {
            *list = seg->link;
            seg->link = NULL;
            return seg;
        }
    }
    return NULL;
}

/* Note [What the sweep zeroes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A segment's free slots must read as zero (Note [Segments] in
 * Segment.h), so the sweep zeroes the slots it frees -- but each run of
 * neighbouring dead slots with one memset, not one call per slot: a
 * segment of 3-word slots holds over 1,300, and whole segments die
 * together (a tree, a window of messages).  A segment left empty that the
 * pool has no room for leaves the generation for the block allocator,
 * which keeps no promise about a free block's words, so its slots and
 * marks are left as they are; only the dead objects' sizes are read, for
 * the generation's count.  nonmoving_pool_has_room is asked before the
 * slots are touched and again by nonmoving_segment_release_locked, with
 * nothing in between that changes its answer.  A segment the pool takes
 * is all zero after its header, so segment_reformat clears nothing when
 * it is taken again. */

/* Zeroes the dead slots of seg, and their marks, unless seg is empty and
 * about to leave the generation (Note [What the sweep zeroes]). */
static void clear_dead_slots(Segment *seg, unsigned used)
{
    if (used == 0 && !nonmoving_pool_has_room())
        return;
    uint8_t live = nonmoving_epoch;
    size_t slot_bytes = (size_t)seg->slot_words * WORD_SIZE;
    unsigned from = 0;
    for (unsigned i = 0; i <= seg->n_slots; i++) {
        bool dead = i < seg->n_slots && seg->marks[i] != live && seg->marks[i] != 0;
        if (dead) {
            seg->marks[i] = 0;
            continue;
        }
        if (from < i)
            memset(segment_slot(seg, from), 0, (i - from) * slot_bytes);
        from = i + 1;
    }
}

/* Frees the slots of seg that the mark left unmarked, and puts seg back;
 * beside the program (concurrent), what the program may read stays until
 * the next collection (Note [The sweep beside the program]). */
static void sweep_segment(Segment *seg, NonMovingSwept *out, bool concurrent)
{
    uint8_t live = nonmoving_epoch;
    unsigned used = 0, dead = 0, first_free = seg->n_slots;
    for (unsigned i = 0; i < seg->n_slots; i++) {
        uint8_t m = seg->marks[i];
        if (m == live) {
            used++;
            continue;
        }
        if (m != 0) {
            dead++;
            out->words += closure_sizeW((StgClosure *)segment_slot(seg, i));   /* dead, but whole */
        }
        if (first_free == seg->n_slots)
            first_free = i;
    }
    if (dead > 0)
        clear_dead_slots(seg, used);
    seg->n_used = (uint16_t)used;
    seg->next_free = (uint16_t)(first_free < seg->n_slots ? first_free : 0);
    seg->list = SEGMENT_ON_NONE;
    if (used == 0) {   /* its era runs go with it */
        BlockDesc *group = nonmoving_segment_release_locked(seg);
        if (group != NULL) {
            free_group(group, concurrent);
            out->segment_blocks += SEGMENT_BLOCKS;
        }
        return;
    }
    if (concurrent && seg->runs != NULL) {
        if (GROW_ARRAY_RESERVE_MIN(eras_to_compact, cap_eras_to_compact,
                                   n_eras_to_compact + 1, 64) != 0)
            rts_panic("out of C heap listing segments to compact (segments=%zu)",
                      n_eras_to_compact);
        eras_to_compact[n_eras_to_compact++] = seg;
    } else if (!segment_compact_eras(seg)) {
        rts_panic("out of C heap compacting a segment's era runs (segment=%p)", (void *)seg);
    }
    nonmoving_segment_put_locked(seg);
}

/* Frees a group the mark left unmarked. */
static void sweep_group(BlockDesc *bd, NonMovingSwept *out, bool concurrent)
{
    if (nonmoving_group_epoch(bd) == nonmoving_epoch)
        return;
    dbl_link_remove(bd, &oldest_gen->large_objects);
    out->large_blocks += bd->blocks;
    out->large_words += (StgWord)(bd->free - bd->start);
    free_group(bd, concurrent);
}

bool nonmoving_sweep_until(NonMovingSwept *out, bool concurrent, bool (*stop)(void *),
                           void *arg)
{
    for (Segment *seg; sweeping_segments; ) {
        if ((seg = next_to_sweep()) == NULL) {
            sweeping_segments = false;
            break;
        }
        sweep_segment(seg, out, concurrent);
        if (stop != NULL && stop(arg))
            return false;
    }
    while (sweep_large != NULL) {
        BlockDesc *bd = sweep_large;
        sweep_large = bd->link;
        sweep_group(bd, out, concurrent);
        if (stop != NULL && stop(arg))
            return false;
    }
    sweeping_large = false;
    return true;
}
