/*
 * utils/debug-client/DiffNewObjects.h -- B's new objects in a diff:
 * one walk of B that counts it, records a parent per object and gives the
 * new objects' retained sizes; and their retainer paths.  The whole API
 * of DiffNewObjects.c.
 */
#ifndef STRATA_DEBUG_DIFF_NEW_OBJECTS_H
#define STRATA_DEBUG_DIFF_NEW_OBJECTS_H

#include <stdint.h>

#include "DebugTypes.h"
#include "DiffCount.h"
#include "DiffTypes.h"

/* The retainer path of new object addr (a row's example), as dbg_retainer_path. */
int dbg_diff_path(DbgClient *b, const DbgDiff *d, uint64_t addr, DbgPath *out);
/* B's traversal and the walk of Note [Retained by the new objects] in
 * DiffNewObjects.c: counts each reachable heap object of B into k (Note [One
 * walk of B]), fills each row's retained_bytes and example and keeps
 * what dbg_diff_path needs in d->paths. */
int dbg_diff_new_walk(DbgClient *b, DbgDiff *d, DbgDiffCount *k);
void dbg_diff_new_free(DbgDiffNew *n);

#endif /* STRATA_DEBUG_DIFF_NEW_OBJECTS_H */
