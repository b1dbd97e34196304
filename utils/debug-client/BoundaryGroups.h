/*
 * utils/debug-client/BoundaryGroups.h -- what both ways of
 * finding the era boundary share (Boundary.c with the heap's dominator
 * tree, BoundaryWithoutTree.c without it): the holders' edges grouped by
 * info table, and the groups summed over their topmost holders.  The
 * whole API of BoundaryGroups.c.
 */
#ifndef STRATA_DEBUG_BOUNDARY_GROUPS_H
#define STRATA_DEBUG_BOUNDARY_GROUPS_H

#include <stdint.h>

#include "DebugTypes.h"
#include "WordMap.h"

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

#endif /* STRATA_DEBUG_BOUNDARY_GROUPS_H */
