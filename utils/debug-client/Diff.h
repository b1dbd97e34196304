/*
 * utils/debug-client/Diff.h -- the diff of two heaps (DiffTypes.h):
 * A's side, B's side, the orders the tools show it in.  The whole API of
 * Diff.c.
 */
#ifndef STRATA_DEBUG_DIFF_H
#define STRATA_DEBUG_DIFF_H

#include <stddef.h>

#include "DebugTypes.h"
#include "DiffTypes.h"

/* A's side: the census of A's live heap (by `by` and by info table).  A may
 * be closed after it. */
int dbg_diff_begin(DbgClient *a, DbgCensusBy by, DbgDiff *out);
/* B's side: B's census, its objects split by A's era, the new objects'
 * retained sizes and paths.  B must stay open while d's paths are used.
 * Refuses a B that is older than A (its era is below A's). */
int dbg_diff_finish(DbgClient *b, DbgDiff *d);
void dbg_diff_free(DbgDiff *d);

/* Rows of the "new and alive" part (new_objects > 0), largest retained
 * size first, then new bytes; and of the survivors (a_objects > 0), most
 * old bytes first.  Indexes into d->infos.rows, malloc'd; NULL on no memory. */
size_t *dbg_diff_new_order(const DbgDiff *d, size_t *n);
size_t *dbg_diff_survivor_order(const DbgDiff *d, size_t *n);

#endif /* STRATA_DEBUG_DIFF_H */
