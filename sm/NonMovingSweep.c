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

#include <string.h>

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "Messages.h"

/* The next large or pinned group to sweep, on the generation's list: the
 * groups from here on were there at the end of the mark, and those the
 * program promotes meanwhile go in front of the list, marked. */
static BlockDesc *sweep_large;
static bool sweeping_large;

static void list_to_sweep(Segment **list)
{
    for (Segment *seg = *list, *next; seg != NULL; seg = next) {
        next = seg->link;
        seg->link = nonmoving_sweep_list;
        seg->list = SEGMENT_ON_SWEEP;
        nonmoving_sweep_list = seg;
    }
    *list = NULL;
}

void nonmoving_sweep_prepare(void)
{
    for (unsigned c = 0; c < SEGMENT_CLASSES; c++) {
        list_to_sweep(&nonmoving_active[c]);
        list_to_sweep(&nonmoving_filled[c]);
    }
    sweep_large = oldest_gen->large_objects;
    sweeping_large = true;
}

bool nonmoving_sweep_pending_group(const BlockDesc *bd)
{
    return sweeping_large && nonmoving_group_epoch(bd) != nonmoving_epoch;
}

/* Frees the slots of seg that the mark left unmarked, and puts seg back. */
static void sweep_segment(Segment *seg, NonMovingSwept *out)
{
    uint8_t live = nonmoving_epoch;
    unsigned used = 0, first_free = seg->n_slots;
    for (unsigned i = 0; i < seg->n_slots; i++) {
        uint8_t m = seg->marks[i];
        if (m == live) {
            used++;
            continue;
        }
        if (m != 0) {
            StgPtr p = segment_slot(seg, i);
            out->words += closure_sizeW((StgClosure *)p);   /* dead, but whole */
            memset(p, 0, (size_t)seg->slot_words * WORD_SIZE);
            seg->marks[i] = 0;
        }
        if (first_free == seg->n_slots)
            first_free = i;
    }
    seg->n_used = (uint16_t)used;
    seg->next_free = (uint16_t)(first_free < seg->n_slots ? first_free : 0);
    if (!segment_compact_eras(seg))
        rts_panic("out of C heap compacting a segment's era runs (segment=%p)", (void *)seg);
    seg->list = SEGMENT_ON_NONE;
    if (used == 0)
        out->segment_blocks += nonmoving_segment_release_locked(seg);
    else
        nonmoving_segment_put_locked(seg);
}

/* Frees a group the mark left unmarked. */
static void sweep_group(BlockDesc *bd, NonMovingSwept *out)
{
    if (nonmoving_group_epoch(bd) == nonmoving_epoch)
        return;
    dbl_link_remove(bd, &oldest_gen->large_objects);
    out->large_blocks += bd->blocks;
    out->large_words += (StgWord)(bd->free - bd->start);
    sm_lock();
    block_free_group(bd);
    sm_unlock();
}

bool nonmoving_sweep_until(NonMovingSwept *out, bool (*stop)(void *), void *arg)
{
    while (nonmoving_sweep_list != NULL) {
        Segment *seg = nonmoving_sweep_list;
        nonmoving_sweep_list = seg->link;
        seg->link = NULL;
        sweep_segment(seg, out);
        if (stop != NULL && stop(arg))
            return false;
    }
    while (sweep_large != NULL) {
        BlockDesc *bd = sweep_large;
        sweep_large = bd->link;
        sweep_group(bd, out);
        if (stop != NULL && stop(arg))
            return false;
    }
    sweeping_large = false;
    return true;
}
