/*
 * sm/block/BlockAlloc.h -- the block allocator: groups of 4 KiB blocks carved
 * from megablocks, kept on free lists bucketed by log2 of the group size,
 * coalesced with free neighbours when freed (docs/reference/storage.md).
 * Design and invariants: docs/design/block-allocator.md.
 *
 * Not thread-safe: callers serialise.  Memory of freed blocks stays
 * committed until the megablock layer's mblock_return_free gives whole
 * free megablocks back to the OS.
 *
 * Caller contract (.inv.free-marker): never store (StgPtr)-1 in the free
 * field of any descriptor; the allocator reserves that value to mark free
 * groups.  Descriptors other than a group's head are the caller's to use
 * while the group is allocated; the allocator does not read them.
 */
#ifndef STRATA_BLOCKALLOC_H
#define STRATA_BLOCKALLOC_H

#include <stdint.h>

#include "strata/Block.h"

/* The byte that debug builds (STRATA_DEBUG >= 2) fill memory with when it
 * stops holding live objects: freed blocks here, the nursery after each
 * GC (sm/GC.c).  A word read through a stale pointer is HEAP_POISON_WORD.
 * See Note [Poisoning free blocks] in BlockAlloc.c. */
#define HEAP_POISON_BYTE 0xaa
#define HEAP_POISON_WORD ((StgWord)0xaaaaaaaaaaaaaaaaULL)

/* Empties the free lists and counters.  mblock_init must have succeeded
 * first, and no megablocks may be in use yet (else panic).  Calls nothing
 * but the megablock layer. */
void block_alloc_init(void);

/* A group of n >= 1 contiguous blocks; n > BLOCKS_PER_MBLOCK gives a
 * megablock group.  The head descriptor is initialised: start, free =
 * start, link = NULL, blocks = n, flags = 0, gen = NULL, gen_no = dest_no
 * = 0, era = 0 (and u, pad_node, n_era_runs = 0).  Only the head describes the
 * group (objects in a group start at its first block, so Bdescr of an
 * object is its head); the group's other descriptors hold unspecified
 * values.  The blocks' contents are unspecified (not zeroed).  A group of
 * n <= 252 blocks lies within one megablock; a megablock group starts at
 * its first megablock's first block and its head is that megablock's
 * first descriptor.  Returns NULL, changing nothing, when no memory can be
 * had from the OS or the reservation.  O(1) for n <= 252 unless a fresh
 * megablock is needed.  n == 0 is a bug (panic). */
BlockDesc *block_alloc_group(StgWord n);

/* Frees a group (its head descriptor, with blocks as it was allocated);
 * coalesces with free neighbours and returns whole free megablocks to the
 * megablock free list.  A group is freed whole: its pieces would each be
 * counted out of the young-group map (Note [The young-group map]).
 * Freeing a group twice panics where it can be detected. */
void block_free_group(BlockDesc *bd);

/* Note [The young-group map]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * For each megablock, the number of allocated groups in it whose head has
 * gen_no 0 (block_young_map_biased, indexed by an address >> MBLOCK_SHIFT).
 * A group starts at gen_no 0 (block_alloc_group), so it is counted from
 * the start; block_set_gen_no keeps the count as the group changes
 * generation and block_free_group takes it off.  So a megablock whose
 * count is 0 holds no object of generation 0, and a minor collection can
 * tell that an object is old from one byte, which stays in cache, instead
 * of from its block's descriptor, a cache miss on a large heap (Note [Old
 * objects by their megablock] in sm/Evac.h).  Every write of a head's
 * gen_no goes through block_set_gen_no (.inv.young-map in
 * docs/design/block-allocator.md).  Counts change by atomic increments: GC
 * threads set the generation of the blocks they fill without the
 * allocator's lock.  At most 252 groups fit in a megablock, so a byte
 * holds a count.
 *
 * A group that holds pointers rather than heap objects (a chunk of a
 * mutable list, a GC thread's list of the copies it made into the
 * non-moving generation) takes BLOCK_GEN_NO_POINTERS, so that it is not
 * counted: nothing points into it, and counted it made its megablock read
 * as young to every minor collection while it was allocated.  Under
 * --nonmoving-gc a minor collection's lists of copies come from the free
 * blocks among the generation's segments, so the card scan of an old
 * array read a descriptor for 28% of its elements instead of 3%
 * (mutarray 2000000; bench/optimisations.md, "issue 50, session 7"). */
extern StgWord block_young_map_biased;

/* The gen_no of a group of pointers (above): no generation's. */
#define BLOCK_GEN_NO_POINTERS UINT16_MAX

/* The count for p's megablock in a map biased as block_young_map_biased. */
static inline uint8_t *block_young_count_at(StgWord biased_map, const void *p)
{
    return (uint8_t *)(biased_map + ((StgWord)p >> MBLOCK_SHIFT));
}

/* Sets the generation number in the head of an allocated group. */
void block_set_gen_no(BlockDesc *bd, uint16_t gen_no);

/* The count for p's megablock (for checks). */
unsigned block_young_groups_in_mblock(const void *p);

/* Frees every group on a NULL-terminated list linked through ->link. */
void block_free_chain(BlockDesc *bd);

StgWord block_n_allocated(void);   /* blocks currently handed out (a megablock
                                      group counts as the n requested) */
StgWord block_n_free(void);        /* blocks on the free lists */

/* Panics (rts_panic) if a free list is inconsistent: wrong bucket, a
 * group not marked free, uncoalesced neighbours, bad tail descriptor,
 * or counts that do not balance with the megablocks in use. */
void block_check(void);

#endif /* STRATA_BLOCKALLOC_H */
