/*
 * sm/Storage.c -- the storage manager between collections: generations,
 * the nursery, the allocation slow paths (new nursery block, large
 * objects, pinned byte arrays), eras, and the object constructors that are
 * not inline.  Relies on the block allocator (BlockAlloc.h) and starts a
 * collection (GC.h) when the nursery is exhausted.
 * See docs/design/storage.md and docs/design/eras.md.
 */
#include "Storage.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "Capability.h"
#include "ClosureSize.h"
#include "EraRuns.h"
#include "GC.h"
#include "GCThread.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "Policy.h"
#include "os/Ticker.h"
#include "strata/Alloc.h"

Generation *storage_gens = NULL;
unsigned storage_n_gens = 0;
uint64_t storage_current_era = 1;
static uint64_t max_era_seen = 1;
StorageConfig storage_config;
HeapOverflowHandler storage_heap_overflow_handler = NULL;
StgWord storage_large_alloc_bytes = 0;
void (*storage_attention_handler)(void) = NULL;

_Thread_local StgRegs strata_regs STRATA_TLS_MODEL;

/* Address space reserved for the heap: megablocks come from one range so
 * that heap_alloced is a subtraction and a compare. */
#define HEAP_RESERVATION_BYTES ((StgWord)1 << 40)
#define HEAP_RESERVATION_MIN_BYTES ((StgWord)1 << 28)   /* 256 MiB */

/* Note [Eras live in block descriptors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC records an object's era in a header word of every closure, which
 * needs a profiling build.  strata records it once per block, or once per
 * run of a block that holds several eras (Note [Blocks of several eras] in
 * EraRuns.h): every object has the era of its block or run
 * (.inv.block-era).  Three places keep that true:
 *
 *  - a nursery block takes storage_current_era when allocation into it
 *    starts (nursery_next_block), and a pinned block when it is opened;
 *  - changing the era starts a run of the new era at hp in the current
 *    nursery block (alloc_blocks_take_current_era; a new block when there
 *    is no room for the run's two words) and retires the pinned block;
 *  - the collector copies each object into a to-space block of the same
 *    generation *and era* -- the era's own block, or a run of it in the
 *    generation's shared block (Note [Where a copy goes] in Evac.c) -- and
 *    large objects and pinned blocks keep their descriptor, hence their
 *    era, when relinked.
 *
 * The cost is at most one partly filled block per era with a block's
 * worth of live data per generation, and two words per run otherwise,
 * measured in docs/design/eras.md; the census reads the era off the
 * descriptor or the runs. */

/* Note [The allocation limit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata_regs.hp_lim is the end of the current nursery block, so the
 * inline allocator does one compare.  Anything that needs the mutator to
 * stop at a safe point (the profiling timer, the heap debugger) sets
 * hp_lim to NULL: the next allocation fails the compare, enters
 * strata_alloc_slow, which restores the limit and calls
 * storage_attention_handler.  Retiring a block sets hp_lim = hp, which
 * also sends the next allocation here without losing where the block
 * ended. */

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

static void generation_init(Generation *g, unsigned no, unsigned n_gens)
{
    memset(g, 0, sizeof *g);
    g->no = (uint16_t)no;
    g->promote_to = (uint16_t)(no + 1 < n_gens ? no + 1 : no);
    /* GHC's -O default: 1 MiB before the first collection of an old gen. */
    g->max_blocks = (1u << 20) / BLOCK_SIZE;
}

static BlockDesc *nursery_block_new(void)
{
    BlockDesc *bd = block_alloc_group(1);
    if (bd == NULL)
        return NULL;
    bd->gen = &storage_gens[0];
    bd->gen_no = 0;
    bd->dest_no = 0;
    bd->flags = BF_NURSERY;
    return bd;
}

