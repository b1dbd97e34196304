/*
 * sm/heap/MutList.c -- remembered sets: per-generation mutable lists kept in
 * chains of blocks, and the list of static closures that point into the
 * heap.  See .inv.remembered in MutList.h.
 */
#include "MutList.h"

#include <stdlib.h>

#include "BlockAlloc.h"
#include "Capability.h"
#include "GrowArray.h"
#include "MBlock.h"
#include "Messages.h"
#include "UpdRemSet.h"
#include "WordMapOrPanic.h"
#include "strata/Barrier.h"

uint8_t strata_nonmoving_marking = 0;

void barrier_set_logging(bool on)
{
    __atomic_store_n(&strata_nonmoving_marking, on ? 1 : 0, __ATOMIC_RELAXED);
}

StgClosure **static_roots = NULL;
StgWord static_roots_count = 0;
static size_t static_roots_capacity = 0;   /* GROW_ARRAY_RESERVE's capacity */
/* The closures on static_roots, so that each is a root at most once: the
 * collector cleans a static mutable variable like any other, and the next
 * write dirties it (and calls static_roots_add) again. */
static WordMap static_roots_set;

/* ----------------------------------------------------------------------
 * Mutable lists
 * ---------------------------------------------------------------------- */

/* Under the storage manager's lock: other capabilities may be allocating
 * blocks.  With the world stopped the lock is free, and taking it costs
 * nothing beside a block's 512 entries. */
BlockDesc *mut_list_new_block(void)
{
    sm_lock();
    BlockDesc *nb = block_alloc_group(1);
    sm_unlock();
    if (nb == NULL)
        storage_heap_overflow(BLOCK_SIZE);
    block_set_gen_no(nb, BLOCK_GEN_NO_POINTERS);   /* Note [The young-group map] */
    return nb;
}

void mut_list_record(Generation *g, StgClosure *p)
{
    /* Only old objects are remembered, on their own generation's list
     * (.inv.remembered). */
    ASSERT_INTERNAL(g->no > 0 && heap_alloced(p) && Bdescr(p)->gen_no == g->no);
    mut_chain_append(&g->mut_list, p, mut_list_new_block);
}

/* The write barrier's record, on the calling thread's capability: each
 * capability has its own lists, so no two threads append to one block
 * (gathered into the generations' lists at the next sync). */
static void cap_mut_list_record(Capability *cap, Generation *g, StgClosure *p)
{
    mut_chain_append(&cap->mut_lists[g->no], p, mut_list_new_block);
}

void mut_list_gather(void)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        for (unsigned g = 0; g < storage_n_gens; g++) {
            BlockDesc *list = cap->mut_lists[g];
            if (list == NULL)
                continue;
            BlockDesc *tail = list;
            while (tail->link != NULL)
                tail = tail->link;
            tail->link = storage_gens[g].mut_list;
            storage_gens[g].mut_list = list;
            cap->mut_lists[g] = NULL;
        }
    }
}

void mut_list_free(BlockDesc *list)
{
    block_free_chain(list);
}

/* ----------------------------------------------------------------------
 * Static roots
 * ---------------------------------------------------------------------- */

void static_roots_add(StgClosure *p)
{
    bool found;
    (void)word_map_slot_or_panic(&static_roots_set, (uint64_t)(uintptr_t)p, &found);
    if (found)
        return;
    if (GROW_ARRAY_RESERVE_MIN(static_roots, static_roots_capacity, static_roots_count + 1,
                               64) != 0)
        rts_panic("out of C heap growing the static root list (entries=%lu)",
                  (unsigned long)static_roots_count);
    static_roots[static_roots_count++] = p;
}

void mut_list_exit(void)
{
    GROW_ARRAY_FREE(static_roots, static_roots_count, static_roots_capacity);
    word_map_free(&static_roots_set);
}

/* Records p, which the barrier has just made dirty: on its generation's
 * list if it is old, on the static roots if it is static; a young p goes
 * on generation 0's list only if young_too (Note [Dirty young objects]). */
