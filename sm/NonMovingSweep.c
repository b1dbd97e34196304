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
 * The next collection, the world stopped, rewrites the listed runs and
 * frees the listed groups first, before it allocates anything
 * (nonmoving_settle_swept).  ThreadSanitizer found both, in par-gc.sh's
 * programs under GHCRTS='--nonmoving-gc -N2 -qn2'. */
static Segment **eras_to_compact;   /* changed by the sweep, or the world stopped */
static size_t n_eras_to_compact, cap_eras_to_compact;
static BlockDesc *groups_to_free;   /* the same; linked by ->link */

/* Gives bd back to the block allocator, or beside the program lists it. */
static void free_group(BlockDesc *bd, bool concurrent)
{
    if (concurrent) {
        bd->link = groups_to_free;
        groups_to_free = bd;
        return;
    }
    sm_lock();
    block_free_group(bd);
    sm_unlock();
}

void nonmoving_settle_swept(void)
{
    for (size_t i = 0; i < n_eras_to_compact; i++)
        if (!segment_compact_eras(eras_to_compact[i]))
            rts_panic("out of C heap compacting a segment's era runs (segment=%p)",
                      (void *)eras_to_compact[i]);
    n_eras_to_compact = 0;
    for (BlockDesc *bd = groups_to_free, *next; bd != NULL; bd = next) {
        next = bd->link;
        free_group(bd, false);
    }
    groups_to_free = NULL;
}

void nonmoving_sweep_exit(void)
{
    free(eras_to_compact);
    eras_to_compact = NULL;
    n_eras_to_compact = cap_eras_to_compact = 0;
    groups_to_free = NULL;   /* their blocks go back with the reservation */
}

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

/* Frees the slots of seg that the mark left unmarked, and puts seg back;
 * beside the program (concurrent), what the program may read stays until
 * the next collection (Note [The sweep beside the program]). */
static void sweep_segment(Segment *seg, NonMovingSwept *out, bool concurrent)
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
    if (concurrent && used > 0 && seg->runs != NULL) {
        if (GROW_ARRAY_RESERVE_MIN(eras_to_compact, cap_eras_to_compact,
                                   n_eras_to_compact + 1, 64) != 0)
            rts_panic("out of C heap listing segments to compact (segments=%zu)",
                      n_eras_to_compact);
        eras_to_compact[n_eras_to_compact++] = seg;
    } else if (!segment_compact_eras(seg)) {
        rts_panic("out of C heap compacting a segment's era runs (segment=%p)", (void *)seg);
    }
    seg->list = SEGMENT_ON_NONE;
    if (used == 0) {
        BlockDesc *group = nonmoving_segment_release_locked(seg);
        if (group != NULL) {
            free_group(group, concurrent);
            out->segment_blocks += SEGMENT_BLOCKS;
        }
    } else
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

bool nonmoving_sweep_until(NonMovingSwept *out, bool (*stop)(void *), void *arg)
{
    while (nonmoving_sweep_list != NULL) {
        Segment *seg = nonmoving_sweep_list;
        nonmoving_sweep_list = seg->link;
        seg->link = NULL;
        sweep_segment(seg, out, stop != NULL);
        if (stop != NULL && stop(arg))
            return false;
    }
    while (sweep_large != NULL) {
        BlockDesc *bd = sweep_large;
        sweep_large = bd->link;
        sweep_group(bd, out, stop != NULL);
        if (stop != NULL && stop(arg))
            return false;
    }
    sweeping_large = false;
    return true;
}
