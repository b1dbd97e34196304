/*
 * utils/debug-client/BlockIndex.h -- which block holds an address
 * (BlockIndex.c, Note [Block index]): a table of 4 KB pages per megablock
 * where a block starts.  The whole API of BlockIndex.c.
 */
#ifndef STRATA_DEBUG_BLOCK_INDEX_H
#define STRATA_DEBUG_BLOCK_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"
#include "WordMap.h"

typedef struct {
    bool on;                     /* false: every lookup binary-searches */
    uint64_t lo, hi;             /* lowest start, highest end of a non-empty block */
    WordMap mblocks;             /* megablock number + 1 -> index in tables */
    uint32_t *flat;              /* or [n_flat] by megablock number - flat_base:
                                  * index in tables or UINT32_MAX (see the Note) */
    uint64_t flat_base;
    size_t n_flat;
    uint32_t (*tables)[256];     /* [n_tables] per page: the first block that
                                  * reaches into it, or UINT32_MAX */
    uint64_t *mblock_of;         /* [n_tables] megablock number, ascending */
    size_t n_tables;
} BlockIndex;

/* Builds the index of bs[0 .. n) (sorted by start, disjoint, as
 * dbg_parse_blocks leaves them); -1 on out of memory. */
int block_index_build(BlockIndex *ix, const DbgBlock *bs, size_t n);
/* The binary search the index stands in for. */
const DbgBlock *block_index_search(const DbgBlock *bs, size_t n, uint64_t addr);
/* The block of bs whose used area holds addr, or NULL: the same answer as
 * a binary search over bs.  Inline: every pointer followed asks it. */
/* The first step of block_index_find: 1 with *i the page table's entry
 * for addr (UINT32_MAX: in no block), -1 when addr is in no block for
 * sure, 0 when only the binary search can tell. */
static inline int block_index_entry(const BlockIndex *ix, uint64_t addr, uint32_t *i)
{
    if (!ix->on)
        return 0;
    if (addr < ix->lo || addr >= ix->hi)
        return -1;   /* no block reaches there: a static closure, say */
    uint64_t mb = addr >> 20;
    size_t k;
    if (ix->flat != NULL) {
        if (mb - ix->flat_base >= ix->n_flat || ix->flat[mb - ix->flat_base] == UINT32_MAX)
            return 0;
        k = ix->flat[mb - ix->flat_base];
    } else {
        const uint64_t *v = word_map_get(&ix->mblocks, mb + 1);
        if (v == NULL)
            return 0;
        k = (size_t)*v;
    }
    *i = ix->tables[k][(addr >> 12) & 255];
    return 1;
}

static inline const DbgBlock *block_index_find(const BlockIndex *ix, const DbgBlock *bs,
                                               size_t n, uint64_t addr)
{
    uint32_t i;
    int e = block_index_entry(ix, addr, &i);
    if (e == 0)
        return block_index_search(bs, n, addr);
    if (e < 0 || i == UINT32_MAX)
        return NULL;
    while (i + 1 < n && bs[i + 1].start <= addr)
        i++;
    const DbgBlock *b = &bs[i];
    return addr >= b->start && addr < b->start + b->used_bytes ? b : NULL;
}
void block_index_free(BlockIndex *ix);
/* Every table entry recomputed from its definition: 0 if right, else -1. */
int block_index_check(const BlockIndex *ix, const DbgBlock *bs, size_t n);

#endif /* STRATA_DEBUG_BLOCK_INDEX_H */
