/*
 * sm/Evac.c -- evacuation: moving one object out of from-space.
 *
 * evacuate(p) makes *p point at the to-space copy of the object it points
 * at, copying it on first visit and leaving a forwarding pointer behind
 * (Note [Forwarding pointers] in ClosureSize.h).  Indirections are
 * short-circuited here.  Large objects and pinned blocks are relinked,
 * never copied.  Copies go to a block of the object's destination
 * generation and *the same era* (Note [Eras live in block descriptors] in
 * Storage.c).  Nothing here recurses: Scav.c scans the copies.  The
 * common cases are inline in Evac.h (Note [The evacuate fast path]).
 */

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "Evac.h"
#include "GCPrivate.h"
#include "MBlock.h"
#include "Messages.h"

/* ----------------------------------------------------------------------
 * To-space allocation
 * ---------------------------------------------------------------------- */

static BlockDesc *new_todo_block(Generation *g, uint64_t era)
{
    BlockDesc *bd = block_alloc_group(1);
    if (bd == NULL)
        storage_heap_overflow(BLOCK_SIZE);
    bd->gen = g;
    bd->gen_no = g->no;
    bd->dest_no = g->promote_to;
    bd->era = era;
    bd->flags = g->no <= gct.collected_gen ? BF_EVACUATED : 0;
    bd->u.scan = bd->start;
    bd->link = g->blocks;
    g->blocks = bd;
    g->n_blocks++;
    return bd;
}

/* The current to-space block of (g, era) is not the last one used or is
 * full: find it in the era map, or start a new one. */
StgPtr gc_alloc_for_copy_slow(Generation *g, StgWord n_words, uint64_t era)
{
    ASSERT_INTERNAL(n_words > 0 && n_words <= BLOCK_SIZE_W);
    bool found;
    BlockDesc **slot = (BlockDesc **)word_map_slot(&g->dests, era, &found);
    BlockDesc *bd = *slot;   /* NULL when the era is new to this generation */
    if (bd == NULL || bd->free + n_words > bd->start + BLOCK_SIZE_W) {
        if (bd != NULL && bd->u.scan < bd->free)
            gc_push_scan_queue(bd);   /* full: scan it from the queue */
        bd = new_todo_block(g, era);
        *slot = bd;
    }
    g->gc_last_dest = bd;
    StgPtr p = bd->free;
    bd->free += n_words;
    g->n_words += n_words;
    return p;
}

/* ----------------------------------------------------------------------
 * Evacuation
 * ---------------------------------------------------------------------- */

static void evacuate_large(BlockDesc *bd)
{
    ASSERT_INTERNAL(!(bd->flags & BF_EVACUATED) && bd->gen_no <= gct.collected_gen);
    Generation *from = &storage_gens[bd->gen_no];
    dbl_link_remove(bd, &from->old_large);
    uint16_t to = bd->dest_no < gct.evac_gen ? gct.evac_gen : bd->dest_no;
    Generation *g = &storage_gens[to];
    bd->gen = g;
    bd->gen_no = to;
    bd->dest_no = g->promote_to;
    bd->flags |= BF_EVACUATED;
    bd->link = gct.todo_large;
    gct.todo_large = bd;
}

/* Large and pinned objects are relinked, indirections short-circuited
 * (their value goes back through evacuate, which knows every other rule),
 * and anything else is copied whole. */
void evacuate_slow(StgClosure **p)
{
    StgClosure *q = *p;
    BlockDesc *bd = Bdescr(q);
    if (bd->flags & (BF_LARGE | BF_PINNED)) {
        evacuate_large(bd);
        if (bd->gen_no < gct.evac_gen)
            gct.failed_to_evac = true;
        return;
    }
    const StgInfoTable *info = q->info;
    if (info->type == IND) {
        *p = ((StgInd *)q)->indirectee;
        evacuate(p);
        return;
    }
    StgWord size = closure_sizeW_info(q, info);
    if (STRATA_UNLIKELY(size == 0))
        rts_panic("evacuate: object of unknown closure type (object=%p, type=%u, block=%p)",
                  (void *)q, (unsigned)info->type, (void *)bd);
    evacuate_copy(p, q, bd, size);
}
