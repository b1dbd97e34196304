/*
 * utils/debug-client/Ranks.h -- the graph core's dense numbering of
 * the objects a traversal marked (Note [Ranks from the marks] in
 * Ranks.c), and the marked objects in rank order.  The whole API of
 * Ranks.c.
 */
#ifndef STRATA_DEBUG_RANKS_H
#define STRATA_DEBUG_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ClientState.h"
#include "Decode.h"
#include "ReachState.h"

/* Dense numbering of a traversal's reachable objects, 0 .. n-1 (heap
 * objects in address order, then statics); see Note [Ranks from the marks]
 * in Ranks.c.  Build once, then dbg_reach_rank gives SIZE_MAX for an
 * address that is not a reachable object. */
int dbg_reach_rank_build(DbgReach *r);
size_t dbg_reach_rank(const DbgReach *r, uint64_t addr);
/* Ranked objects (heap and static), and the address of rank k (binary
 * search over the blocks' first ranks, then the block's mark words; 0
 * past the end). */
size_t dbg_reach_n_ranked(const DbgReach *r);
uint64_t dbg_reach_addr(const DbgReach *r, size_t rank);
/* The reachable objects in rank order: heap objects in address order,
 * then statics.  Start from a zeroed iterator; false when done. */
typedef struct {
    size_t block, word, base, rank;
    uint64_t bits;
} DbgRankIter;
bool dbg_reach_next(const DbgReach *r, DbgRankIter *it, uint64_t *addr);
/* dbg_closure of the object dbg_reach_next just gave, without looking
 * its block up again: the iterator is in it (a static past the blocks). */
static inline int dbg_reach_closure(DbgClient *c, const DbgRankIter *it, uint64_t addr,
                                    DbgClosure *out)
{
    return it->block < c->n_blocks ? dbg_closure_in(c, &c->blocks[it->block], addr, out)
                                   : dbg_closure(c, addr, out);
}


/* The rank of a marked heap object at addr in block i (b). */
static inline size_t rank_in(const DbgReach *r, size_t i, const DbgBlock *b, uint64_t addr)
{
    uint64_t w = (addr - b->start) / 8;
    uint64_t below = r->marks[i][w / 64] & (((uint64_t)1 << (w % 64)) - 1);
    return (size_t)(r->rank_base[i][w / 64] + popcount64(below));
}

#endif /* STRATA_DEBUG_RANKS_H */
