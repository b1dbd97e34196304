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
#include "EraRuns.h"
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
    bd->n_era_runs = 0;
    bd->flags = g->no <= gct.collected_gen ? BF_EVACUATED : 0;
    bd->u.scan = bd->start;
    bd->link = g->blocks;
    g->blocks = bd;
    g->n_blocks++;
    return bd;
}

/* Note [Where a copy goes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A copy goes to a block of its destination generation and its own era
 * (.inv.block-era).  An era gets a to-space block of its own once it has
 * copied ERA_OWN_BLOCK_WORDS into this generation in this GC (or kept
 * one from an earlier GC, for a generation not collected); until then its
 * objects go to the generation's shared block, in era runs (Note [Blocks
 * of several eras] in EraRuns.h).  So an era with much live data costs
 * what it always did, at most one partly filled block, plus the first
 * ERA_OWN_BLOCK_WORDS it copied into a shared block before it had one;
 * an era with a few objects costs a word of run record instead of a
 * block: 20,000 eras of one object each take about a megabyte, not 80.
 * The map slot of an era holds its own block or, tagged, its count of
 * words in shared blocks.  An eighth of a block is the threshold:
 * measured on era_stress (docs/design/eras.md), half a block left 13.7%
 * of the heap in shared blocks and runs at 1,000 eras, an eighth 5.2%,
 * and below the threshold an own block would be mostly empty. */
#define ERA_OWN_BLOCK_WORDS (BLOCK_SIZE_W / 8)

static inline bool slot_is_block(StgWord v)
{
    return v != 0 && (v & 1) == 0;
}

/* The shared block of g with room for n words of era, opened anew when
 * the current one has no room for them and their run. */
static BlockDesc *shared_dest(Generation *g, StgWord n_words, uint64_t era)
{
    BlockDesc *bd = g->gc_shared_dest;
    if (bd != NULL) {
        StgWord need = n_words + (block_last_era(bd) == era ? 0 : ERA_RUN_WORDS);
        if (bd->free + need <= block_alloc_limit(bd) && block_start_era_run(bd, era))
            return bd;
    }
    bd = new_todo_block(g, era);
    g->gc_shared_dest = bd;
    return bd;
}

/* The last-used block is not of this era or is full: find the era's own
 * block or the shared one (Note [Where a copy goes]). */
StgPtr gc_alloc_for_copy_slow(Generation *g, StgWord n_words, uint64_t era)
{
    ASSERT_INTERNAL(n_words > 0 && n_words <= BLOCK_SIZE_W);
    StgWord *slot = era_map_slot(&g->dests, era);
    BlockDesc *bd;
    if (slot_is_block(*slot)) {
        bd = (BlockDesc *)*slot;
        if (bd->free + n_words > block_alloc_limit(bd)) {
            bd = new_todo_block(g, era);
            *slot = (StgWord)bd;
        }
    } else {
        StgWord shared_words = *slot >> 1;
        if (shared_words + n_words >= ERA_OWN_BLOCK_WORDS) {
            bd = new_todo_block(g, era);
            *slot = (StgWord)bd;
        } else {
            *slot = ((shared_words + n_words) << 1) | 1;
            bd = shared_dest(g, n_words, era);
        }
    }
    g->gc_last_dest = bd;
    g->gc_last_era = era;
    g->gc_last_limit = block_alloc_limit(bd);
    StgPtr p = bd->free;
    bd->free += n_words;
    g->n_words += n_words;
    gc_note_copy_into(bd);
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
