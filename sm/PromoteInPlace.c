/*
 * sm/PromoteInPlace.c -- promoting generation 0 without copying it.
 * See Note [Promoting the nursery in place] in PromoteInPlace.h.
 */
#include "PromoteInPlace.h"

#include "BlockAlloc.h"
#include "Capability.h"
#include "Heap.h"
#include "Messages.h"
#include "MutList.h"
#include "Nursery.h"
#include "Tenure.h"
#include "Weak.h"

static unsigned run_left = 0;    /* in-place GCs still due before a measurement */
static StgWord n_done = 0;

void promote_in_place_reset(void)
{
    run_left = 0;
    n_done = 0;
}

StgWord promote_in_place_count(void)
{
    return n_done;
}

bool promote_in_place_wanted(unsigned N)
{
    PromoteInPlaceMode mode = storage_config.promote_in_place;
    if (N != 0 || storage_n_gens < 2 || mode == PROMOTE_IN_PLACE_NEVER)
        return false;
    /* The non-moving generation holds segments only: its objects are
     * copied in (the flags refuse =always with it: RtsFlags.c). */
    if (storage_config.nonmoving && storage_gens[0].promote_to == storage_n_gens - 1)
        return false;
    /* Aged objects would be promoted a GC early, garbage and all. */
    if (storage_gens[0].blocks != NULL)
        return false;
    if (mode == PROMOTE_IN_PLACE_ALWAYS)
        return true;
    return run_left > 0 && !tenure_aging_enabled();
}

void promote_in_place_measure(unsigned N, bool direct, StgWord allocated_bytes,
                              StgWord copied_bytes)
{
    if (N != 0)
        return;
    run_left = 0;
    /* A GC that aged its survivors measured the aging, not the nursery;
     * one that found little allocated measured little: less than half of
     * one capability's nursery.  Not half of all of them: a GC comes when
     * one nursery is full, so with one busy thread and -N3 or more that
     * was never reached, and nothing was promoted in place (issue 47). */
    if (!direct || allocated_bytes < storage_nursery_largest_blocks() * BLOCK_SIZE / 2)
        return;
    if ((double)copied_bytes * 100 >= (double)allocated_bytes * PIP_SURVIVAL_PERCENT)
        run_left = PIP_RUN;
}

/* Single free blocks enough to replace every used nursery block, linked by
 * ->link; false (nothing held) if the heap has none to give. */
static bool take_fresh_blocks(StgWord n, BlockDesc **chain)
{
    BlockDesc *fresh = NULL;
    sm_lock();
    for (StgWord i = 0; i < n; i++) {
        BlockDesc *bd = block_alloc_group(1);
        if (bd == NULL) {
            block_free_chain(fresh);
            sm_unlock();
            return false;
        }
        bd->link = fresh;
        fresh = bd;
    }
    sm_unlock();
    *chain = fresh;
    return true;
}

/* Makes bd (a group's head) a group of generation to, scanned to its end
 * (.inv.scanned: no GC thread fills it). */
static void retag(BlockDesc *bd, Generation *to, uint16_t flags)
{
    bd->gen = to;
    block_set_gen_no(bd, to->no);
    bd->dest_no = to->promote_to;
    bd->flags = flags;
    bd->u.scan = bd->free;
}

static StgWord promote_nursery_blocks(Generation *to, BlockDesc **fresh)
{
    StgWord words = 0;
    for (unsigned i = 0; i < capabilities_n; i++) {
        BlockDesc *used = storage_nursery_swap_used(&capabilities[i], fresh);
        for (BlockDesc *bd = used, *next; bd != NULL; bd = next) {
            next = bd->link;
            retag(bd, to, 0);
            words += (StgWord)(bd->free - bd->start);
            bd->link = to->blocks;
            to->blocks = bd;
            to->n_blocks++;
        }
    }
    to->n_words += words;
    return words;
}

static StgWord promote_large_objects(Generation *from, Generation *to)
{
    for (BlockDesc *bd = from->large_objects, *next; bd != NULL; bd = next) {
        next = bd->link;
        retag(bd, to, (uint16_t)(bd->flags & (BF_LARGE | BF_PINNED)));
        dbl_link_onto(bd, &to->large_objects);
    }
    StgWord words = from->n_large_words;
    to->n_large_blocks += from->n_large_blocks;
    to->n_large_words += words;
    from->large_objects = NULL;
    from->n_large_blocks = from->n_large_words = 0;
    return words;
}

/* The objects the barrier dirtied while young are old and DIRTY now: they
 * go on the old generation's list (.inv.remembered). */
static void remember_dirtied_young(Generation *from, Generation *to)
{
    MUT_LIST_FOR_EACH(from->mut_list, c, { mut_list_record(to, c); });
    mut_list_free(from->mut_list);
    from->mut_list = NULL;
}

bool promote_in_place(StgWord *words)
{
    Generation *g0 = &storage_gens[0];
    Generation *to = &storage_gens[g0->promote_to];
    ASSERT(g0->blocks == NULL && to != g0);
    storage_sync_nursery();
    StgWord n_used = 0;
    for (unsigned i = 0; i < capabilities_n; i++)
        n_used += storage_nursery_used_blocks(&capabilities[i]);
    BlockDesc *fresh = NULL;
    if (!take_fresh_blocks(n_used, &fresh))
        return false;
    storage_retire_pinned_blocks();
    *words = promote_nursery_blocks(to, &fresh);
    ASSERT(fresh == NULL);
    *words += promote_large_objects(g0, to);
    remember_dirtied_young(g0, to);
    weak_promote_young(to->no);
    g0->collections++;
    if (run_left > 0)
        run_left--;
    n_done++;
    return true;
}
