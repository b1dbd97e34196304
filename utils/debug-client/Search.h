/*
 * utils/debug-client/Search.h -- the objects a query matches, among
 * those a traversal reached, and the live constructor names nearest to
 * one that matched nothing.  The whole API of Search.c.
 */
#ifndef STRATA_DEBUG_SEARCH_H
#define STRATA_DEBUG_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

bool dbg_query_matches(const DbgQuery *q, const DbgClosure *cl);
/* Reachable heap objects matching q, in discovery order, at most cap. */
int dbg_search(DbgClient *c, const DbgReach *r, const DbgQuery *q, uint64_t *out, size_t cap,
               size_t *n);

/* A constructor name of the live heap and its edit distance to a query. */
typedef struct {
    const char *name;            /* an info table's name or closure description */
    size_t distance;             /* insertions, deletions, substitutions */
} DbgNameMatch;

/* The distinct names a DBG_MATCH_CONSTRUCTOR query can match among the
 * reachable heap objects, nearest to name first (ties by name), at most
 * cap of them into out; *n is how many there are in all.  Distance 0
 * means some live constructor has exactly that name.  For "did you mean"
 * when a search finds nothing.  Names stay valid until dbg_close. */
int dbg_constructor_names_near(DbgClient *c, const DbgReach *r, const char *name,
                               DbgNameMatch *out, size_t cap, size_t *n);

#endif /* STRATA_DEBUG_SEARCH_H */