static void remember(StgClosure *p, bool young_too)
{
    if (!heap_alloced(p)) {
        sm_lock();
        static_roots_add(p);
        sm_unlock();
        return;
    }
    BlockDesc *bd = Bdescr(p);
    if (bd->gen_no > 0 || young_too) {
        Capability *cap = capability_mine();
        if (cap == NULL)
            rts_panic("write barrier on a thread that holds no capability (closure=%p); "
                      "call rts_lock() first, or rts_resume() after rts_suspend()",
                      (void *)p);
        cap_mut_list_record(cap, &storage_gens[bd->gen_no], p);
    }
}

void mut_list_remember(StgClosure *p)
{
    remember(p, false);
}

/* Note [Dirty young objects]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A mutable variable or array is allocated CLEAN, and the barrier's first
 * write makes it DIRTY whatever its age; only an old one needs
 * remembering (.inv.remembered).  But a young DIRTY object that is then
 * promoted in place (Note [Promoting the nursery in place] in
 * sm/PromoteInPlace.h) becomes an old DIRTY object on no list, and the
 * barrier, which skips DIRTY objects, would never remember it.  So the
 * barrier also records a young object it dirties, on generation 0's list:
 * once per object per GC cycle, on the barrier's slow path.  Promotion in
 * place moves those entries to the old generation's list; a copying GC
 * frees them unread (its scavenge sets each copy's state itself).  A
 * thunk's update records nothing young: an indirection has no state. */
static void remember_dirtied(StgClosure *p)
{
    remember(p, true);
}

/* ----------------------------------------------------------------------
 * The public write barriers
 * ---------------------------------------------------------------------- */

/* A barriered access to something that is not what the call works on:
 * the barrier would record a non-mutable object, or the index check read
 * a length the object does not have. */
_Noreturn static void not_mutable(const char *fn, const char *want, const StgClosure *c)
{
    if (c == NULL)
        rts_panic("%s: the closure given is NULL, not %s", fn, want);
    rts_panic("%s: the closure given is not %s (closure=%p, type=%s, info table=%s)", fn,
              want, (const void *)c, strata_closure_type_name(c->info->type),
              c->info->name != NULL ? c->info->name : "(unnamed)");
}

/* Note [Checking the barrier's target]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The barriered calls check that they were given a mutable variable or
 * array, but on the common path that costs no more than the barrier's own
 * test: a dirty object (already remembered) is recognised by one compare
 * of its info pointer, a clean one by a second, and anything else is
 * reported.  (Testing the type up front and then the clean/dirty state
 * again cost mutarray more instructions: bench/optimisations.md, row
 * 76f8455.)  The dirty, in-range write
 * never gets here: it is inline in strata/Barrier.h (Note [Inline
 * barriers]), and these functions are its slow paths. */

/* True if c is a clean mutable variable, false if a dirty one; else reports
 * it (never returns). */
/* Note [Barriers between threads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Threads on different capabilities may write one mutable object at once
 * (different elements of an array, or the same variable).  The field is
 * stored with release and read (strata_mut_array_read,
 * STRATA_MUT_VAR_READ) with acquire, so that a thread which reads a
 * pointer another thread published also sees the object's fields as they
 * were initialised (GHC puts a write barrier before writeMutVar# for the
 * same reason); both are plain moves on x86-64.  The card byte and the
 * DIRTY info pointer are relaxed atomic stores, and the reads that decide
 * clean or dirty relaxed loads: no data race in the C sense.  Two threads
 * that both see CLEAN both remember the object; a duplicate on a mutable
 * list is harmless.  Anything beyond publication (two writers, a
 * read-modify-write) is the program's business, as an IORef's is. */
static inline const StgInfoTable *info_relaxed(const StgClosure *c)
{
    return __atomic_load_n(&c->info, __ATOMIC_RELAXED);
}

/* The info pointer is loaded once: another thread may turn CLEAN into
 * DIRTY between two loads, and the object would then look like neither. */
