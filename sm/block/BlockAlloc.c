/*
 * sm/block/BlockAlloc.c -- the block allocator: groups of contiguous 4 KiB blocks
 * carved out of megablocks, with free lists bucketed by log2 of the group
 * size and coalescing of free neighbours.
 *
 * Relies on the megablock layer (sm/block/MBlock.h) for memory and on
 * support/Messages.h for panics.  It is the design of GHC's block allocator
 * (docs/reference/storage.md), written afresh; the invariants
 * and decisions are in docs/design/block-allocator.md, whose tags
 * (.inv.free-marker, ...) the code below cites.
 *
 * Overview
 * --------
 * A megablock is 256 block slots.  The first 4 slots hold the 256 block
 * descriptors (64 bytes each, slot k's descriptor at mb + 64*k), so slots
 * 4..255 are the 252 usable blocks (BLOCKS_PER_MBLOCK).
 *
 *   - A group of n <= 252 blocks lies within one megablock and is described
 *     by the descriptor of its first block, the head (blocks = n).
 *   - A group of n > 252 blocks is a megablock group: m whole megablocks,
 *     m = the fewest with MBLOCK_GROUP_BLOCKS(m) >= n.  Its head is the
 *     first descriptor of the first megablock; the later megablocks'
 *     descriptor areas are part of the group's memory.  Megablock groups
 *     never sit on our free lists: freeing one gives its megablocks back
 *     to the megablock layer.
 *   - Free groups sit on free_list[i], i = floor(log2(blocks)), i in 0..7,
 *     doubly linked through link (next) and u.back (previous).  A free
 *     group's head has free == FREE_MARKER; a free group of two or more
 *     blocks also has a tail descriptor (its last block's) with blocks = 0,
 *     link = head and free == FREE_MARKER, so that a group being freed can
 *     find a free group just before it.
 *   - Allocating n blocks takes the first group of the first non-empty
 *     list i >= ceil(log2(n)) and splits off its tail; see Note [Splitting
 *     off the tail].  With no such group, it takes a fresh megablock.
 *   - Freeing merges the group with free neighbours in the same megablock;
 *     a megablock that becomes entirely free goes back to the megablock
 *     layer at once (.inv.no-empty-mblock).
 *
 * Not thread-safe: callers serialise (the storage manager's lock, or the
 * single capability).
 */
#include "BlockAlloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "MBlock.h"
#include "Messages.h"

#if defined(STRATA_ASAN)
#include <sanitizer/asan_interface.h>
#endif

/* --------------------------------------------------------------------------
 * State
 * ----------------------------------------------------------------------- */

#define NUM_FREE_LISTS (MBLOCK_SHIFT - BLOCK_SHIFT)          /* 8 */
#define SLOTS_PER_MBLOCK (MBLOCK_SIZE / BLOCK_SIZE)          /* 256 */

/* The value of free that marks a free group's head and tail
 * (.inv.free-marker).  Nothing else may ever store it in a descriptor. */
#define FREE_MARKER ((StgPtr)-1)

static BlockDesc *free_list[NUM_FREE_LISTS]; /* free groups of 2^i .. 2^(i+1)-1 blocks */
static unsigned free_list_mask;  /* bit i set iff free_list[i] != NULL */
static StgWord n_small_alloc;    /* blocks in allocated groups of <= 252 blocks */
static StgWord n_mega_alloc;     /* blocks (as requested) in allocated megablock groups */
static StgWord n_mega_mblocks;   /* megablocks held by allocated megablock groups */
static StgWord n_free_blocks;    /* blocks in groups on the free lists */

/* Note [The young-group map] in BlockAlloc.h: one byte per megablock of
 * the reservation, and its address less the base's megablock number. */
static uint8_t *young_map;
StgWord block_young_map_biased;

static uint8_t *young_count(const void *p)
{
    return block_young_count_at(block_young_map_biased, p);
}

/* A group whose head is bd joins (+1) or leaves (-1) generation 0. */
static void young_count_add(const BlockDesc *bd, int delta)
{
    uint8_t *count = young_count(bd);
    uint8_t before = __atomic_fetch_add(count, (uint8_t)delta, __ATOMIC_RELAXED);
    ASSERT_INTERNAL(delta > 0 ? before < BLOCKS_PER_MBLOCK : before > 0);
    (void)before;
}

