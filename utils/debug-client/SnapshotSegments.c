/*
 * utils/debug-client/SnapshotSegments.c -- a snapshot's segments
 * (SnapshotSegments.h).
 */
#include "SnapshotSegments.h"

void dbg_snapshot_put_segment(DebugBuf *b, uint64_t addr, uint8_t where, const uint64_t *words,
                              uint64_t n, uint64_t *count)
{
    debug_buf_put_u64(b, addr);
    debug_buf_put_u32(b, (uint32_t)n);
    debug_buf_put_u8(b, where);
    for (uint64_t i = 0; i < n; i++)
        debug_buf_put_u64(b, words[i]);
    (*count)++;
}

void segment_run_start(SegmentRun *s, DebugBuf *b, const DbgBlock *blk, uint64_t *count)
{
    *s = (SegmentRun){b, blk, count, 0, 0, false};
}

void segment_run_end(SegmentRun *s)
{
    if (!s->in_run)
        return;
    const uint64_t *w = (const uint64_t *)(const void *)s->blk->data;
    dbg_snapshot_put_segment(s->b, s->blk->start + s->run * 8, 1, w + s->run,
                             s->run_end - s->run, s->count);
    s->in_run = false;
}

void segment_run_add(SegmentRun *s, uint64_t k, uint64_t n_words)
{
    if (!s->in_run || k != s->run_end) {
        segment_run_end(s);
        s->run = k;
        s->in_run = true;
    }
    s->run_end = k + n_words;
}
