/*
 * sm/heap/Nursery.h -- each capability's nursery: single blocks allocated
 * into in order, each taking the current era when allocation into it
 * starts.  The allocation slow path (sm/alloc/Storage.c) moves on to the
 * next block; the collector syncs, counts and resets them.
 * See docs/design/storage.md.
 */
#ifndef STRATA_NURSERY_H
#define STRATA_NURSERY_H

#include <stdbool.h>

#include "AllocLimit.h"
#include "Capability.h"
#include "Era.h"

/* Gives cap a nursery of n_blocks single blocks (storage_init). */
bool storage_nursery_create(Capability *cap, StgWord n_blocks);

/* Copies each capability's bump pointer into its current nursery block's
 * free field (before the heap is walked; the world must be stopped).  One
 * capability's: capability_sync_nursery (Capability.h). */
void storage_sync_nursery(void);

/* Empties every nursery after a GC and starts allocation at its first
 * block (the world stopped). */
void storage_reset_nursery(void);

/* How many of cap's nursery blocks hold objects (the world stopped, the
 * nursery synced). */
StgWord storage_nursery_used_blocks(const Capability *cap);

/* Takes cap's nursery blocks that hold objects out of its nursery and puts
 * blocks from *fresh (a chain of single free blocks, at least
 * storage_nursery_used_blocks(cap) long) in their places; returns the
 * taken blocks, linked by ->link, each with its free pointer and era runs
 * as they were.  *fresh is left at the first block not used.  The world
 * is stopped; storage_reset_nursery must run before allocation resumes. */
BlockDesc *storage_nursery_swap_used(Capability *cap, BlockDesc **fresh);

/* Bytes allocated in the nurseries (or cap's) since they were last reset. */
StgWord storage_nursery_allocated_bytes(void);
StgWord storage_nursery_allocated_bytes_of(Capability *cap);

/* Sends the survivors of every nursery block to generation dest (its
 * blocks' dest_no; Note [Counting the nursery] in Nursery.c).  The world
 * is stopped. */
void storage_nursery_set_dest(uint16_t dest);

/* Sends the survivors of the last 1/share of the blocks each nursery
 * used (its youngest objects) to generation to_sample and the others' to
 * dest, until the next storage_nursery_set_dest: a probe of adaptive
 * aging that ages a sample (Note [A probe that ages a sample] in
 * Tenure.c).  The world is stopped. */
void storage_nursery_set_sample_dest(unsigned share, uint16_t to_sample, uint16_t dest);

/* The destination last set (of the blocks outside a sample). */
uint16_t storage_nursery_dest(void);

/* Blocks in all the nurseries. */
StgWord storage_nursery_blocks(void);

/* Blocks in one capability's nursery (the largest): what one busy thread
 * fills between two GCs, however many capabilities there are. */
StgWord storage_nursery_largest_blocks(void);

/* Starts allocation into bd, stamped with the current era (.inv.block-era).
 * Inline: the allocation slow path enters a block per 4 KiB allocated. */
static inline void nursery_enter_block(Capability *cap, BlockDesc *bd)
{
    cap->nursery.current = bd;
    bd->free = bd->start;
    bd->era = storage_era_now();
    bd->n_era_runs = 0;
    cap->regs->hp = bd->start;
    __atomic_store_n(&cap->regs->hp_lim, alloc_limit_clamp(cap, bd->start + BLOCK_SIZE_W),
                     __ATOMIC_RELAXED);
}

#endif /* STRATA_NURSERY_H */
