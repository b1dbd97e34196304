/*
 * sm/alloc/Storage.c -- the storage manager's roof: starting and stopping
 * it (the floors in order, then the collector's threads), and allocation
 * between collections, the part that may call the collector: the slow
 * path (the next nursery block, or a GC when the nursery is used up),
 * large objects, pinned byte arrays, safe points and attention requests,
 * and the object constructors that are not inline (strata/Alloc.h).
 * Relies on the floors below (Heap.h, Nursery.h, Era.h, Capability.h) and
 * the collector (GC.h, GCThread.h, MutList.h, Policy.h).
 * See docs/design/storage.md and docs/design/eras.md.
 */
#include "Storage.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "AllocSample.h"
#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "EraRuns.h"
#include "GC.h"
#include "GCThread.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "NonMoving.h"
#include "Policy.h"
#include "os/Ticker.h"
#include "strata/Alloc.h"

void (*storage_attention_handler)(void) = NULL;

/* Note [The allocation limit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata_regs.hp_lim is the end of the current nursery block, so the
 * inline allocator does one compare.  Anything that needs the mutator to
 * stop at a safe point (the profiling timer, the heap debugger) sets a
 * request flag and hp_lim to NULL: the next allocation fails the compare,
 * enters strata_alloc_slow, which restores the limit and, for the flag,
 * calls storage_attention_handler.  An era change and a capability just
 * taken clear the limit with no flag: the slow path only restores it, in
 * the current era.  Retiring a block sets hp_lim = hp, which also sends
 * the next allocation here without losing where the block ended. */

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

bool storage_init(const StorageConfig *config)
{
    if (!heap_init(config))
        return false;
    if (storage_config.prefault)
        policy_prefault_start();
    storage_era_init();
    unsigned n_caps = storage_config.capabilities > 0 ? storage_config.capabilities : 1;
    if (!capabilities_init(n_caps, storage_n_gens))
        return false;
    /* A tick reaches a program that allocates slowly at its next
     * allocation, not when its nursery block fills (Note [The ticker]). */
    ticker_set_interrupt(capabilities_interrupt_all);
    StgWord n_blocks = storage_config.nursery_bytes / BLOCK_SIZE;
    if (n_blocks < 2)
        n_blocks = 2;
    /* Survivors stay in generation 0 until tenure says otherwise; a
     * storage_init after a storage_exit must not keep the last run's. */
    storage_nursery_set_dest(0);
    for (unsigned i = 0; i < n_caps; i++)
        if (!storage_nursery_create(&capabilities[i], n_blocks))
            return false;
    unsigned n_gc = storage_config.gc_threads == 0 || storage_config.gc_threads > n_caps
                        ? n_caps : storage_config.gc_threads;
    if (!gc_threads_init(n_gc, storage_n_gens))
        return false;
    if (storage_config.nonmoving && !nonmoving_init(n_gc))
        return false;
    storage_reset_nursery();
    return true;
}

void storage_stop_background_gc(void)
{
    if (storage_config.nonmoving)
        nonmoving_thread_stop();
}

void storage_finish_sweep(void)
{
    if (storage_config.nonmoving)
        nonmoving_finish_sweep();
}

void storage_exit(void)
{
    /* All memory goes back with the reservation (heap_exit). */
    if (storage_config.nonmoving)
        nonmoving_exit();
    gc_threads_exit();
    mut_list_exit();
    capabilities_exit();
    heap_exit();
}

/* ----------------------------------------------------------------------
 * Allocation slow paths
 * ---------------------------------------------------------------------- */

/* Large objects count against the nursery size too (GHC's -AL = -A). */
static void maybe_collect_for_large(void)
{
    sm_lock();
    bool wanted = policy_large_alloc_wants_gc();
    sm_unlock();
    if (wanted)
        gc_collect(false);
}

static bool serve_attention(void);

/* Moves cap's allocation to its next nursery block, or returns false when
 * the nursery is exhausted. */
