/*
 * strata/Block.h -- the block descriptor, the one storage-manager type shared
 * across modules (docs/HACKING.md, Module boundaries), and the address arithmetic that finds it.
 *
 * Layout and flags follow GHC's bdescr (docs/reference/storage.md), except that
 * the 12 bytes GHC leaves as padding hold the block's era here.  See
 * docs/design/eras.md and Note [Eras live in block descriptors] in sm/heap/Era.c.
 */
#ifndef STRATA_BLOCK_H
#define STRATA_BLOCK_H

#include "strata/Config.h"

struct Generation_;

typedef struct BlockDesc_ {
    StgPtr start;               /* first word of the block (or group); fixed */
    StgPtr free;                /* first free word; (StgPtr)-1 while the group
                                   is on a free list (.inv.free-marker) */
    struct BlockDesc_ *link;    /* next group on whatever list owns this one */
    union {
        struct BlockDesc_ *back; /* free lists: previous group (doubly linked) */
        StgPtr scan;            /* GC to-space: next word to scavenge */
        uint8_t *cards;         /* unused slot kept for GHC layout parity */
    } u;
    struct Generation_ *gen;    /* owning generation, NULL when not in a heap */
    uint16_t gen_no;            /* gen->no, cached for the GC's fast paths */
    uint16_t dest_no;           /* generation that survivors of this block go to */
    uint16_t pad_node;          /* GHC's NUMA node, always 0 here, except in
                                   a segment of the non-moving generation:
                                   the block's index in its segment (Note
                                   [Segments] in sm/heap/Segment.h) */
    uint16_t flags;             /* BF_* below */
    uint32_t blocks;            /* group size in blocks (head only); 0 on the
                                   tail descriptor of a free group */
    uint32_t n_era_runs;        /* era runs at the end of a single block
                                   whose objects are of several eras (Note
                                   [Blocks of several eras] in sm/block/EraRuns.h);
                                   0 for a block of one era and every group */
    uint64_t era;               /* era of the group's objects, or of the first
                                   run's; 0 = not counted by -he
                                   (.inv.block-era) */
} BlockDesc;

/* Block flags: GHC's numbers where GHC has the flag. */
#define BF_EVACUATED 1      /* large/pinned group already kept alive in this GC */
#define BF_LARGE 2          /* one large object; relinked, never copied */
#define BF_PINNED 4         /* pinned byte arrays; never moved */
#define BF_MARKED 8         /* (unused; GHC's mark bit) */
#define BF_EXEC 32          /* (unused) */
#define BF_FRAGMENTED 64    /* (unused) */
#define BF_KNOWN 128        /* sanity checker scratch: block seen in a list */
#define BF_NURSERY 256      /* a nursery block (strata-specific number) */
#define BF_SCANQ 512        /* GC: on the to-space scan queue (strata) */
#define BF_TOSPACE 1024     /* GC: to-space of the collection in progress */
#define BF_NM_TODO 16       /* GC: a list of copies into the non-moving
                               generation still to scan (strata) */
#define BF_NONMOVING 2048   /* in the non-moving generation: a block of a
                               segment, or with BF_LARGE or BF_PINNED a
                               group of it (strata; GHC's number is 1024) */
/* A large or pinned group of the non-moving generation keeps the epoch of
 * the cycle that last marked it in these two bits (Note [Mark epochs] in
 * sm/NonMoving.c); 0 elsewhere. */
#define BF_NM_EPOCH_SHIFT 12
#define BF_NM_EPOCH_MASK (3u << BF_NM_EPOCH_SHIFT)

_Static_assert(sizeof(BlockDesc) == BDESCR_SIZE, "BlockDesc must be 64 bytes");

/* The descriptor of the block holding address p.  Valid for any address
 * inside a heap megablock's usable area. */
static inline BlockDesc *Bdescr(const void *p)
{
    StgWord w = (StgWord)p;
    return (BlockDesc *)((w & ~MBLOCK_MASK) |
                         ((w & MBLOCK_MASK & ~BLOCK_MASK) >> (BLOCK_SHIFT - BDESCR_SHIFT)));
}

/* The first usable block and its descriptor in the megablock at mb. */
#define MBLOCK_FIRST_BLOCK(mb) ((void *)((char *)(mb) + FIRST_BLOCK_OFF))
#define MBLOCK_FIRST_BDESCR(mb) Bdescr(MBLOCK_FIRST_BLOCK(mb))

/* Bytes of a group of n blocks when it spans whole megablocks: the first
 * megablock gives 252 blocks, every further one a full 256. */
#define MBLOCK_GROUP_BLOCKS(n_mblocks) \
    (BLOCKS_PER_MBLOCK + (StgWord)((n_mblocks) - 1) * (MBLOCK_SIZE / BLOCK_SIZE))

#endif /* STRATA_BLOCK_H */