bool storage_init(const StorageConfig *config)
{
    storage_config = *config;
    /* A smaller reservation when the address space is limited (ulimit -v,
     * valgrind): halve down to the minimum before giving up. */
    StgWord reserve = HEAP_RESERVATION_BYTES;
    int err;
    while ((err = mblock_init(reserve)) != 0 && reserve / 2 >= HEAP_RESERVATION_MIN_BYTES)
        reserve /= 2;
    if (err != 0) {
        rts_error("storage: cannot reserve address space for the heap (tried %lu down to %lu "
                  "bytes, errno=%d); is the address space limited (ulimit -v)?",
                  (unsigned long)HEAP_RESERVATION_BYTES, (unsigned long)reserve, err);
        return false;
    }
    if (storage_config.max_heap_bytes > reserve)
        rts_error("storage: warning: the heap can grow to %lu bytes only (address space "
                  "reserved), less than -M%lu", (unsigned long)reserve,
                  (unsigned long)storage_config.max_heap_bytes);
    block_alloc_init();

    storage_n_gens = storage_config.generations;
    storage_gens = calloc(storage_n_gens, sizeof(Generation));
    if (storage_gens == NULL) {
        rts_error("storage: out of C heap allocating %u generations", storage_n_gens);
        return false;
    }
    for (unsigned g = 0; g < storage_n_gens; g++)
        generation_init(&storage_gens[g], g, storage_n_gens);

    storage_current_era = 1;
    max_era_seen = 1;
    storage_large_alloc_bytes = 0;
    unsigned n_caps = storage_config.capabilities > 0 ? storage_config.capabilities : 1;
    if (!capabilities_init(n_caps, storage_config.nursery_bytes, storage_n_gens))
        return false;
    unsigned n_gc = storage_config.gc_threads == 0 || storage_config.gc_threads > n_caps
                        ? n_caps : storage_config.gc_threads;
    if (!gc_threads_init(n_gc, storage_n_gens))
        return false;
    storage_reset_nursery();
    return true;
}

bool storage_nursery_create(Capability *cap, StgWord n_blocks)
{
    BlockDesc **tail = &cap->nursery.blocks;
    for (StgWord i = 0; i < n_blocks; i++) {
        BlockDesc *bd = nursery_block_new();
        if (bd == NULL) {
            rts_error("storage: cannot allocate the nursery of capability %u (-A%lu bytes)",
                      cap->no, (unsigned long)storage_config.nursery_bytes);
            return false;
        }
        *tail = bd;
        tail = &bd->link;
    }
    cap->nursery.n_blocks = n_blocks;
    return true;
}

void storage_exit(void)
{
    /* All memory goes back with the reservation. */
    gc_threads_exit();
    mut_list_exit();
    free(storage_gens);
    storage_gens = NULL;
    storage_n_gens = 0;
    capabilities_exit();
    mblock_exit();
}

/* ----------------------------------------------------------------------
 * The nursery
 * ---------------------------------------------------------------------- */

static void nursery_enter_block(Capability *cap, BlockDesc *bd)
{
    cap->nursery.current = bd;
    bd->free = bd->start;
    bd->era = storage_current_era;
    bd->n_era_runs = 0;
    cap->regs->hp = bd->start;
    __atomic_store_n(&cap->regs->hp_lim, bd->start + BLOCK_SIZE_W, __ATOMIC_RELAXED);
}

void storage_reset_nursery(void)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link) {
            bd->free = bd->start;
            bd->n_era_runs = 0;
        }
        nursery_enter_block(cap, cap->nursery.blocks);
    }
}

void storage_sync_nursery_of(Capability *cap)
{
    if (cap->nursery.current != NULL)
        cap->nursery.current->free = cap->regs->hp;
}

void storage_sync_nursery(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        storage_sync_nursery_of(&capabilities[i]);
}

StgWord storage_nursery_allocated_bytes_of(Capability *cap)
{
    StgWord words = 0;
    storage_sync_nursery_of(cap);
    for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link) {
        words += (StgWord)(bd->free - bd->start);
        if (bd == cap->nursery.current)
            break;
    }
    return words * WORD_SIZE;
}

