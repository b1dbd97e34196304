/*
 * utils/debug-client/DiffPrivate.h -- what Diff.c (the censuses) and
 * DiffNew.c (the walk over B's new objects) share.
 */
#ifndef STRATA_DIFFPRIVATE_H
#define STRATA_DIFFPRIVATE_H

#include "ClientPrivate.h"
#include "DebugDiff.h"

/* The walk of Note [Retained by the new objects] in DiffNew.c over B's
 * traversal r (marks): fills each row's retained_bytes and example and
 * keeps what dbg_diff_path needs in d->paths.  row_of_info maps an info
 * table's address to its row in d->infos, plus 1. */
int dbg_diff_new_walk(DbgClient *b, DbgDiff *d, DbgReach *r, const WordMap *row_of_info);
void dbg_diff_new_free(DbgDiffNew *n);

#endif /* STRATA_DIFFPRIVATE_H */