void block_set_gen_no(BlockDesc *bd, uint16_t gen_no)
{
    uint16_t old = __atomic_load_n(&bd->gen_no, __ATOMIC_RELAXED);
    if (old == gen_no)
        return;
    /* Counted before the group leaves generation 0 is dropped, and after
     * it joins: a reader never sees a zero count beside a young group. */
    if (gen_no == 0)
        young_count_add(bd, 1);
    __atomic_store_n(&bd->gen_no, gen_no, __ATOMIC_RELAXED);
    if (old == 0)
        young_count_add(bd, -1);
}

unsigned block_young_groups_in_mblock(const void *p)
{
    return __atomic_load_n(young_count(p), __ATOMIC_RELAXED);
}

/* --------------------------------------------------------------------------
 * Helpers: sizes, slots, poisoning
 * ----------------------------------------------------------------------- */

/* floor(log2(n)) for 1 <= n < 2^32. */
static inline unsigned log2_floor(StgWord n)
{
    return (unsigned)(sizeof(unsigned long) * 8 - 1) - (unsigned)__builtin_clzl((unsigned long)n);
}

/* ceil(log2(n)) for 1 <= n < 2^32. */
static inline unsigned log2_ceil(StgWord n)
{
    return n <= 1 ? 0 : log2_floor(n - 1) + 1;
}

static inline char *bd_mblock(const BlockDesc *bd)
{
    return (char *)((StgWord)bd & ~MBLOCK_MASK);
}

/* The block slot (0..255) that descriptor bd describes. */
static inline StgWord bd_slot(const BlockDesc *bd)
{
    return ((StgWord)bd & MBLOCK_MASK) >> BDESCR_SHIFT;
}

/* The first word of the block that descriptor bd describes. */
static inline StgPtr bd_block_start(const BlockDesc *bd)
{
    return (StgPtr)(bd_mblock(bd) + (bd_slot(bd) << BLOCK_SHIFT));
}

/* Megablocks needed for a megablock group of n > BLOCKS_PER_MBLOCK blocks. */
static inline StgWord mega_group_mblocks(StgWord n)
{
    const StgWord per = MBLOCK_SIZE / BLOCK_SIZE;
    return 1 + (n - BLOCKS_PER_MBLOCK + per - 1) / per;
}

/*
 * Note [Poisoning free blocks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Under AddressSanitizer the bytes of every block that is not handed out
 * are poisoned, so a use after block_free_group, or an overrun past the
 * end of a group, is reported where it happens.  Descriptors are never
 * poisoned: the allocator reads the descriptors of free neighbours, and
 * the GC reads descriptors of arbitrary heap addresses.  The one subtlety
 * is a megablock group's memory, which includes the descriptor areas of
 * its second and later megablocks: we poison all of it when the group is
 * freed, so we unpoison a megablock's descriptor area whenever we take a
 * megablock from the megablock layer.
 *
 * In debug builds (STRATA_DEBUG >= 2) freed blocks are also filled with
 * 0xaa (HEAP_POISON_BYTE), so that a stale read in a non-sanitizer build
 * sees a recognisable pattern instead of plausible data.  The nursery is
 * never freed, so the collector fills its used part the same way after
 * each GC (poison_nursery in GC.c): together they make all of from-space
 * read as poison, and the sanity checker names a pointer that reads it.
 */