StgWord storage_nursery_allocated_bytes(void)
{
    StgWord bytes = 0;
    for (unsigned i = 0; i < capabilities_n; i++)
        bytes += storage_nursery_allocated_bytes_of(&capabilities[i]);
    return bytes;
}

StgWord storage_nursery_blocks(void)
{
    StgWord n = 0;
    for (unsigned i = 0; i < capabilities_n; i++)
        n += capabilities[i].nursery.n_blocks;
    return n;
}

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
    nursery_enter_block(cap, cur->link);
    return true;
}

/* Makes cap's next object take the current era: a run of it in the
 * current nursery block, and a new pinned block. */
static void alloc_blocks_take_current_era(Capability *cap)
{
    StgRegs *regs = cap->regs;
    BlockDesc *cur = cap->nursery.current;
    if (cur != NULL) {
        /* The nursery block goes on in a run of the new era (Note [Blocks
         * of several eras] in EraRuns.h): an era change costs a word,
         * and restamps a block with nothing in it yet -- also the fresh
         * block a GC has just reset, which the slow path that ran the GC
         * allocates from without another look at the era.  Without room
         * for a run, the next allocation takes the slow path, which
         * starts a new block. */
        cur->free = regs->hp;
        StgPtr lim = __atomic_load_n(&regs->hp_lim, __ATOMIC_RELAXED);
        if (!block_start_era_run(cur, storage_current_era))
            __atomic_store_n(&regs->hp_lim, regs->hp, __ATOMIC_RELAXED);
        else if (lim != NULL)   /* keep an attention request */
            __atomic_store_n(&regs->hp_lim, block_alloc_limit(cur), __ATOMIC_RELAXED);
    }
    storage_retire_pinned_block_of(cap);
}

/* Every capability's allocation blocks take the new era before any of
 * them allocates again: the world is stopped for the change (nested in a
 * GC's sync when the era advances after a GC).  Before the capabilities
 * exist (start-up) there is nothing to retire. */
static void set_era_world_stopped(uint64_t era)
{
    storage_current_era = era;
    if (era > max_era_seen)
        max_era_seen = era;
    for (unsigned i = 0; i < capabilities_n; i++)
        alloc_blocks_take_current_era(&capabilities[i]);
}

/* Sets the era (advance: adds value to it, unless that would pass
 * UINT64_MAX) with the world stopped, so that changes from several
 * threads all count and the era never goes back; before any capability is
 * held (start-up) there is no world to stop. */
static bool change_era(bool advance, uint64_t value, uint64_t *era_out)
{
    bool stop = capability_mine() != NULL;
    ASSERT(stop || capabilities_held() == 0);
    if (stop)
        capability_stop_world_own();
    bool ok = !advance || value <= UINT64_MAX - storage_current_era;
    uint64_t era = !ok ? storage_current_era : advance ? storage_current_era + value : value;
    if (era != storage_current_era)
        set_era_world_stopped(era);
    if (era_out != NULL)
        *era_out = storage_current_era;
    if (stop)
        capability_resume_world();
    return ok;
}

bool storage_advance_era(uint64_t by, uint64_t *era_out)
{
    return change_era(true, by, era_out);
}

void storage_set_era(uint64_t era)
{
    if (era != storage_current_era)   /* setting it again stops nothing */
        (void)change_era(false, era, NULL);
}

