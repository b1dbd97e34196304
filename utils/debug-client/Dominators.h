/*
 * utils/debug-client/Dominators.h -- the dominator tree of the live
 * heap and what it answers: retained sizes, the census by retained size,
 * the objects that keep the most.  The whole API of Dominators.c.
 */
#ifndef STRATA_DEBUG_DOMINATORS_H
#define STRATA_DEBUG_DOMINATORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* The dominator tree of the reachable heap, with a virtual root holding
 * every root's closure.  An object's retained size is its own bytes plus
 * those of every object it dominates: what would be freed if it died.
 * Static closures count 0 bytes (they are not in the heap).  r may come
 * from any traversal (the marks of dbg_reach_marks are enough).  Valid
 * while r is; NULL on failure. */
DbgDom *dbg_dominators(DbgClient *c, DbgReach *r);
/* The same; with sums false, without the retained sizes (12 bytes an
 * object less): dbg_dom_retained then answers 0, and only dbg_dom_idom and
 * dbg_boundary may be asked. */
DbgDom *dbg_dominators_opts(DbgClient *c, DbgReach *r, bool sums);
void dbg_dom_free(DbgDom *d);
/* An object's retained bytes (0 if not reachable). */
uint64_t dbg_dom_retained(const DbgDom *d, uint64_t addr);
/* Its immediate dominator's address; 0 when only the roots dominate it. */
uint64_t dbg_dom_idom(const DbgDom *d, uint64_t addr);

/* The census of dbg_census with each bucket's retained_bytes: the bytes
 * freed if every object of that label died and nothing else changed, as
 * far as single objects decide it: the union of the dominator subtrees of
 * the label's objects (an object dominated by another of its label counts
 * once, inside it).  Memory kept alive only jointly by two objects of the
 * label (reached through either) is not in it.  Buckets are ordered by
 * retained bytes, largest first. */
int dbg_census_retained(DbgClient *c, const DbgReach *r, const DbgDom *d, DbgCensusBy by,
                        const DbgEraRange *eras, DbgCensus *out);

typedef struct {
    uint64_t addr;
    uint64_t retained_bytes, retained_objects, own_bytes;
    uint64_t idom;               /* its immediate dominator, 0 for the roots */
} DbgDomEntry;
/* The objects that retain the most, largest first, at most cap.  An object
 * whose immediate dominator has the same info table is left out: the head
 * of a linked list stands for the list. */
int dbg_dom_top(DbgClient *c, const DbgDom *d, DbgDomEntry *out, size_t cap, size_t *n);

/* Calls f(v, key[v]) for every node v with a key whose dominator-tree
 * ancestors have none of the same key: the objects of a kind that are not
 * already inside the retained set of another of that kind, so that their
 * retained sizes add up without counting anything twice. */
int dbg_dom_topmost(const DbgDom *d, const uint32_t *key, uint32_t n_keys,
                    void (*f)(uint32_t v, uint32_t key, void *env), void *env);

#endif /* STRATA_DEBUG_DOMINATORS_H */
