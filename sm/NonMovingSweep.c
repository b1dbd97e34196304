/*
 * sm/NonMovingSweep.c -- the sweep of the non-moving generation: after a
 * cycle's mark, every slot whose mark is not the cycle's epoch is freed
 * (zeroed: Note [Segments] in Segment.h), every segment goes back to the
 * list its occupancy calls for, an empty one to the pool or the block
 * allocator, and every large or pinned group not marked is freed.  Runs
 * with the world stopped.  Relies on the segment
 * lists (NonMovingAlloc.c) and the marks (NonMovingMark.c).
 */
#include "NonMovingPrivate.h"

#include <string.h>

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "Messages.h"

/* The large and pinned groups of the generation at the end of the mark,
 * not yet swept (doubly linked as on the generation's list). */
static BlockDesc *sweep_large;

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
    ASSERT(sweep_large == NULL);
    sweep_large = oldest_gen->large_objects;
    oldest_gen->large_objects = NULL;
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

/* Keeps a marked group on the generation's list, frees another. */
static void sweep_group(BlockDesc *bd, NonMovingSwept *out)
{
    if (nonmoving_group_epoch(bd) == nonmoving_epoch) {
        dbl_link_onto(bd, &oldest_gen->large_objects);
        return;
    }
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
        if (sweep_large != NULL)
            sweep_large->u.back = NULL;
        bd->link = bd->u.back = NULL;
        sweep_group(bd, out);
        if (stop != NULL && stop(arg))
            return false;
    }
    return true;
}