uint64_t storage_max_era(void)
{
    return max_era_seen;
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

/* Puts back the limit of the calling thread's nursery block after an
 * interrupt cleared it.  The interrupt may have overwritten a retirement
 * (hp_lim = hp after an era change): a block of another era stays
 * retired, so that no object lands in a block of the wrong era. */
static void restore_hp_lim(Capability *cap)
{
    BlockDesc *cur = cap->nursery.current;
    STRATA_SET_HP_LIM(block_last_era(cur) == storage_current_era ? block_alloc_limit(cur)
                                                                 : strata_regs.hp);
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

static StgPtr alloc_large(StgWord n_words)
{
    return alloc_large_group(n_words, true);
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
    bd->gen_no = 0;
    bd->dest_no = 0;
    bd->flags = BF_LARGE;
    bd->era = storage_current_era;
    bd->free = bd->start + n_words;
    dbl_link_onto(bd, &g0->large_objects);
    g0->n_large_blocks += bd->blocks;
    g0->n_large_words += n_words;
    storage_large_alloc_bytes += bytes;
    sm_unlock();
    capability_mine()->large_bytes_total += bytes;
    return bd->start;
}

/* Serves an attention request (the ticker's, the debugger's) if one is
 * pending; every allocation slow path calls it, since programs that only
 * allocate large or pinned objects never fail the nursery's limit check.
 * Returns true if it served one. */
static bool serve_attention(void)
{
    bool limit_cleared = STRATA_HP_LIM() == NULL;
    /* The ticker's flag is checked too, in case our own write of hp_lim
     * overwrote its NULL (Note [The ticker] in support/os/Ticker.c). */
    if (!limit_cleared && !ticker_attention_pending() &&
        !atomic_load_explicit(&xattention_requested, memory_order_relaxed))
        return false;
    atomic_store(&xattention_requested, false);
    if (limit_cleared) {
        /* The request may have overwritten a retirement (hp_lim = hp
         * after an era change): a block of another era stays retired,
         * so that no object lands in a block of the wrong era. */
        restore_hp_lim(capability_mine());
    }
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
        return alloc_large(n_words);

    if (serve_attention() &&
        (StgWord)(strata_regs.hp + n_words) <= (StgWord)STRATA_HP_LIM()) {
        StgPtr p = strata_regs.hp;
        strata_regs.hp = p + n_words;
        return p;
    }

    /* Another capability's sync (a GC, an era change) may run while this
     * one waits to collect; then look again. */
    while (!nursery_next_block(cap))
        gc_collect(false);   /* resets the nursery */
    /* Not hp_lim: another thread may have stored NULL there meanwhile. */
    StgPtr p = strata_regs.hp;
    ASSERT_INTERNAL(p + n_words <= block_alloc_limit(cap->nursery.current));
    /* The object takes the current era (.inv.block-era), GC or no GC. */
    ASSERT_INTERNAL(block_last_era(cap->nursery.current) == storage_current_era);
    strata_regs.hp = p + n_words;
    return p;
}

/* ----------------------------------------------------------------------
 * Pinned byte arrays
 * ---------------------------------------------------------------------- */

void storage_retire_pinned_block_of(Capability *cap)
{
    BlockDesc *bd = cap->pinned_block;
    if (bd == NULL)
        return;
    cap->pinned_block = NULL;
    Generation *g0 = &storage_gens[0];
    sm_lock();
    dbl_link_onto(bd, &g0->large_objects);
    g0->n_large_blocks += bd->blocks;
    g0->n_large_words += (StgWord)(bd->free - bd->start);
    sm_unlock();
}

void storage_retire_pinned_blocks(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        storage_retire_pinned_block_of(&capabilities[i]);
}

/* Pinned objects smaller than a large object share pinned blocks (one
 * being filled per capability); a pinned block stays allocated while any
 * object in it is alive, which is the fragmentation strata-debug and the
 * profiler make visible. */
static StgPtr alloc_pinned(StgWord n_words)
{
    if (n_words >= STRATA_LARGE_OBJECT_WORDS)
        return alloc_large(n_words);   /* large objects never move anyway */
    Capability *cap = capability_mine();
    if (STRATA_UNLIKELY(cap == NULL))
        no_capability(n_words);
    capability_safepoint();
    BlockDesc *pb = cap->pinned_block;
    if (pb != NULL && pb->free + n_words > pb->start + BLOCK_SIZE_W)
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
        bd->gen_no = 0;
        bd->dest_no = 0;
        bd->flags = BF_PINNED;
        bd->era = storage_current_era;
        storage_large_alloc_bytes += BLOCK_SIZE;
        sm_unlock();
        cap->large_bytes_total += BLOCK_SIZE;
        cap->pinned_block = bd;
    }
    StgPtr p = cap->pinned_block->free;
    cap->pinned_block->free += n_words;
    return p;
}

/* ----------------------------------------------------------------------
 * Object constructors
 * ---------------------------------------------------------------------- */

/* The runtime decides what a heap overflow ends in (exit 251 after
 * shutdown); sm/ never exits the process itself. */
_Noreturn static void heap_overflow_handle(void)
{
    if (storage_heap_overflow_handler != NULL)
        storage_heap_overflow_handler();
    abort();
}

/* Note [Object sizes are checked]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A size that came from a negative int reaches us as a number near 2^64,
 * and rounding it up to words or adding a header wraps it to a small one:
 * the object would then claim more bytes than it has.  So every
 * constructor that takes a size compares it with the largest object the
 * heap's reservation could hold before any arithmetic, and reports an
 * impossible request as a heap overflow naming the size asked for (exit
 * 251, as a request the OS refuses).  Below that bound, none of the size
 * computations here can wrap. */
StgWord storage_max_object_words(void)
{
    return (StgWord)(mblock_heap_end - mblock_heap_base) / WORD_SIZE;
}

void storage_alloc_too_large(const char *what, StgWord n, const char *unit)
{
    rts_error("heap overflow: %s of %lu %s was asked for, more than the heap can ever hold "
              "(the largest object is %lu bytes)",
              what, (unsigned long)n, unit,
              (unsigned long)(storage_max_object_words() * WORD_SIZE));
    heap_overflow_handle();
}

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
    return init_arr_words(alloc_pinned(arr_words_size("a pinned byte array", n_bytes)), n_bytes);
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

/* ----------------------------------------------------------------------
 * Heap size and limits
 * ---------------------------------------------------------------------- */

StgWord storage_heap_blocks(void)
{
    StgWord n = 0;
    for (unsigned g = 0; g < storage_n_gens; g++)
        n += storage_gens[g].n_blocks + storage_gens[g].n_large_blocks;
    for (unsigned i = 0; i < capabilities_n; i++) {
        n += capabilities[i].nursery.n_blocks;
        if (capabilities[i].pinned_block != NULL)
            n += capabilities[i].pinned_block->blocks;
    }
    return n;
}

void storage_heap_overflow(StgWord needed_bytes)
{
    if (storage_config.max_heap_bytes == 0)
        rts_error("heap overflow: the OS refused memory (needed %lu more bytes; heap is %lu bytes)",
                  (unsigned long)needed_bytes,
                  (unsigned long)(storage_heap_blocks() * BLOCK_SIZE));
    else
        rts_error("heap overflow: the heap needs %lu bytes but the maximum heap size is %lu "
                  "bytes (use `+RTS -M<size>' to increase it)",
                  (unsigned long)needed_bytes, (unsigned long)storage_config.max_heap_bytes);
    heap_overflow_handle();
}

/* ----------------------------------------------------------------------
 * Doubly linked group lists
 * ---------------------------------------------------------------------- */

void dbl_link_onto(BlockDesc *bd, BlockDesc **list)
{
    bd->link = *list;
    bd->u.back = NULL;
    if (*list != NULL)
        (*list)->u.back = bd;
    *list = bd;
}

void dbl_link_remove(BlockDesc *bd, BlockDesc **list)
{
    if (bd->u.back != NULL)
        bd->u.back->link = bd->link;
    else
        *list = bd->link;
    if (bd->link != NULL)
        bd->link->u.back = bd->u.back;
    bd->link = NULL;
    bd->u.back = NULL;
}
