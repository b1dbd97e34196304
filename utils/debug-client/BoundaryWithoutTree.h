/*
 * utils/debug-client/BoundaryWithoutTree.h -- the era boundary
 * without the heap's dominator tree (Note [A boundary without the
 * dominator tree] in BoundaryWithoutTree.c).  The whole API of
 * BoundaryWithoutTree.c.
 */
#ifndef STRATA_DEBUG_BOUNDARY_WITHOUT_TREE_H
#define STRATA_DEBUG_BOUNDARY_WITHOUT_TREE_H

#include "DebugTypes.h"

/* Note [A boundary without the dominator tree] in BoundaryWithoutTree.c: 1
 * when answered into out (unsorted), 0 when the heap's tree must answer,
 * -1 on an error. */
int dbg_boundary_without_tree(DbgClient *c, const DbgReach *r, const DbgQuery *q,
                              DbgBoundary *out);

#endif /* STRATA_DEBUG_BOUNDARY_WITHOUT_TREE_H */
