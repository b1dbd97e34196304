/*
 * utils/debug-client/DomPrivate.h -- what the dominator tree (Idom.c,
 * Dominators.c) shares with the era boundary (Boundary.c,
 * BoundaryLabels.c): the tree's layout, the topmost walk, and the
 * boundary's groups.
 */
#ifndef STRATA_DEBUG_DOM_PRIVATE_H
#define STRATA_DEBUG_DOM_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ClientPrivate.h"
#include "DebugAnalysis.h"
#include "WordMap.h"

#define NONE UINT32_MAX

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

/* idom as dbg_graph_idom for the CSR graph *offp, *succp, which it frees
 * (and NULLs) once the predecessor lists are built.  rpo (n entries) gets
 * the reachable nodes in reverse postorder, *n_rpo how many. */
int dbg_graph_idom_csr(uint32_t n, uint32_t **offp, uint32_t **succp, uint32_t *idom,
                       uint32_t *rpo, uint32_t *n_rpo);

/* Calls f(v, key[v]) for every node v with a key whose dominator-tree
 * ancestors have none of the same key: the objects of a kind that are not
 * already inside the retained set of another of that kind, so that their
 * retained sizes add up without counting anything twice. */
int dbg_dom_topmost(const DbgDom *d, const uint32_t *key, uint32_t n_keys,
                    void (*f)(uint32_t v, uint32_t key, void *env), void *env);

/* The era boundary's groups, summed over the topmost holders of each. */
typedef struct {
    DbgBoundary *b;
    const uint64_t *old;         /* [n] old-era bytes in the dominator subtree */
    const uint32_t *old_objects;
} BoundaryAdd;
void dbg_boundary_add_holder(uint32_t v, uint32_t key, void *env);

/* What dbg_boundary and dbg_boundary_reach share: the groups, built in
 * rank order so that each group's example is the first holder of its info
 * table. */
typedef struct {
    uint64_t *ptrs;
    size_t ptr_cap;
    WordMap groups;   /* holder info table -> group + 1 */
    size_t cap;       /* of out->groups */
} EdgeScan;
void dbg_edge_scan_free(EdgeScan *e);
/* Adds cl's pointers at reachable objects that q matches to cl's group in
 * out (created on the first); *group is set to that group, or left as it
 * is when cl points at none.  cl is of an era above q's.  0, or -1 when
 * out of C heap. */
int dbg_holder_edges(DbgClient *c, const DbgReach *r, const DbgQuery *q, const DbgClosure *cl,
                     EdgeScan *e, DbgBoundary *out, uint32_t *group);

/* Note [A boundary without the dominator tree] in BoundaryLabels.c: 1
 * when answered into out (unsorted), 0 when the heap's tree must answer,
 * -1 on an error. */
int dbg_boundary_without_tree(DbgClient *c, const DbgReach *r, const DbgQuery *q,
                              DbgBoundary *out);

#endif /* STRATA_DEBUG_DOM_PRIVATE_H */
