/*
 * sm/heap/Nursery.h -- each capability's nursery: single blocks allocated
 * into in order, each taking the current era when allocation into it
 * starts.  The allocation slow path (sm/alloc/) moves on to the next
 * block; the collector syncs, counts and resets them.
 * See docs/design/storage.md.
 */
#ifndef STRATA_NURSERY_H
#define STRATA_NURSERY_H

#include <stdbool.h>

#include "Capability.h"

/* Gives cap a nursery of n_blocks single blocks (storage_init). */
bool storage_nursery_create(Capability *cap, StgWord n_blocks);

/* Copies each capability's bump pointer into its current nursery block's
 * free field (before the heap is walked; the world must be stopped).  One
 * capability's: capability_sync_nursery (Capability.h). */
void storage_sync_nursery(void);

/* Empties every nursery after a GC and starts allocation at its first
 * block (the world stopped). */
void storage_reset_nursery(void);

/* Bytes allocated in the nurseries (or cap's) since they were last reset. */
StgWord storage_nursery_allocated_bytes(void);
StgWord storage_nursery_allocated_bytes_of(Capability *cap);

/* Blocks in all the nurseries. */
StgWord storage_nursery_blocks(void);

/* Moves cap's allocation to its next nursery block, or returns false when
 * the nursery is exhausted. */
bool nursery_next_block(Capability *cap);

#endif /* STRATA_NURSERY_H */
