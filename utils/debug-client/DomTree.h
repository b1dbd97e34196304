/*
 * utils/debug-client/DomTree.h -- the layout of the heap's dominator
 * tree (Dominators.c), which the era boundary (Boundary.c,
 * BoundaryWithoutTree.c) reads.  Types only.
 */
#ifndef STRATA_DEBUG_DOM_TREE_H
#define STRATA_DEBUG_DOM_TREE_H

#include <stdint.h>

#include "DebugTypes.h"

/* Node 0 is a virtual root pointing at every root's closure; node k + 1 is
 * the reachable object of rank k (dbg_reach_rank).  See Note [Dominator
 * memory]. */
struct DbgDom {
    DbgClient *c;
    DbgReach *r;
    uint32_t n;                  /* nodes, the virtual root included */
    uint32_t *idom;              /* [n] immediate dominator (node 0: itself) */
    uint32_t *rpo;               /* [n_rpo] reverse postorder: a dominator before
                                  * everything it dominates */
    uint32_t n_rpo;
    uint64_t *retained;          /* [n] bytes in its dominator subtree */
    uint32_t *retained_objects;  /* [n] heap objects in its dominator subtree */
};

#endif /* STRATA_DEBUG_DOM_TREE_H */
