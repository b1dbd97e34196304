/*
 * utils/debug-client/BlockIndex.c -- which block holds an address, in a
 * hash lookup and a table read instead of a binary search over every
 * block: a table of 4 KB pages for each 1 MB megablock in which a block
 * starts.  Every analysis asks this for every pointer it follows, so it
 * is the client's hottest function.  Relies only on the sorted,
 * non-overlapping block list of dbg_parse_blocks (Client.c).  See Note
 * [Block index] and docs/design/debugger.md.
 */
#include <stdlib.h>

#include "BlockIndex.h"
#include "DebugTypes.h"
#include "Idom.h"

#define PAGE_SHIFT 12            /* the storage manager's 4 KB block */
#define MBLOCK_SHIFT 20          /* its 1 MB megablock */
#define NONE UINT32_MAX

/* Note [Block index]
 * ~~~~~~~~~~~~~~~~~~
 * The question is the binary search's: the last block (in start order)
 * whose start is at or below addr, if addr lies inside its used area.
 * For each 4 KB page P of a megablock with a table, the table holds the
 * smallest index i of a block that ends after P's first byte and starts
 * before P's end, or NONE.  A block that holds addr ends after the first
 * byte of addr's page, so its index is at least that entry; blocks are
 * sorted and disjoint, so stepping forward while the next block starts at
 * or below addr (a page holds at most a few: era segments share a block)
 * reaches the binary search's answer.  Only megablocks in which some
 * non-empty block starts get a table (1 KB each; a block list says where
 * blocks start, not how far a made-up one claims to reach); an address
 * in any other megablock (a static closure, or the tail of a large object
 * spanning megablocks) falls back to the binary search, which is always
 * right.  The pages and megablocks here are the index's own granules: the
 * answer does not depend on the target's real block size, only the speed.
 * Two shortcuts before any of that: an address below the lowest block or
 * at or past the highest block's end (a static closure: every leaf of a
 * tree points at one) is in no block, and where the megablocks with
 * tables lie close together (span under 4 per table plus 4096, as one
 * heap's do) a flat array by megablock number finds the table instead of
 * the hash map (4 bytes a megablock of the span).
 * Rejected: a hash map from page to block (a lookup per page, 16 bytes
 * per page); one flat table over the address range (the heap's
 * megablocks are spread over terabytes of address space). */

typedef uint32_t PageTable[1u << (MBLOCK_SHIFT - PAGE_SHIFT)];

void block_index_free(BlockIndex *ix)
{
    word_map_free(&ix->mblocks);
    free(ix->flat);
    free(ix->tables);
    free(ix->mblock_of);
    *ix = (BlockIndex){0};
}

