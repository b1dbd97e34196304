/*
 * utils/debug-client/Marks.h -- the graph core's traversal: what the
 * roots reach, marked breadth first keeping the discovery order or depth
 * first keeping only the marks, and the marked objects read back in
 * address order.  The whole API of Marks.c; the traversal's state is
 * ReachState.h's, its dense numbering Ranks.h's, its retainer paths
 * Reach.h's.
 */
#ifndef STRATA_DEBUG_MARKS_H
#define STRATA_DEBUG_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* Marks only (Note [Marks only] in Marks.c): the same reachable set,
 * found depth first, in a fraction of the memory; dbg_reach_objects gives
 * nothing and dbg_search finds nothing: read the objects with
 * dbg_reach_for_each_heap.  What a census needs. */
DbgReach *dbg_reach_marks(DbgClient *c);
void dbg_reach_free(DbgReach *r);
/* Reachable objects in discovery order (heap and static); none for a
 * dbg_reach_marks traversal. */
const uint64_t *dbg_reach_objects(const DbgReach *r, size_t *n);
/* How many objects were reached (heap and static), whatever the mode. */
size_t dbg_reach_count(const DbgReach *r);
/* Calls f on every reachable heap object in address order until f returns
 * non-zero, which is returned (-1 if an object cannot be decoded). */
int dbg_reach_for_each_heap(DbgClient *c, const DbgReach *r,
                            int (*f)(DbgClient *c, const DbgClosure *cl, void *env), void *env);
bool dbg_reach_has(const DbgReach *r, uint64_t addr);
/* Pointers that led nowhere (outside every block and not a static). */
uint64_t dbg_reach_dangling(const DbgReach *r);

/* dbg_reach_for_each_heap over the blocks of era min_era or later only
 * (a block's objects share its era). */
int dbg_reach_for_each_heap_from(DbgClient *c, const DbgReach *r, uint64_t min_era,
                                 int (*f)(DbgClient *c, const DbgClosure *cl, void *env),
                                 void *env);

/* Seeds in this order of root kinds, so that a path ends at the most
 * telling root: the frame or saved object rather than the thread. */
extern const uint8_t dbg_seed_order[5];

/* Marks everything the roots reach: breadth first keeping the order in
 * r->order, or, marks_only, depth first keeping nothing but the marks
 * (Note [Marks only] in Marks.c).  The roots into *roots. */
DbgReach *dbg_reach_traverse(DbgClient *c, bool marks_only, const DbgRoot **roots,
                             size_t *n_roots);

/* The marks-only traversal of Note [Marking in two steps] in Marks.c:
 * each (if not NULL) is called on every heap object as it is scanned
 * (nonzero: stop, failed); objects of blocks of era hold_era or later are
 * marked when met but wait, unscanned (0: none waits).  Then
 * dbg_reach_marks_release scans the waiting objects and what they reach
 * (each called on those too), and dbg_reach_marked_first tells whether an
 * object was marked before that. */
DbgReach *dbg_reach_marks_with(DbgClient *c, uint64_t hold_era,
                               int (*each)(DbgClient *c, const DbgClosure *cl, void *env),
                               void *env);
size_t dbg_reach_n_held(const DbgReach *r);
int dbg_reach_marks_release(DbgReach *r);
bool dbg_reach_marked_first(const DbgReach *r, uint64_t addr);

#endif /* STRATA_DEBUG_MARKS_H */
