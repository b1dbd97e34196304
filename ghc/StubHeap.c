/*
 * ghc/StubHeap.c -- the block requests for a GHC heap: BLOCKS,
 * BLOCK_CONTENTS and the SNAPSHOT stream, from StubView.c's block list.
 * Blocks carry no era here: a GHC object's era, where there is one, is in
 * its profiling header (DEBUG_HEAP_ERAS_IN_HEADERS).  Block flags are
 * strata's BF_* and GHC's differ, so none are sent; the kind says what a
 * client needs.  See docs/design/ghc-stub.md.
 */
#include "GhcStub.h"

#include <stdio.h>
#include <string.h>

void stub_put_blocks(DebugBuf *out)
{
    debug_buf_put_u32(out, (uint32_t)stub_view.n_blocks);
    for (size_t i = 0; i < stub_view.n_blocks; i++) {
        const StubBlock *b = &stub_view.blocks[i];
        debug_buf_put_u64(out, (uint64_t)(uintptr_t)b->start);
        debug_buf_put_u64(out, 0);   /* era */
        debug_buf_put_u64(out, b->used);
        debug_buf_put_u32(out, b->n_blocks);
        debug_buf_put_u16(out, 0);   /* flags */
        debug_buf_put_u16(out, b->gen);
        debug_buf_put_u8(out, b->kind);
        for (int k = 0; k < 7; k++)
            debug_buf_put_u8(out, 0);
    }
}

static void put_contents(DebugBuf *out, const StubBlock *b)
{
    debug_put_block_contents(out, (uint64_t)(uintptr_t)b->start, b->used, b->start);
}

int stub_block_contents(uint64_t start, DebugBuf *out, char *err, size_t err_len)
{
    const StubBlock *b = stub_view_block_at(start);
    if (b == NULL) {
        snprintf(err, err_len, "block-contents: 0x%llx is not the start of a block in use",
                 (unsigned long long)start);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    put_contents(out, b);
    return DEBUG_STATUS_OK;
}

/* The SNAPSHOT stream's source: the view's blocks and the roots. */
static void snapshot_blocks(void *env, DebugBuf *out)
{
    (void)env;
    stub_put_blocks(out);
}

static void snapshot_roots(void *env, DebugBuf *out)
{
    (void)env;
    stub_put_roots(out);
}

static void snapshot_block(void *env, size_t i, uint64_t *start, uint64_t *used,
                           const void **bytes)
{
    (void)env;
    const StubBlock *b = &stub_view.blocks[i];
    *start = (uint64_t)(uintptr_t)b->start;
    *used = b->used;
    *bytes = b->start;
}

bool stub_snapshot(const DebugConn *c)
{
    DebugSnapshotSource s = {snapshot_blocks, snapshot_roots, stub_view.n_blocks,
                             snapshot_block, NULL};
    return debug_send_snapshot(c, &s);
}