static inline void mem_poison(void *p, StgWord bytes)
{
#if defined(STRATA_ASAN)
    ASAN_POISON_MEMORY_REGION(p, bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

static inline void mem_unpoison(void *p, StgWord bytes)
{
#if defined(STRATA_ASAN)
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Called on memory that has just stopped being handed out. */
static void mem_scrub(void *p, StgWord bytes)
{
#if STRATA_DEBUG >= 2
    memset(p, HEAP_POISON_BYTE, bytes);
#endif
    mem_poison(p, bytes);
}

/* --------------------------------------------------------------------------
 * Free lists
 * ----------------------------------------------------------------------- */

/* Puts head (not on any list, blocks set) at the front of its list. */
static void list_insert(BlockDesc *head)
{
    unsigned i = log2_floor(head->blocks);
    ASSERT_INTERNAL(i < NUM_FREE_LISTS);
    head->u.back = NULL;
    head->link = free_list[i];
    if (head->link != NULL)
        head->link->u.back = head;
    free_list[i] = head;
    free_list_mask |= 1u << i;
    n_free_blocks += head->blocks;
}

/* Takes head off its list; head->blocks must still be the size it was
 * inserted with. */
static void list_remove(BlockDesc *head)
{
    unsigned i = log2_floor(head->blocks);
    ASSERT_INTERNAL(i < NUM_FREE_LISTS);
    if (head->u.back != NULL) {
        head->u.back->link = head->link;
    } else {
        if (free_list[i] != head)
            rts_panic("block allocator: free list corrupted (bd=%p, blocks=%u, list=%u)",
                      (void *)head, head->blocks, i);
        free_list[i] = head->link;
        if (free_list[i] == NULL)
            free_list_mask &= ~(1u << i);
    }
    if (head->link != NULL)
        head->link->u.back = head->u.back;
    n_free_blocks -= head->blocks;
}

/* Makes head describe a free group of n blocks: free marker and size on
 * the head, and the tail descriptor (.inv.free-tail).  Does not touch the
 * lists. */
static void group_mark_free(BlockDesc *head, StgWord n)
{
    head->start = bd_block_start(head);
    head->free = FREE_MARKER;
    head->blocks = (uint32_t)n;
    head->gen = NULL;
    head->gen_no = head->dest_no = 0;
    head->flags = 0;
    head->era = 0;
    if (n > 1) {
        BlockDesc *tail = head + (n - 1);
        tail->free = FREE_MARKER;
        tail->blocks = 0;
        tail->link = head;
    }
}

/* A descriptor that stops being a free head because its group merged into
 * a neighbour's (.inv.free-marker: no stale free heads). */
static void head_clear(BlockDesc *bd)
{
    bd->free = NULL;
    bd->blocks = 0;
    bd->link = NULL;
    bd->u.back = NULL;
}

/*
 * Note [Finding the free group before a group]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * To merge a group starting at bd with a free group just before it, we
 * look at prev = bd - 1, the descriptor of the block before bd.  If that
 * block is in a free group, prev is either the group's head (a one-block
 * group) or its tail (blocks == 0, link == head).  But if that block is
 * in an allocated group, prev is a non-head descriptor of that group, and
 * we promise callers nothing about those: they hold whatever was there
 * before, perhaps an old tail whose link names a head that has since
 * shrunk, or anything the caller wrote.  GHC avoids the question by
 * writing every non-head descriptor on allocation; we do not want O(n)
 * work per allocation, nor to constrain what the GC keeps in them.
 *
 * So we treat prev only as a hint and check the candidate head h:
 *   - h lies in this megablock's descriptor area, at or before prev, on a
 *     descriptor boundary (so reading it is safe whatever prev held);
 *   - h->free == FREE_MARKER and h->blocks != 0;
 *   - h's group ends exactly where bd starts.
 * By .inv.free-marker, a descriptor with the free marker and a non-zero
 * size is the head of a free group; that group then covers the block
 * before bd, so the merge is right.  If any test fails, the block before
 * bd is not free.  .inv.free-marker holds because (1) we zero the
 * descriptors of every megablock we take from the megablock layer (a
 * megablock group may have left arbitrary data there), (2) head_clear runs
 * on every head that merges into a neighbour, (3) allocation overwrites
 * free on the head it hands out, and (4) callers never store FREE_MARKER.
 */
static BlockDesc *free_group_before(BlockDesc *bd)
{
    char *mb = bd_mblock(bd);
    BlockDesc *prev = bd - 1;
    StgWord cand = prev->blocks == 0 ? (StgWord)prev->link : (StgWord)prev;
    StgWord lo = (StgWord)MBLOCK_FIRST_BDESCR(mb);
    if (cand < lo || cand > (StgWord)prev || (cand & (BDESCR_SIZE - 1)) != 0)
        return NULL;
    BlockDesc *h = (BlockDesc *)cand;
    if (h->free != FREE_MARKER || h->blocks == 0)
        return NULL;
    if (bd_slot(h) + h->blocks != bd_slot(bd))
        return NULL;
    return h;
}

/* The free group starting right after the group [bd, bd + n), if any.
 * The block after a group's end starts a group, so its descriptor is a
 * head, and a head carrying the free marker is free (.inv.free-marker). */
static BlockDesc *free_group_after(BlockDesc *bd, StgWord n)
{
    if (bd_slot(bd) + n >= SLOTS_PER_MBLOCK)
        return NULL;
    BlockDesc *next = bd + n;
    if (next->free != FREE_MARKER || next->blocks == 0)
        return NULL;
    return next;
}

/* --------------------------------------------------------------------------
 * Initialisation
 * ----------------------------------------------------------------------- */

void block_alloc_init(void)
{
    if (mblock_heap_base == NULL)
        rts_panic("block_alloc_init: mblock_init has not been called");
    if (mblock_n_in_use() != 0)
        rts_panic("block_alloc_init: megablocks already in use (in_use=%lu)",
                  (unsigned long)mblock_n_in_use());
    for (unsigned i = 0; i < NUM_FREE_LISTS; i++)
        free_list[i] = NULL;
    StgWord n_mblocks = (StgWord)(mblock_heap_end - mblock_heap_base) >> MBLOCK_SHIFT;
    free(young_map);
    young_map = calloc(n_mblocks, 1);
    if (young_map == NULL)
        rts_panic("block_alloc_init: no memory for the young-group map (%lu megablocks)",
                  (unsigned long)n_mblocks);
    block_young_map_biased = (StgWord)young_map - ((StgWord)mblock_heap_base >> MBLOCK_SHIFT);
    free_list_mask = 0;
    n_small_alloc = n_mega_alloc = n_mega_mblocks = n_free_blocks = 0;
}

/* --------------------------------------------------------------------------
 * Allocation
 * ----------------------------------------------------------------------- */

/* Sets every field of the head of a group of n blocks being handed out. */
static void head_init(BlockDesc *bd, StgWord n)
{
    young_count_add(bd, 1);
    StgPtr start = bd_block_start(bd);
    bd->start = start;
    bd->free = start;
    bd->link = NULL;
    bd->u.back = NULL;
    bd->gen = NULL;
    bd->gen_no = 0;
    bd->dest_no = 0;
    bd->pad_node = 0;
    bd->flags = 0;
    bd->blocks = (uint32_t)n;
    bd->n_era_runs = 0;
    bd->era = 0;
}

/*
 * Note [Zeroing the descriptors of a fresh megablock]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A megablock from the megablock layer may have been the second megablock
 * of a megablock group, whose "descriptor area" held the user's data, or
 * a megablock of small groups whose descriptors the GC wrote freely.
 * Either could contain a word equal to FREE_MARKER in a free field, which
 * would break .inv.free-marker and make free_group_before merge with
 * memory that is in use.  So we clear all 252 descriptors (16 KiB, once
 * per megablock, against 1 MiB of blocks) and set each one's start.
 */
static BlockDesc *mblock_take_fresh(void)
{
    char *mb = mblock_alloc_group(1);
    if (mb == NULL)
        return NULL;
    mem_unpoison(mb, FIRST_BLOCK_OFF);
    BlockDesc *first = MBLOCK_FIRST_BDESCR(mb);
    memset(first, 0, BLOCKS_PER_MBLOCK * sizeof(BlockDesc));
    for (StgWord k = 0; k < BLOCKS_PER_MBLOCK; k++)
        first[k].start = bd_block_start(&first[k]);
    mem_poison(MBLOCK_FIRST_BLOCK(mb), BLOCKS_PER_MBLOCK * BLOCK_SIZE);
    group_mark_free(first, BLOCKS_PER_MBLOCK);
    return first;
}

/*
 * Note [Splitting off the tail]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * When a free group g of m blocks is bigger than the n wanted, we hand
 * out its last n blocks and leave the first m - n where they are.  The
 * remaining group keeps its head, so if it stays in the same size class
 * it keeps its place on its list and the split costs a size update and a
 * new tail: O(1), which matters because the GC allocates its to-space one
 * block at a time.  Taking the front instead would move the head, and
 * with it the list links and the neighbours' back pointers.
 */
static BlockDesc *group_take_tail(BlockDesc *g, StgWord n)
{
    StgWord m = g->blocks;
    ASSERT_INTERNAL(m >= n);
    if (m == n) {
        list_remove(g);
        return g;
    }
    StgWord rest = m - n;
    if (log2_floor(rest) == log2_floor(m)) {
        g->blocks = (uint32_t)rest;
        n_free_blocks -= n;
        if (rest > 1) {
            BlockDesc *tail = g + (rest - 1);
            tail->free = FREE_MARKER;
            tail->blocks = 0;
            tail->link = g;
        }
    } else {
        list_remove(g);
        group_mark_free(g, rest);
        list_insert(g);
    }
    return g + rest;
}

/*
 * Note [Looking one list down]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Searching from list ceil(log2(n)) guarantees that the first group found
 * is big enough, but misses groups of n .. 2^ceil(log2 n) - 1 blocks on
 * list floor(log2(n)).  Before taking a fresh megablock we look at the
 * first few groups of that list.  The bound keeps allocation O(1); a full
 * scan could take time proportional to the number of free groups.
 */
#define LOOK_DOWN_LIMIT 4

static BlockDesc *look_one_list_down(StgWord n)
{
    BlockDesc *g = free_list[log2_floor(n)];
    for (unsigned k = 0; k < LOOK_DOWN_LIMIT && g != NULL; k++, g = g->link)
        if (g->blocks >= n)
            return g;
    return NULL;
}

static BlockDesc *alloc_mega_group(StgWord n)
{
    if (n > UINT32_MAX) {
        debug_trace(DEBUG_BLOCK, "block: group too large (n=%lu)", (unsigned long)n);
        return NULL;
    }
    StgWord m = mega_group_mblocks(n);
    char *mb = mblock_alloc_group(m);
    if (mb == NULL)
        return NULL;
    mem_unpoison(mb, FIRST_BLOCK_OFF);
    BlockDesc *bd = MBLOCK_FIRST_BDESCR(mb);
    head_init(bd, n);
    StgWord bytes = n * BLOCK_SIZE;
    mem_unpoison(bd->start, bytes);
    /* The slack after the last block stays poisoned: see Note [Poisoning
     * free blocks]. */
    mem_poison((char *)bd->start + bytes, (m << MBLOCK_SHIFT) - FIRST_BLOCK_OFF - bytes);
    n_mega_alloc += n;
    n_mega_mblocks += m;
    return bd;
}

BlockDesc *block_alloc_group(StgWord n)
{
    if (STRATA_UNLIKELY(n == 0))
        rts_panic("block_alloc_group: zero blocks requested");
    if (n > BLOCKS_PER_MBLOCK)
        return alloc_mega_group(n);

    BlockDesc *g = NULL;
    unsigned ln = log2_ceil(n);
    unsigned avail = ln < NUM_FREE_LISTS ? free_list_mask >> ln : 0;
    if (STRATA_LIKELY(avail != 0)) {
        g = free_list[ln + (unsigned)__builtin_ctz(avail)];
    } else {
        g = look_one_list_down(n);
        if (g == NULL) {
            g = mblock_take_fresh();
            if (g == NULL)
                return NULL;
            list_insert(g);
        }
    }

    BlockDesc *bd = group_take_tail(g, n);
    head_init(bd, n);
    mem_unpoison(bd->start, n * BLOCK_SIZE);
    n_small_alloc += n;
    /* The group handed out is whole and describes itself. */
    ASSERT_INTERNAL(bd->blocks == n && bd->start == bd_block_start(bd) && bd->free == bd->start);
    return bd;
}

/* --------------------------------------------------------------------------
 * Freeing
 * ----------------------------------------------------------------------- */

static void free_mega_group(BlockDesc *bd)
{
    StgWord n = bd->blocks;
    StgWord m = mega_group_mblocks(n);
    char *mb = bd_mblock(bd);
    if (bd != MBLOCK_FIRST_BDESCR(mb) || m > n_mega_mblocks || n > n_mega_alloc)
        rts_panic("block_free_group: not an allocated megablock group "
                  "(bd=%p, blocks=%lu, mega_mblocks=%lu)",
                  (void *)bd, (unsigned long)n, (unsigned long)n_mega_mblocks);
    /* The slack after the last block has been poisoned since allocation. */
    mem_scrub(bd->start, n * BLOCK_SIZE);
    /* Marked so that a second free of the same group panics while the
     * megablocks are still unused; they are re-initialised on reuse. */
    bd->free = FREE_MARKER;
    n_mega_alloc -= n;
    n_mega_mblocks -= m;
    mblock_free_group(mb, m);
}

void block_free_group(BlockDesc *bd)
{
    if (bd == NULL || !heap_alloced(bd) || bd_slot(bd) < FIRST_USABLE_BLOCK)
        rts_panic("block_free_group: not a block descriptor (bd=%p)", (void *)bd);
    if (STRATA_UNLIKELY(bd->free == FREE_MARKER))
        rts_panic("block_free_group: group freed twice (bd=%p, blocks=%u)",
                  (void *)bd, bd->blocks);
    ASSERT_INTERNAL(bd->start == bd_block_start(bd));
    if (bd->gen_no == 0)
        young_count_add(bd, -1);
    StgWord n = bd->blocks;
    if (n > BLOCKS_PER_MBLOCK) {
        free_mega_group(bd);
        return;
    }
    if (n == 0 || bd_slot(bd) + n > SLOTS_PER_MBLOCK || n > n_small_alloc)
        rts_panic("block_free_group: bad group (bd=%p, blocks=%lu, slot=%lu, allocated=%lu)",
                  (void *)bd, (unsigned long)n, (unsigned long)bd_slot(bd),
                  (unsigned long)n_small_alloc);
    n_small_alloc -= n;
    mem_scrub(bd->start, n * BLOCK_SIZE);

    BlockDesc *next = free_group_after(bd, n);
    if (next != NULL) {
        list_remove(next);
        n += next->blocks;
        head_clear(next);
    }
    if (bd_slot(bd) > FIRST_USABLE_BLOCK) {
        BlockDesc *before = free_group_before(bd);
        if (before != NULL) {
            list_remove(before);
            n += before->blocks;
            /* bd becomes an inner descriptor; clearing it also makes a
             * second free of bd panic instead of corrupting the lists. */
            head_clear(bd);
            bd = before;
        }
    }

    if (n == BLOCKS_PER_MBLOCK) {
        /* .inv.no-empty-mblock: the whole megablock is free. */
        ASSERT_INTERNAL(*young_count(bd) == 0);   /* .inv.young-map */
        head_clear(bd);
        mblock_free_group(bd_mblock(bd), 1);
        return;
    }
    group_mark_free(bd, n);
    list_insert(bd);
}

void block_free_chain(BlockDesc *bd)
{
    while (bd != NULL) {
        BlockDesc *next = bd->link;
        block_free_group(bd);
        bd = next;
    }
}

/* --------------------------------------------------------------------------
 * Counters
 * ----------------------------------------------------------------------- */

StgWord block_n_allocated(void) { return n_small_alloc + n_mega_alloc; }
StgWord block_n_free(void) { return n_free_blocks; }

/* --------------------------------------------------------------------------
 * Debugging
 * ----------------------------------------------------------------------- */

/* Checks one group on free_list[list]; prev is its predecessor there
 * (.inv.free-list, .inv.free-tail). */
static void check_free_group(const BlockDesc *bd, unsigned list, const BlockDesc *prev)
{
    if (!heap_alloced(bd) || ((StgWord)bd & (BDESCR_SIZE - 1)) != 0 ||
        bd_slot(bd) < FIRST_USABLE_BLOCK)
        rts_panic("block_check: free list %u holds a non-descriptor (bd=%p)", list, (void *)bd);
    StgWord slot = bd_slot(bd), n = bd->blocks;
    if (bd->start != bd_block_start(bd))
        rts_panic("block_check: bad start (bd=%p, start=%p, expected=%p)",
                  (void *)bd, (void *)bd->start, (void *)bd_block_start(bd));
    if (bd->free != FREE_MARKER)
        rts_panic("block_check: group on a free list not marked free (bd=%p, free=%p)",
                  (void *)bd, (void *)bd->free);
    if (n == 0 || n >= BLOCKS_PER_MBLOCK || slot + n > SLOTS_PER_MBLOCK)
        rts_panic("block_check: bad free group size (bd=%p, slot=%lu, blocks=%lu)",
                  (void *)bd, (unsigned long)slot, (unsigned long)n);
    if (log2_floor(n) != list)
        rts_panic("block_check: free group in the wrong list (bd=%p, blocks=%lu, list=%u)",
                  (void *)bd, (unsigned long)n, list);
    if (bd->u.back != prev)
        rts_panic("block_check: bad back pointer (bd=%p, back=%p, expected=%p)",
                  (void *)bd, (void *)bd->u.back, (void *)prev);
    if (n > 1) {
        const BlockDesc *tail = bd + (n - 1);
        if (tail->blocks != 0 || tail->link != bd || tail->free != FREE_MARKER)
            rts_panic("block_check: bad tail descriptor (bd=%p, tail=%p, tail_blocks=%u, "
                      "tail_link=%p)", (void *)bd, (void *)tail, tail->blocks,
                      (void *)tail->link);
    }
    /* .inv.free-marker: no other free head inside the group.  This also
     * catches overlapping free groups. */
    for (StgWord k = 1; k + 1 < n; k++) {
        const BlockDesc *d = bd + k;
        if (d->free == FREE_MARKER && d->blocks != 0)
            rts_panic("block_check: free head inside a free group (bd=%p, inner=%p)",
                      (void *)bd, (void *)d);
    }
    /* .inv.coalesced */
    if (free_group_after((BlockDesc *)bd, n) != NULL)
        rts_panic("block_check: free group not merged with the one after it (bd=%p)",
                  (void *)bd);
    if (slot > FIRST_USABLE_BLOCK && free_group_before((BlockDesc *)bd) != NULL)
        rts_panic("block_check: free group not merged with the one before it (bd=%p)",
                  (void *)bd);
}

/*
 * .inv.block-count: every megablock the megablock layer counts as in use
 * belongs to the block allocator, either to an allocated megablock group
 * or as a megablock of small groups whose 252 blocks are all either handed
 * out or on a free list.  Hence
 *
 *   n_small_alloc + n_free_blocks
 *       == (mblock_n_in_use() - n_mega_mblocks) * BLOCKS_PER_MBLOCK
 *
 * It needs the block allocator to be the megablock layer's only client.
 */
void block_check(void)
{
    StgWord seen = 0, groups = 0;
    for (unsigned i = 0; i < NUM_FREE_LISTS; i++) {
        if (((free_list_mask >> i) & 1u) != (free_list[i] != NULL))
            rts_panic("block_check: list mask out of date (list=%u, mask=%#x)", i,
                      free_list_mask);
        const BlockDesc *prev = NULL;
        for (const BlockDesc *bd = free_list[i]; bd != NULL; prev = bd, bd = bd->link) {
            if (++groups > n_free_blocks)
                rts_panic("block_check: more free groups than free blocks: cycle? "
                          "(groups=%lu, free=%lu)", (unsigned long)groups,
                          (unsigned long)n_free_blocks);
            check_free_group(bd, i, prev);
            seen += bd->blocks;
        }
    }
    if (free_list_mask >> NUM_FREE_LISTS != 0)
        rts_panic("block_check: list mask has stray bits (mask=%#x)", free_list_mask);
    if (seen != n_free_blocks)
        rts_panic("block_check: free block count wrong (counted=%lu, recorded=%lu)",
                  (unsigned long)seen, (unsigned long)n_free_blocks);

    StgWord in_use = mblock_n_in_use();
    if (n_mega_mblocks > in_use ||
        n_small_alloc + n_free_blocks != (in_use - n_mega_mblocks) * BLOCKS_PER_MBLOCK)
        rts_panic("block_check: block counts do not balance (allocated=%lu, free=%lu, "
                  "mblocks_in_use=%lu, mega_group_mblocks=%lu)",
                  (unsigned long)n_small_alloc, (unsigned long)n_free_blocks,
                  (unsigned long)in_use, (unsigned long)n_mega_mblocks);
    if ((n_mega_alloc == 0) != (n_mega_mblocks == 0) ||
        n_mega_alloc > n_mega_mblocks * SLOTS_PER_MBLOCK)
        rts_panic("block_check: megablock groups miscounted (blocks=%lu, mblocks=%lu)",
                  (unsigned long)n_mega_alloc, (unsigned long)n_mega_mblocks);
}
