/*
 * sm/heap/HeapIter.c -- the walk over the heap's block groups (see HeapIter.h).
 * Reads the storage manager's lists; changes nothing but the current
 * nursery block's free pointer (synced from the allocation register, so
 * that every nursery block's free is exact: .inv.nursery-free).
 */
#include "HeapIter.h"

#include "Nursery.h"
#include "Segment.h"

void heap_for_each_block(HeapBlockFn fn, void *ctx)
{
    storage_sync_nursery();
    for (unsigned g = 0; g < storage_n_gens; g++) {
        Generation *gen = &storage_gens[g];
        for (BlockDesc *bd = gen->blocks; bd != NULL; bd = bd->link)
            fn(bd, HEAP_BLOCK_SMALL, gen, ctx);
        for (BlockDesc *bd = gen->segments; bd != NULL; bd = bd->link)
            fn(bd, HEAP_BLOCK_SEGMENT, gen, ctx);
        for (BlockDesc *bd = gen->large_objects; bd != NULL; bd = bd->link)
            fn(bd, (bd->flags & BF_PINNED) ? HEAP_BLOCK_PINNED : HEAP_BLOCK_LARGE, gen, ctx);
    }
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link)
            fn(bd, HEAP_BLOCK_NURSERY, &storage_gens[0], ctx);
        if (cap->pinned_block != NULL)
            fn(cap->pinned_block, HEAP_BLOCK_PINNED, &storage_gens[0], ctx);
    }
}

void heap_block_objects(const BlockDesc *bd, HeapBlockKind kind, StgPtr *start, StgPtr *end)
{
    if (kind == HEAP_BLOCK_SEGMENT) {
        const Segment *seg = (const Segment *)bd->start;
        *start = seg->slots;
        *end = segment_slots_end(seg);
        return;
    }
    *start = bd->start;
    *end = bd->free;
}