static inline bool mut_var_is_clean(const char *fn, const StgClosure *c)
{
    const StgInfoTable *info = c != NULL ? info_relaxed(c) : NULL;
    if (STRATA_LIKELY(info == &stg_MUT_VAR_DIRTY_info))
        return false;
    if (STRATA_LIKELY(info == &stg_MUT_VAR_CLEAN_info))
        return true;
    not_mutable(fn, "a mutable variable", c);
}

static inline bool mut_array_is_clean(const char *fn, const StgClosure *c)
{
    const StgInfoTable *info = c != NULL ? info_relaxed(c) : NULL;
    if (STRATA_LIKELY(info == &stg_MUT_ARR_PTRS_DIRTY_info))
        return false;
    if (STRATA_LIKELY(info == &stg_MUT_ARR_PTRS_CLEAN_info))
        return true;
    not_mutable(fn, "a mutable array", c);
}

void strata_mut_var_write_slow(StgClosure *mv, StgClosure *value)
{
    bool clean = mut_var_is_clean("strata_mut_var_write", mv);
    StgMutVar *m = (StgMutVar *)mv;
    if (barrier_logs_overwrites())   /* Note [The update remembered set] in UpdRemSet.c */
        upd_rem_set_log_overwrite(mv, __atomic_load_n(&m->var, __ATOMIC_RELAXED));
    __atomic_store_n(&m->var, value, __ATOMIC_RELEASE);
    if (clean) {
        __atomic_store_n(&m->info, &stg_MUT_VAR_DIRTY_info, __ATOMIC_RELAXED);
        remember_dirtied(mv);
    }
}

/* Note [Card marking]
 * ~~~~~~~~~~~~~~~~~~~
 * A mutable array has one card byte per 128 elements.  A write marks the
 * element's card; an old array goes on the mutable list the first time it
 * becomes dirty.  A minor GC then scans only the marked cards of the arrays
 * on the mutable lists and clears the cards whose elements no longer point
 * into a younger generation, so a large old array costs a minor GC in
 * proportion to what was written, not to its length. */
void strata_mut_array_write_slow(StgClosure *arr, StgWord i, StgClosure *value)
{
    bool clean = mut_array_is_clean("strata_mut_array_write", arr);
    StgMutArrPtrs *a = (StgMutArrPtrs *)arr;
    if (STRATA_UNLIKELY(i >= a->ptrs))
        rts_panic("strata_mut_array_write: index out of range (index=%lu, length=%lu)",
                  (unsigned long)i, (unsigned long)a->ptrs);
    if (barrier_logs_overwrites())
        upd_rem_set_log_overwrite(arr, __atomic_load_n(&a->payload[i], __ATOMIC_RELAXED));
    __atomic_store_n(&a->payload[i], value, __ATOMIC_RELEASE);
    __atomic_store_n(&mut_arr_ptrs_card_table(a)[i >> MUT_ARR_PTRS_CARD_BITS], (uint8_t)1,
                     __ATOMIC_RELAXED);
    if (clean) {
        __atomic_store_n(&a->info, &stg_MUT_ARR_PTRS_DIRTY_info, __ATOMIC_RELAXED);
        remember_dirtied(arr);
    }
}

StgClosure *strata_mut_array_read_slow(StgClosure *arr, StgWord i)
{
    /* Reached from the inline read when its bounds check fails, or by a
     * caller that links against this symbol: checks everything again. */
    StgMutArrPtrs *a = (StgMutArrPtrs *)arr;
    if (STRATA_UNLIKELY(arr == NULL || i >= a->ptrs)) {
        (void)mut_array_is_clean("strata_mut_array_read", arr);
        rts_panic("strata_mut_array_read: index out of range (index=%lu, length=%lu)",
                  (unsigned long)i, (unsigned long)a->ptrs);
    }
    return __atomic_load_n(&a->payload[i], __ATOMIC_ACQUIRE);
}
