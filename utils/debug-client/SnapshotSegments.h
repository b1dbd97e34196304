/*
 * utils/debug-client/SnapshotSegments.h -- a snapshot's segments (a
 * heap address, its words and where they came from), and the runs of
 * adjacent saved objects of a block that make one segment each.  Snapshot.c
 * finds the saved objects by walking a block of strata's, GhcSnapshot.c
 * from the marks; both write them with these.  The whole API of
 * SnapshotSegments.c.
 */
#ifndef STRATA_DEBUG_SNAPSHOT_SEGMENTS_H
#define STRATA_DEBUG_SNAPSHOT_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "DebugTypes.h"
#include "DebugWire.h"

/* One segment: addr, u32 words, u8 where (1: a heap block, 2: a static
 * closure), the words; counts it in *count. */
void dbg_snapshot_put_segment(DebugBuf *b, uint64_t addr, uint8_t where, const uint64_t *words,
                              uint64_t n, uint64_t *count);

/* The run being gathered in one block: objects added in address order,
 * each adjacent to the last, make one segment. */
typedef struct {
    DebugBuf *b;
    const DbgBlock *blk;
    uint64_t *count;
    uint64_t run, run_end;       /* word indices in blk: [run, run_end) */
    bool in_run;
} SegmentRun;

void segment_run_start(SegmentRun *s, DebugBuf *b, const DbgBlock *blk, uint64_t *count);
/* Adds the saved object at word k of the block, n_words long. */
void segment_run_add(SegmentRun *s, uint64_t k, uint64_t n_words);
/* Writes the run still open. */
void segment_run_end(SegmentRun *s);

#endif /* STRATA_DEBUG_SNAPSHOT_SEGMENTS_H */