int block_index_build(BlockIndex *ix, const DbgBlock *bs, size_t n)
{
    block_index_free(ix);
    /* The megablocks where a non-empty block starts, sorted and unique. */
    uint64_t *mb = malloc((n ? n : 1) * sizeof *mb);
    if (mb == NULL)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (bs[i].used_bytes > 0)
            mb[m++] = bs[i].start >> MBLOCK_SHIFT;
    /* Sorted already, as the blocks are. */
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || mb[u - 1] != mb[i])
            mb[u++] = mb[i];
    /* A sparse layout (blocks alone in their megablocks) is left to the
     * binary search: the tables would outweigh the block list. */
    if (u > n / 8 + 64) {
        free(mb);
        return 0;
    }
    PageTable *tables = malloc((u ? u : 1) * sizeof *tables);
    if (tables == NULL) {
        free(mb);
        return -1;
    }
    for (size_t k = 0; k < u; k++) {
        for (size_t p = 0; p < sizeof tables[k] / sizeof tables[k][0]; p++)
            tables[k][p] = NONE;
        /* The key is offset by one: the map's keys are never 0. */
        if (word_map_put(&ix->mblocks, mb[k] + 1, k) != 0) {
            free(tables);
            free(mb);
            word_map_free(&ix->mblocks);
            return -1;
        }
    }
    /* Blocks in order, so the first to reach a page is the smallest index. */
    size_t first = 0;   /* the first megablock with a table at or after the block's */
    for (size_t i = 0; i < n; i++) {
        if (bs[i].used_bytes == 0)
            continue;
        uint64_t s = bs[i].start, e = s + bs[i].used_bytes - 1;   /* last byte */
        while (first < u && mb[first] < s >> MBLOCK_SHIFT)
            first++;
        for (size_t k = first; k < u && mb[k] <= e >> MBLOCK_SHIFT; k++) {
            uint64_t base = mb[k] << MBLOCK_SHIFT;
            uint64_t lo = s > base ? s : base;
            uint64_t hi = e < base + ((uint64_t)1 << MBLOCK_SHIFT) - 1
                              ? e : base + ((uint64_t)1 << MBLOCK_SHIFT) - 1;
            for (uint64_t p = (lo - base) >> PAGE_SHIFT; p <= (hi - base) >> PAGE_SHIFT; p++)
                if (tables[k][p] == NONE)
                    tables[k][p] = (uint32_t)i;
        }
    }
    /* Megablocks that are close together (one heap's mappings) are found
     * by subtraction instead of hashing. */
    if (u > 0 && mb[u - 1] - mb[0] < 4 * (uint64_t)u + 4096) {
        size_t span = (size_t)(mb[u - 1] - mb[0]) + 1;
        uint32_t *flat = malloc(span * sizeof *flat);
        if (flat == NULL) {
            free(tables);
            free(mb);
            word_map_free(&ix->mblocks);
            return -1;
        }
        for (size_t k = 0; k < span; k++)
            flat[k] = NONE;
        for (size_t k = 0; k < u; k++)
            flat[mb[k] - mb[0]] = (uint32_t)k;
        ix->flat = flat;
        ix->flat_base = mb[0];
        ix->n_flat = span;
    }
    ix->lo = UINT64_MAX;
    ix->hi = 0;
    for (size_t i = 0; i < n; i++)
        if (bs[i].used_bytes > 0) {
            ix->lo = bs[i].start < ix->lo ? bs[i].start : ix->lo;
            ix->hi = bs[i].start + bs[i].used_bytes > ix->hi ? bs[i].start + bs[i].used_bytes
                                                              : ix->hi;
        }
    ix->tables = tables;
    ix->mblock_of = mb;
    ix->n_tables = u;
    ix->on = true;
    return 0;
}

const DbgBlock *block_index_search(const DbgBlock *bs, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bs[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const DbgBlock *b = &bs[lo - 1];
    return addr < b->start + b->used_bytes ? b : NULL;
}

/* Recomputes every table entry from the definition in Note [Block index]
 * (a linear scan per page): 0 if all agree, else -1.  For tests. */
int block_index_check(const BlockIndex *ix, const DbgBlock *bs, size_t n)
{
    if (!ix->on)
        return ix->n_tables == 0 && ix->tables == NULL ? 0 : -1;
    size_t n_flat_used = 0;
    for (size_t k = 0; k < ix->n_flat; k++)
        n_flat_used += ix->flat[k] != NONE;
    if (ix->flat != NULL && n_flat_used != ix->n_tables)
        return -1;
    for (size_t i = 0; i < n; i++)   /* every non-empty block inside [lo, hi) */
        if (bs[i].used_bytes > 0 &&
            (bs[i].start < ix->lo || bs[i].start + bs[i].used_bytes > ix->hi))
            return -1;
    for (size_t k = 0; k < ix->n_tables; k++) {
        if (k > 0 && ix->mblock_of[k] <= ix->mblock_of[k - 1])
            return -1;
        const uint64_t *v = word_map_get(&ix->mblocks, ix->mblock_of[k] + 1);
        if (v == NULL || *v != k)
            return -1;
        if (ix->flat != NULL && (ix->mblock_of[k] - ix->flat_base >= ix->n_flat ||
                                 ix->flat[ix->mblock_of[k] - ix->flat_base] != k))
            return -1;
        for (uint64_t p = 0; p < 1u << (MBLOCK_SHIFT - PAGE_SHIFT); p++) {
            uint64_t lo = (ix->mblock_of[k] << MBLOCK_SHIFT) + (p << PAGE_SHIFT);
            uint64_t hi = lo + ((uint64_t)1 << PAGE_SHIFT);
            uint32_t want = NONE;
            for (size_t i = 0; i < n && want == NONE; i++)
                if (bs[i].used_bytes > 0 && bs[i].start < hi &&
                    bs[i].start + bs[i].used_bytes > lo)
                    want = (uint32_t)i;
            if (ix->tables[k][p] != want)
                return -1;
        }
    }
    return 0;
}
