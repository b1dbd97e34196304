/*
 * ghc/StubView.c -- what a pause of a GHC program reads first, on the
 * pausing thread: every block group holding objects, in the protocol's
 * kinds, the live threads and the stable pointers.  Relies on GHC's
 * public storage headers (generations, nurseries, block descriptors,
 * listAllBlocks), its RTS API (rts_listThreads, rts_listMiscRoots) and
 * DerivedConstants.h for two fields of a Capability.  See
 * docs/design/ghc-stub.md.
 */
#include "GhcStub.h"

#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"

StubView stub_view;


static void add_block(StgPtr start, StgPtr free, uint32_t n_blocks, uint16_t gen, uint8_t kind)
{
    StubView *v = &stub_view;
    if (GROW_ARRAY_RESERVE(v->blocks, v->cap_blocks, v->n_blocks + 1) != 0) {
        v->oom = true;
        return;
    }
    StgWord used = free > start ? (StgWord)(free - start) * sizeof(StgWord) : 0;
    v->blocks[v->n_blocks++] = (StubBlock){start, used, n_blocks, gen, kind};
}

static void add_group(bdescr *bd, uint8_t kind)
{
    add_block(bd->start, bd->free, bd->blocks, bd->gen_no, kind);
}

/* A generation's large objects: a pinned block (BF_PINNED) holds many
 * byte arrays; any other group holds one object. */
static void add_large_objects(bdescr *bd)
{
    for (; bd != NULL; bd = bd->link)
        add_group(bd, (bd->flags & BF_PINNED) ? DEBUG_BLOCK_PINNED : DEBUG_BLOCK_LARGE);
}

/* Each compact region of a generation: its blocks, chained through their
 * StgCompactNFDataBlock headers, objects after the header. */
static void add_compacts(bdescr *first)
{
    for (bdescr *bd = first; bd != NULL; bd = bd->link) {
        StgCompactNFDataBlock *b = (StgCompactNFDataBlock *)bd->start;
        for (; b != NULL; b = b->next) {
            bdescr *bb = Bdescr((StgPtr)b);
            add_block((StgPtr)(b + 1), bb->free, bb->blocks, bb->gen_no, DEBUG_BLOCK_COMPACT);
        }
    }
}

/* The capability's allocation registers (rNursery, rCurrentNursery); a
 * Capability is opaque outside the RTS, but compiled code finds them at
 * OFFSET_Capability_r, and so may we. */
static StgRegTable *cap_regs(uint32_t i)
{
    return (StgRegTable *)((char *)capabilities[i] + OFFSET_Capability_r);
}

/* Note [Nursery blocks the mutator has not reached]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A capability allocates into its nursery's blocks in order; the blocks
 * after the current one keep the free pointer and the objects of before
 * the last GC until the mutator reaches them (GHC resets a block's free
 * pointer only as it takes the block).  Those stale objects are garbage
 * that may point anywhere, so such blocks are listed empty.  Blocks before
 * the current one, and the current one (whose free pointer the scheduler
 * wrote back as the thread stopped), hold this cycle's objects. */
static void add_nursery(const nursery *n)
{
    bdescr *current = NULL;
    for (uint32_t i = 0; i < getNumCapabilities(); i++)
        if (cap_regs(i)->rNursery == n)
            current = cap_regs(i)->rCurrentNursery;
    bool stale = false;
    for (bdescr *bd = n->blocks; bd != NULL; bd = bd->link) {
        add_block(bd->start, stale ? bd->start : bd->free, bd->blocks, 0, DEBUG_BLOCK_NURSERY);
        if (bd == current)
            stale = true;
    }
}

/* Note [Blocks outside the generations' lists]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Two kinds of block hold live objects without being on a generation's
 * public lists: each GC thread's workspace keeps, between collections, the
 * to-space block it was filling (todo_bd, and its part and scavenged
 * lists), and each capability keeps the pinned blocks it allocated since
 * the last GC.  Only listAllBlocks reaches them.  It reports GHC's block
 * lists in a fixed order (GHC 9.10's rts/sm/Storage.c): per generation,
 * four per capability (its remembered set, then the workspace's three) and
 * the generation's four; then the nurseries; then each capability's pinned
 * blocks.  So a chain's place in that order says what it is: the
 * workspace's are blocks of small objects, the remembered sets and the
 * generation's own lists (walked directly) are skipped, and of the last
 * part only pinned blocks that hold something are kept (the empty ones
 * are free space).  A block met twice is listed once. */
typedef struct {
    size_t calls;
    size_t per_gen, n_gens;      /* 4 * capabilities + 4, generations */
} ListWalk;

static void listed_chain(void *user, bdescr *bd)
{
    ListWalk *w = user;
    size_t k = w->calls++;
    if (k < w->per_gen * w->n_gens) {
        size_t in_gen = k % w->per_gen;
        if (in_gen < w->per_gen - 4 && in_gen % 4 != 0)
            for (; bd != NULL; bd = bd->link)
                add_group(bd, DEBUG_BLOCK_SMALL);
        return;
    }
    if (k < w->per_gen * w->n_gens + n_nurseries)
        return;
    for (; bd != NULL; bd = bd->link)
        if ((bd->flags & BF_PINNED) && bd->free > bd->start)
            add_group(bd, DEBUG_BLOCK_PINNED);
}

