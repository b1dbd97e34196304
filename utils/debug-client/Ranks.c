/*
 * utils/debug-client/Ranks.c -- the graph core's dense numbering of the
 * objects a traversal marked (Note [Ranks from the marks]): a rank for
 * each, from the marks alone, that the dominator tree, the boundary and
 * the retainer paths index their arrays by.
 */
#include <stdlib.h>
#include <string.h>

#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "GrowArray.h"
#include "HeapLookup.h"
#include "Ranks.h"
#include "ReachState.h"
#include "strata/Debug.h"

/* ----------------------------------------------------------------------
 * Dense numbering of the reachable objects
 * ---------------------------------------------------------------------- */

/* Note [Ranks from the marks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The dominator tree and the boundary want an array slot per reachable
 * object.  A hash map from address to index costs 16 bytes an object at
 * full load (more at a usable one); the marks already say which words
 * start a live object, so an object's index is the number of marked words
 * before it: the marks of all earlier blocks, plus those of earlier mark
 * words in its block (a prefix count kept per mark word, 8 bytes per 64
 * heap words), plus a popcount in its own mark word.  Heap objects take
 * ranks [0, n_heap) in address order; the few static closures come after,
 * from a small map. */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The statics of a traversal that kept no order take ranks first + 0, 1,
 * ... in address order. */
static int rank_statics_by_address(DbgReach *r, uint64_t first)
{
    size_t n = r->static_marks.n;
    r->static_addrs = malloc((n ? n : 1) * sizeof *r->static_addrs);
    if (r->static_addrs == NULL)
        return dbg_fail(r->c, "out of memory for object ranks");
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&r->static_marks, &pos, &key, &val))
        r->static_addrs[r->n_static++] = key;
    qsort(r->static_addrs, r->n_static, sizeof *r->static_addrs, cmp_u64);
    for (size_t i = 0; i < r->n_static; i++)
        if (word_map_put(&r->static_rank, r->static_addrs[i], first + i + 1) != 0)
            return dbg_fail(r->c, "out of memory for object ranks");
    return 0;
}

int dbg_reach_rank_build(DbgReach *r)
{
    if (r->rank_base != NULL)
        return 0;
    DbgClient *c = r->c;
    r->rank_base = calloc(r->n_blocks ? r->n_blocks : 1, sizeof *r->rank_base);
    if (r->rank_base == NULL)
        return dbg_fail(c, "out of memory for object ranks");
    r->block_first = malloc((r->n_blocks ? r->n_blocks : 1) * sizeof *r->block_first);
    if (r->block_first == NULL)
        return dbg_fail(c, "out of memory for object ranks");
    uint64_t total = 0;
    for (size_t i = 0; i < r->n_blocks; i++) {
        r->block_first[i] = total;
        if (r->marks[i] == NULL)
            continue;
        size_t nw = (c->blocks[i].used_bytes / 8 + 63) / 64 + 1;
        if ((r->rank_base[i] = malloc(nw * sizeof(uint64_t))) == NULL)
            return dbg_fail(c, "out of memory for object ranks");
        for (size_t k = 0; k < nw; k++) {
            r->rank_base[i][k] = total;
            total += popcount64(r->marks[i][k]);
        }
    }
    r->n_heap = (size_t)total;
    if (r->marks_only)   /* no order: statics by address */
        return rank_statics_by_address(r, total);
    size_t cap = 0;
    for (size_t i = 0; i < r->n; i++) {   /* statics, in discovery order */
        if (dbg_block_of(c, r->order[i]) != NULL)
            continue;
        if (GROW_ARRAY_RESERVE_MIN(r->static_addrs, cap, r->n_static + 1, 64) != 0)
            return dbg_fail(c, "out of memory for object ranks");
        r->static_addrs[r->n_static++] = r->order[i];
        if (word_map_put(&r->static_rank, r->order[i], total++ + 1) != 0)
            return dbg_fail(c, "out of memory for object ranks");
    }
    return 0;
}

size_t dbg_reach_n_ranked(const DbgReach *r)
{
    return r->n_heap + r->n_static;
}

uint64_t dbg_reach_addr(const DbgReach *r, size_t rank)
{
    if (rank >= r->n_heap)
        return rank - r->n_heap < r->n_static ? r->static_addrs[rank - r->n_heap] : 0;
    /* The last block whose first rank is at most rank holds it (a block
     * with no marked object shares its first rank with the next one). */
    size_t lo = 0, hi = r->n_blocks;   /* block_first[lo] <= rank < block_first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->block_first[mid] <= rank)
            lo = mid;
        else
            hi = mid;
    }
    const DbgBlock *b = &r->c->blocks[lo];
    const uint64_t *base = r->rank_base[lo], *m = r->marks[lo];
    size_t nw = (b->used_bytes / 8 + 63) / 64 + 1, wlo = 0, whi = nw;
    while (whi - wlo > 1) {
        size_t mid = wlo + (whi - wlo) / 2;
        if (base[mid] <= rank)
            wlo = mid;
        else
            whi = mid;
    }
    uint64_t bits = m[wlo];
    for (uint64_t k = rank - base[wlo]; k > 0; k--)
        bits &= bits - 1;
    return b->start + ((uint64_t)wlo * 64 + (uint64_t)__builtin_ctzll(bits)) * 8;
}

bool dbg_reach_next(const DbgReach *r, DbgRankIter *it, uint64_t *addr)
{
    while (it->bits == 0) {
        if (it->block >= r->n_blocks) {
            size_t s = it->rank - r->n_heap;
            if (s >= r->n_static)
                return false;
            *addr = r->static_addrs[s];
            it->rank++;
            return true;
        }
        const uint64_t *m = r->marks[it->block];
        size_t nw = m == NULL ? 0 : (r->c->blocks[it->block].used_bytes / 8 + 63) / 64 + 1;
        if (it->word < nw) {
            it->base = it->word;
            it->bits = m[it->word++];
        } else {
            it->block++;
            it->word = 0;
        }
    }
    uint64_t w = (uint64_t)it->base * 64 + (uint64_t)__builtin_ctzll(it->bits);
    it->bits &= it->bits - 1;
    *addr = r->c->blocks[it->block].start + w * 8;
    it->rank++;
    return true;
}

size_t dbg_reach_rank(const DbgReach *r, uint64_t addr)
{
    const DbgBlock *b = block_of(r->c, addr);
    if (b == NULL) {
        uint64_t *v = word_map_get(&r->static_rank, addr);
        return v != NULL ? (size_t)(*v - 1) : SIZE_MAX;
    }
    size_t i = (size_t)(b - r->c->blocks);
    const uint64_t *m = r->marks[i];
    uint64_t w = (addr - b->start) / 8;
    if (addr % 8 != 0 || m == NULL || (m[w / 64] >> (w % 64) & 1) == 0)
        return SIZE_MAX;
    uint64_t below = m[w / 64] & (((uint64_t)1 << (w % 64)) - 1);
    return (size_t)(r->rank_base[i][w / 64] + popcount64(below));
}
