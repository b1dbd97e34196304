/*
 * sm/heap/HeapIter.h -- the one walk over the heap's blocks and objects, used
 * by the census (profiling/Census.c), the heap debugger's stub
 * (rts/debug/DebugHeap.c) and the sanity checker (sm/Sanity.c), so that
 * all three see the same blocks, the nursery included.
 */
#ifndef STRATA_HEAPITER_H
#define STRATA_HEAPITER_H

#include "Heap.h"

typedef enum {
    HEAP_BLOCK_SMALL,      /* a generation's small-object block */
    HEAP_BLOCK_LARGE,      /* a large-object group (one object) */
    HEAP_BLOCK_PINNED,     /* a pinned block, retired or the open one */
    HEAP_BLOCK_NURSERY,    /* a nursery block; past the current one, empty */
    HEAP_BLOCK_SEGMENT,    /* a segment of the non-moving generation (its
                              head): objects lie in segment_slots ..
                              segment_slots_end, slop between them, and
                              its mark bytes say which are allocated
                              (Note [Segments] in Segment.h) */
} HeapBlockKind;

/* Called once per block group; gen is the generation whose list holds it
 * (generation 0 for the nursery and the open pinned block). */
typedef void (*HeapBlockFn)(BlockDesc *bd, HeapBlockKind kind, Generation *gen, void *ctx);

/* Syncs the nursery's free pointer, then calls fn on every group holding
 * heap objects: each generation's small blocks, segments, and large and
 * pinned groups, every nursery block, and the open pinned block, in that
 * order.  Objects lie in [bd->start, bd->free) of each but a segment
 * (heap_block_objects).  fn must not allocate. */
void heap_for_each_block(HeapBlockFn fn, void *ctx);

/* Where the objects of a group of kind kind lie: [*start, *end). */
void heap_block_objects(const BlockDesc *bd, HeapBlockKind kind, StgPtr *start, StgPtr *end);

/* The object after the one at p (size_words long), skipping the zero words
 * of slop that may follow an object in a block; returns end if none. */
static inline StgPtr heap_next_object(StgPtr p, StgWord size_words, StgPtr end)
{
    p += size_words;
    while (p < end && *p == 0)
        p++;
    return p;
}

/* The first object of [start, end), skipping slop; end if none. */
static inline StgPtr heap_first_object(StgPtr start, StgPtr end)
{
    return heap_next_object(start, 0, end);
}

#endif /* STRATA_HEAPITER_H */
