/*
 * utils/debug-client/Boundary.h -- the era boundary: objects of later
 * eras holding objects of older ones, grouped by the holder's info table
 * and ranked by the old bytes only they keep alive.  The whole API of
 * Boundary.c.
 */
#ifndef STRATA_DEBUG_BOUNDARY_H
#define STRATA_DEBUG_BOUNDARY_H

#include "DebugTypes.h"

int dbg_boundary(DbgClient *c, const DbgDom *d, const DbgQuery *q, DbgBoundary *out);
/* The same answer from a traversal (any: dbg_reach_marks is enough),
 * without the dominator tree unless a holder is reached only through
 * other holders (Note [A boundary without holders] in Boundary.c, Note
 * [A boundary without the dominator tree] in BoundaryWithoutTree.c). */
int dbg_boundary_reach(DbgClient *c, DbgReach *r, const DbgQuery *q, DbgBoundary *out);
void dbg_boundary_free(DbgBoundary *b);

#endif /* STRATA_DEBUG_BOUNDARY_H */