static bool nursery_next_block(Capability *cap)
{
    BlockDesc *cur = cap->nursery.current;
    cur->free = cap->regs->hp;
    if (cur->free == cur->start) {
        /* Nothing was allocated here: just restamp the era. */
        nursery_enter_block(cap, cur);
        return true;
    }
    if (cur->link == NULL)
        return false;
    cap->nursery.left_words += (StgWord)(cur->free - cur->start);   /* Note [Counting the nursery] */
    nursery_enter_block(cap, cur->link);
    return true;
}


/* Puts back the limit of the calling thread's nursery block after an
 * interrupt cleared it, in the current era: an era change clears it too,
 * and the block goes on in a run of the new era (Note [Changing the era
 * without stopping the world] in sm/heap/Era.c).  A block retired for
 * want of room for a run stays retired. */
static void restore_hp_lim(Capability *cap)
{
    (void)storage_era_catch_up(cap);
}

/* Set by storage_request_attention; like the ticker's flag, it survives a
 * lost hp_lim = NULL store (Note [The ticker] in support/os/Ticker.c). */
static atomic_bool xattention_requested;

void storage_request_attention(void)
{
    atomic_store(&xattention_requested, true);
    capabilities_interrupt_all();
}

static StgPtr alloc_large_group(StgWord n_words, bool may_collect);
_Noreturn static void no_capability(StgWord n_words);

/* caller: the return address of the entry point that asked (the code
 * whose stack a sample of the object starts at). */
static StgPtr alloc_large(StgWord n_words, const void *caller)
{
    StgPtr p = alloc_large_group(n_words, true);
    alloc_sample_outside(capability_mine(), p, n_words, Bdescr(p)->era, ALLOC_SAMPLE_LARGE,
                         caller);
    return p;
}

StgPtr storage_alloc_large_no_gc(StgWord n_words)
{
    if (STRATA_UNLIKELY(capability_mine() == NULL))
        no_capability(n_words);
    return alloc_large_group(n_words, false);
}

/* A large object; with may_collect, first a GC if the large allocation
 * since the last one reached -A, or the heap limit would be passed. */