static void add_blocks(void)
{
    uint32_t n_gens = RtsFlags.GcFlags.generations;
    for (uint32_t g = 0; g < n_gens; g++) {
        for (bdescr *bd = generations[g].blocks; bd != NULL; bd = bd->link)
            add_group(bd, DEBUG_BLOCK_SMALL);
        add_large_objects(generations[g].large_objects);
        add_compacts(generations[g].compact_objects);
    }
    for (uint32_t i = 0; i < n_nurseries; i++)
        add_nursery(&nurseries[i]);
    ListWalk w = {0, 4 * (size_t)getNumCapabilities() + 4, n_gens};
    listAllBlocks(listed_chain, &w);
}

static int thread_cmp(const void *a, const void *b)
{
    StgThreadID x = (*(StgTSO *const *)a)->id, y = (*(StgTSO *const *)b)->id;
    return x < y ? -1 : x > y;
}

static int block_cmp(const void *a, const void *b)
{
    StgPtr x = ((const StubBlock *)a)->start, y = ((const StubBlock *)b)->start;
    return x < y ? -1 : x > y;
}

/* ----------------------------------------------------------------------
 * Threads and stable pointers
 * ---------------------------------------------------------------------- */

static void add_thread(void *user, StgTSO *tso)
{
    (void)user;
    StubView *v = &stub_view;
    /* A finished thread stays on its generation's list until the next GC
     * drops it; it keeps nothing alive. */
    if (tso->what_next == ThreadComplete || tso->what_next == ThreadKilled)
        return;
    if (GROW_ARRAY_RESERVE(v->threads, v->cap_threads, v->n_threads + 1) != 0) {
        v->oom = true;
        return;
    }
    v->threads[v->n_threads++] = tso;
}

/* rts_listMiscRoots reports the stable name table first (each entry's
 * StableName object and named object: neither is a root, a stable name
 * keeps nothing alive), then the stable pointers.  This counts the calls
 * of the first part by GHC's own rule for a used entry (its addr is not a
 * pointer into the table, which marks a free one). */
typedef struct {
    size_t calls, skip;
} StableWalk;

static size_t stable_name_calls(void)
{
    size_t n = 0;
    snEntry *end = stable_name_table + SNT_size;
    for (snEntry *p = stable_name_table + 1; stable_name_table != NULL && p < end; p++) {
        bool free_slot = (StgPtr)p->addr >= (StgPtr)stable_name_table && (StgPtr)p->addr < (StgPtr)end;
        if (!free_slot)
            n += (p->sn_obj != NULL) + (p->addr != NULL);
    }
    return n;
}

static void add_stable(void *user, StgClosure *c)
{
    StableWalk *w = user;
    StubView *v = &stub_view;
    if (w->calls++ < w->skip || c == NULL)
        return;
    if (GROW_ARRAY_RESERVE(v->stable, v->cap_stable, v->n_stable + 1) != 0) {
        v->oom = true;
        return;
    }
    v->stable[v->n_stable++] = c;
}

void stub_view_build(void)
{
    StubView *v = &stub_view;
    v->n_blocks = v->n_threads = v->n_stable = 0;
    v->oom = false;
    v->unsupported = NULL;
    if (RtsFlags.GcFlags.useNonmoving) {
        v->unsupported = "the program runs GHC's non-moving collector (+RTS -xn), whose "
                         "old generation the stub cannot list";
        return;
    }
    rts_listThreads(add_thread, NULL);
    qsort(v->threads, v->n_threads, sizeof *v->threads, thread_cmp);   /* oldest first */
    StableWalk sw = {0, stable_name_calls()};
    rts_listMiscRoots(add_stable, &sw);
    add_blocks();
    qsort(v->blocks, v->n_blocks, sizeof *v->blocks, block_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < v->n_blocks; i++)
        if (kept == 0 || v->blocks[i].start != v->blocks[kept - 1].start)
            v->blocks[kept++] = v->blocks[i];
    v->n_blocks = kept;
}

/* ----------------------------------------------------------------------
 * Lookups
 * ---------------------------------------------------------------------- */

/* The last block starting at or before addr, or NULL. */
static const StubBlock *block_before(uint64_t addr)
{
    size_t lo = 0, hi = stub_view.n_blocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)(uintptr_t)stub_view.blocks[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? NULL : &stub_view.blocks[lo - 1];
}

const StubBlock *stub_view_block_of(uint64_t addr)
{
    const StubBlock *b = block_before(addr);
    if (b == NULL || addr >= (uint64_t)(uintptr_t)b->start + b->used)
        return NULL;
    return b;
}

const StubBlock *stub_view_block_at(uint64_t addr)
{
    const StubBlock *b = block_before(addr);
    return b != NULL && (uint64_t)(uintptr_t)b->start == addr ? b : NULL;
}
