/*
 * utils/debug-client/GhcSnapshot.h -- the heap blocks' part of a snapshot
 * of a GHC program, taken from the traversal's marks (Note [Snapshots of
 * a GHC heap] in GhcSnapshot.c).  The whole API of GhcSnapshot.c.
 */
#ifndef STRATA_DEBUG_GHC_SNAPSHOT_H
#define STRATA_DEBUG_GHC_SNAPSHOT_H

#include <stdint.h>

#include "DebugTypes.h"
#include "DebugWire.h"
#include "WordMap.h"

/* The segments of every block's saved objects (reached in r, or in
 * weak_kept), a pinned block with any whole (marked in pinned_done[i]);
 * counts them in *n_segments.  0, or -1 (said through dbg_fail). */
int ghc_put_block_segments(DbgClient *c, const DbgReach *r, DebugBuf *b, const WordMap *weak_kept,
                           uint8_t *pinned_done, uint64_t *n_segments);

#endif /* STRATA_DEBUG_GHC_SNAPSHOT_H */