static StgPtr alloc_large_group(StgWord n_words, bool may_collect)
{
    if (n_words > storage_max_object_words())
        storage_alloc_too_large("an object", n_words, "words");
    if (may_collect) {
        serve_attention();
        maybe_collect_for_large();
    }
    StgWord bytes = n_words * WORD_SIZE;
    StgWord n_blocks = (bytes + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (n_blocks > BLOCKS_PER_MBLOCK) {
        /* A megablock group: whole megablocks, see MBLOCK_GROUP_BLOCKS. */
        StgWord mbs = 1;
        while (MBLOCK_GROUP_BLOCKS(mbs) < n_blocks)
            mbs++;
        n_blocks = MBLOCK_GROUP_BLOCKS(mbs);
    }
    if (may_collect && policy_heap_would_pass_limit(n_blocks)) {
        gc_collect_forced(true);
        if (policy_heap_would_pass_limit(n_blocks))
            storage_heap_overflow((storage_heap_blocks() + n_blocks) * BLOCK_SIZE);
    }
    sm_lock();
    BlockDesc *bd = block_alloc_group(n_blocks);
    if (bd == NULL) {
        sm_unlock();
        storage_heap_overflow(bytes);
    }
    Generation *g0 = &storage_gens[0];
    bd->gen = g0;
    block_set_gen_no(bd, 0);
    bd->dest_no = 0;
    bd->flags = BF_LARGE;
    bd->era = storage_era_now();
    bd->free = bd->start + n_words;
    dbl_link_onto(bd, &g0->large_objects);
    g0->n_large_blocks += bd->blocks;
    g0->n_large_words += n_words;
    storage_large_alloc_bytes += bytes;
    sm_unlock();
    capability_mine()->large_bytes_total += bytes;
    return bd->start;
}

/* Restores a cleared limit (an interrupt: an era change, a request, a
 * capability just taken) and serves an attention request (the ticker's,
 * the debugger's) if one is pending; every allocation slow path calls it,
 * since programs that only allocate large or pinned objects never fail
 * the nursery's limit check.  The handler runs only for a request: an
 * era change costs the catch-up alone.  Returns true if it did either. */
static bool serve_attention(void)
{
    /* Acquire: a request's flag is stored before its NULL. */
    bool limit_cleared = __atomic_load_n(&strata_regs.hp_lim, __ATOMIC_ACQUIRE) == NULL;
    /* The non-moving mark thread has marked all it could: the sync pause
     * is this thread's to run (Note [The non-moving collector] in
     * sm/NonMoving.c).  It moves nothing. */
    if (limit_cleared && storage_config.nonmoving && nonmoving_sync_wanted())
        nonmoving_sync();
    if (limit_cleared) {
        /* The interrupt may have overwritten a retirement (hp_lim = hp
         * after an era change): a block of another era stays retired,
         * so that no object lands in a block of the wrong era. */
        restore_hp_lim(capability_mine());
    }
    /* The ticker's flag is checked too, in case our own write of hp_lim
     * overwrote its NULL (Note [The ticker] in support/os/Ticker.c). */
    bool requested = atomic_load_explicit(&xattention_requested, memory_order_relaxed);
    if (!requested && !ticker_attention_pending())
        return limit_cleared;
    if (requested)
        atomic_store(&xattention_requested, false);
    if (storage_attention_handler != NULL)
        storage_attention_handler();
    return true;
}

void storage_safepoint(void)
{
    Capability *cap = capability_mine();
    if (capability_safepoint())
        restore_hp_lim(cap);
    serve_attention();
}

_Noreturn static void no_capability(StgWord n_words)
{
    if (capabilities_n == 0)
        rts_error("heap allocation before hs_init or after hs_exit (words=%lu)",
                  (unsigned long)n_words);
    else
        rts_error("heap allocation from a thread that holds no capability (words=%lu); "
                  "call rts_lock() first, or rts_resume() after rts_suspend()",
                  (unsigned long)n_words);
    abort();
}

StgPtr strata_alloc_slow(StgWord n_words)
{
    Capability *cap = capability_mine();
    if (STRATA_UNLIKELY(cap == NULL))
        no_capability(n_words);
    if (capability_safepoint())
        restore_hp_lim(cap);
    if (n_words >= STRATA_LARGE_OBJECT_WORDS)
        return alloc_large(n_words, __builtin_return_address(0));

    /* Here for an interrupt (the limit restored) or a sample point: the
     * object fits below the block's own limit (Note [Sampling through the
     * allocation limit] in sm/heap/AllocLimit.h).  Not hp_lim: another
     * thread may have stored NULL there meanwhile. */
    serve_attention();
    StgPtr p = strata_regs.hp;
    if (p + n_words > cap->nursery.lim) {
        /* Another capability's sync (a GC, an era change) may run while
         * this one waits to collect; then look again. */
        while (!nursery_next_block(cap))
            gc_collect(false);   /* resets the nursery */
        /* The object takes the current era (.inv.block-era), GC or no GC:
         * a fresh block has room for the run of an era that moved
         * meanwhile. */
        uint64_t era = storage_era_catch_up(cap);
        p = strata_regs.hp;
        ASSERT_INTERNAL(block_last_era(cap->nursery.current) == era);
        (void)era;
    }
    ASSERT_INTERNAL(p + n_words <= block_alloc_limit(cap->nursery.current));
    strata_regs.hp = p + n_words;
    if (STRATA_UNLIKELY(cap->sample_at_words != STGWORD_MAX))   /* sampling */
        alloc_sample_nursery(cap, p, n_words, __builtin_return_address(0));
    return p;
}

/* ----------------------------------------------------------------------
 * Pinned byte arrays
 * ---------------------------------------------------------------------- */

/* Pinned objects smaller than a large object share pinned blocks (one
 * being filled per capability); a pinned block stays allocated while any
 * object in it is alive, which is the fragmentation strata-debug and the
 * profiler make visible. */
static StgPtr alloc_pinned(StgWord n_words, const void *caller)
{
    if (n_words >= STRATA_LARGE_OBJECT_WORDS)
        return alloc_large(n_words, caller);   /* large objects never move anyway */
    Capability *cap = capability_mine();
    if (STRATA_UNLIKELY(cap == NULL))
        no_capability(n_words);
    /* As in strata_alloc_slow: a sync this thread parked for cleared its
     * limit; the next small allocation should not pay a slow path for it. */
    if (capability_safepoint())
        restore_hp_lim(cap);
    BlockDesc *pb = cap->pinned_block;
    /* A pinned block holds one era: an era change retires it here, at the
     * next pinned allocation (Note [Changing the era without stopping the
     * world] in sm/heap/Era.c). */
    if (pb != NULL &&
        (pb->free + n_words > pb->start + BLOCK_SIZE_W || pb->era != storage_era_now()))
        storage_retire_pinned_block_of(cap);
    if (cap->pinned_block == NULL) {
        serve_attention();
        maybe_collect_for_large();
        /* What ran there (a finalizer, a control command) may have
         * allocated pinned bytes itself and opened a block: use it if the
         * object fits, never drop it. */
        cap = capability_mine();
        pb = cap->pinned_block;
        if (pb != NULL && pb->free + n_words > pb->start + BLOCK_SIZE_W)
            storage_retire_pinned_block_of(cap);
    }
    if (cap->pinned_block == NULL) {
        sm_lock();
        BlockDesc *bd = block_alloc_group(1);
        if (bd == NULL) {
            sm_unlock();
            storage_heap_overflow(BLOCK_SIZE);
        }
        bd->gen = &storage_gens[0];
        block_set_gen_no(bd, 0);
        bd->dest_no = 0;
        bd->flags = BF_PINNED;
        bd->era = storage_era_now();
        storage_large_alloc_bytes += BLOCK_SIZE;
        sm_unlock();
        cap->large_bytes_total += BLOCK_SIZE;
        cap->pinned_block = bd;
    }
    StgPtr p = cap->pinned_block->free;
    cap->pinned_block->free += n_words;
    alloc_sample_outside(cap, p, n_words, cap->pinned_block->era, ALLOC_SAMPLE_PINNED, caller);
    return p;
}

/* ----------------------------------------------------------------------
 * Object constructors
 * ---------------------------------------------------------------------- */

static StgClosure *init_arr_words(StgPtr p, StgWord n_bytes)
{
    StgArrBytes *a = (StgArrBytes *)p;
    a->info = &stg_ARR_WORDS_info;
    a->bytes = n_bytes;
    memset(a->payload, 0, ROUND_UP_WORDS(n_bytes) * WORD_SIZE);
    return (StgClosure *)a;
}

/* Words of a byte array of n_bytes, or an overflow report. */
static StgWord arr_words_size(const char *what, StgWord n_bytes)
{
    if (n_bytes / WORD_SIZE > storage_max_object_words())
        storage_alloc_too_large(what, n_bytes, "bytes");
    return 2 + ROUND_UP_WORDS(n_bytes);
}

StgClosure *strata_alloc_bytes(StgWord n_bytes)
{
    return init_arr_words(strata_alloc_words(arr_words_size("a byte array", n_bytes)), n_bytes);
}

StgClosure *strata_alloc_pinned_bytes(StgWord n_bytes)
{
    return init_arr_words(alloc_pinned(arr_words_size("a pinned byte array", n_bytes),
                                       __builtin_return_address(0)),
                          n_bytes);
}

StgClosure *strata_alloc_mut_var(void)
{
    StgMutVar *m = (StgMutVar *)strata_alloc_words(2);
    m->info = &stg_MUT_VAR_CLEAN_info;
    m->var = NULL;
    return (StgClosure *)m;
}

StgClosure *strata_alloc_mut_array(StgWord n)
{
    if (n > storage_max_object_words())
        storage_alloc_too_large("a mutable array", n, "elements");
    StgWord card_words = ROUND_UP_WORDS(mut_arr_ptrs_cards(n));
    StgMutArrPtrs *a = (StgMutArrPtrs *)strata_alloc_words(3 + n + card_words);
    a->info = &stg_MUT_ARR_PTRS_CLEAN_info;
    a->ptrs = n;
    a->size = n + card_words;
    memset(a->payload, 0, (n + card_words) * WORD_SIZE);
    return (StgClosure *)a;
}

