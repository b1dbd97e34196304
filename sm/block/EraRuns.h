/*
 * sm/block/EraRuns.h -- blocks whose objects are of several eras.
 *
 * Note [Blocks of several eras]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A block normally holds objects of one era, its descriptor's
 * (Note [Eras live in block descriptors] in sm/heap/Era.c).  Giving every era
 * a block of its own costs a block per live era per generation and a fresh
 * nursery block per era change, which is what made 20,000 one-object eras
 * take a block each (docs/design/eras.md).  So a single block may also hold its objects in *era runs*:
 * the objects from the block's start up to the first run's offset are of
 * bd->era; those of run i, from its offset up to the next run's (or the
 * block's free pointer), are of run i's era.  The runs are kept in the
 * block itself, at its end, growing down (run 0 in the last word), and
 * bd->n_era_runs counts them, so the block's objects end below
 *
 *     block_alloc_limit(bd) = bd->start + BLOCK_SIZE_W - n_era_runs.
 *
 * Two writers make such blocks:
 *  - the nursery: an era change appends a run at hp instead of retiring
 *    the block, so changing era costs a word, not the rest of a block;
 *  - the collector's shared to-space block of each generation, which takes
 *    the objects of eras with too little live data for a block of their
 *    own (Note [Where a copy goes] in Evac.c).
 * Large objects, pinned blocks and multi-block groups never have runs.
 * Everything that reads an object's era goes through block_era_at (or
 * walks the segments), and a block without runs costs nothing more than
 * before: n_era_runs == 0 is the fast case everywhere.
 * .inv.era-runs: runs' offsets increase, lie in [1, free - start], and
 * each era is at most the highest era ever current.
 *
 * Note [A run's era is relative to its block's]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A run record keeps its era as its difference from bd->era, the era of
 * the block's first objects, in 48 bits, two's complement: any era within
 * 2^47 of the block's own, whatever its size.  An absolute era in 48 bits
 * held only the eras below 2^48, and eras taken from a clock (nanoseconds
 * since 1970 are above 2^60) each got a block of their own (20,000
 * one-object eras: docs/design/eras.md has the figures).  The eras
 * in one block are those current while it was filled (the nursery) or
 * copied into it in one GC (the shared to-space block), so they are close
 * together; one that is not (era 1 beside era 2^60) still gets a block of
 * its own.  bd->era does not change while the block has runs (it is
 * restamped only when the block is empty and has none), so a record reads
 * the same for as long as it lives.
 */
#ifndef STRATA_ERARUNS_H
#define STRATA_ERARUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "strata/Block.h"

/* A run record is one word: in the high 48 bits the era less bd->era,
 * two's complement (Note [A run's era is relative to its block's]), in
 * the low 16 the offset (in words from bd->start, below BLOCK_SIZE_W).  An
 * era further than ERA_RUN_MAX_DISTANCE from bd->era gets a block of its
 * own instead of a run. */
typedef StgWord EraRun;

#define ERA_RUN_WORDS 1
#define ERA_RUN_OFFSET_BITS 16
#define ERA_RUN_MAX_DISTANCE (((uint64_t)1 << (64 - ERA_RUN_OFFSET_BITS - 1)) - 1)

_Static_assert(BLOCK_SIZE_W < ((StgWord)1 << ERA_RUN_OFFSET_BITS),
               "a block's word offsets fit in a run record");
_Static_assert((-1 >> 1) == -1, "a signed right shift keeps the sign (era_run_era)");

static inline StgWord era_run_offset(EraRun r)
{
    return r & (((StgWord)1 << ERA_RUN_OFFSET_BITS) - 1);
}

/* The era of run r of bd. */
static inline uint64_t era_run_era(const BlockDesc *bd, EraRun r)
{
    return bd->era + (uint64_t)((int64_t)r >> ERA_RUN_OFFSET_BITS);
}

/* Whether a run of bd can hold era: within ERA_RUN_MAX_DISTANCE of bd->era
 * either way (the difference taken modulo 2^64). */
static inline bool era_run_holds(const BlockDesc *bd, uint64_t era)
{
    return era - bd->era + ERA_RUN_MAX_DISTANCE + 1 <= 2 * ERA_RUN_MAX_DISTANCE + 1;
}

static inline EraRun era_run_make(const BlockDesc *bd, StgWord offset_words, uint64_t era)
{
    return (EraRun)((era - bd->era) << ERA_RUN_OFFSET_BITS) | offset_words;
}

/* Run i of bd (0 <= i < bd->n_era_runs). */
static inline EraRun *block_era_run(const BlockDesc *bd, uint32_t i)
{
    return (EraRun *)(bd->start + BLOCK_SIZE_W) - 1 - i;
}

/* Where bd's objects must end (its run records lie above). */
static inline StgPtr block_alloc_limit(const BlockDesc *bd)
{
    return bd->start + (StgWord)bd->blocks * BLOCK_SIZE_W - ERA_RUN_WORDS * bd->n_era_runs;
}

/* The era of the objects being added at bd's free end. */
static inline uint64_t block_last_era(const BlockDesc *bd)
{
    return bd->n_era_runs == 0 ? bd->era
                               : era_run_era(bd, *block_era_run(bd, bd->n_era_runs - 1));
}

/* How many of bd's first n runs start at or below word offset off: 0 for
 * an object of the block's own era, i + 1 for one in run i.  The records
 * are read atomically (see block_era_at). */
static inline uint32_t block_era_runs_upto(const BlockDesc *bd, uint32_t n, StgWord off)
{
    uint32_t lo = 0, hi = n;   /* runs at or below off: [0, lo) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (era_run_offset(__atomic_load_n(block_era_run(bd, mid), __ATOMIC_RELAXED)) <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The era of the object at p in bd. */
static inline uint64_t block_era_at(const BlockDesc *bd, const void *p)
{
    /* Another capability may be adding a run to the block it allocates
     * in while this reads one of its objects (Note [Blocks of several
     * eras]): the count is read with acquire, against the writer's
     * release after the record, and the records atomically. */
    uint32_t n = __atomic_load_n(&bd->n_era_runs, __ATOMIC_ACQUIRE);
    if (STRATA_LIKELY(n == 0))
        return bd->era;
    uint32_t lo = block_era_runs_upto(bd, n, (StgWord)((const StgWord *)p - bd->start));
    return lo == 0 ? bd->era
                   : era_run_era(bd, __atomic_load_n(block_era_run(bd, lo - 1), __ATOMIC_RELAXED));
}

/* Makes the objects added from bd->free on be of era.  With nothing in the
 * block yet it restamps the block; with a run already starting at free it
 * changes that run.  Returns false, changing nothing, when there is no
 * room for another run (the caller starts a new block). */
static inline bool block_start_era_run(BlockDesc *bd, uint64_t era)
{
    if (block_last_era(bd) == era)
        return true;
    StgWord off = (StgWord)(bd->free - bd->start);
    if (off == 0 && bd->n_era_runs == 0) {
        bd->era = era;
        return true;
    }
    if (!era_run_holds(bd, era))
        return false;
    /* Atomic stores: block_era_at may be reading this block's records
     * from another capability (the run changed in place starts at free,
     * past every object a reader can hold, so either value answers it). */
    if (bd->n_era_runs > 0 && era_run_offset(*block_era_run(bd, bd->n_era_runs - 1)) == off) {
        __atomic_store_n(block_era_run(bd, bd->n_era_runs - 1), era_run_make(bd, off, era),
                         __ATOMIC_RELAXED);
        return true;
    }
    if (bd->blocks != 1 || bd->free + ERA_RUN_WORDS > block_alloc_limit(bd))
        return false;
    __atomic_store_n(block_era_run(bd, bd->n_era_runs), era_run_make(bd, off, era),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&bd->n_era_runs, bd->n_era_runs + 1, __ATOMIC_RELEASE);
    return true;
}

/* The era segments of bd, in address order: segment i (0 <= i <=
 * n_era_runs) is [*from, *to) of era *era, clipped to [start, free). */
static inline void block_era_segment(const BlockDesc *bd, uint32_t i, StgPtr *from, StgPtr *to,
                                     uint64_t *era)
{
    *from = i == 0 ? bd->start : bd->start + era_run_offset(*block_era_run(bd, i - 1));
    *to = i == bd->n_era_runs ? bd->free : bd->start + era_run_offset(*block_era_run(bd, i));
    *era = i == 0 ? bd->era : era_run_era(bd, *block_era_run(bd, i - 1));
}

#endif /* STRATA_ERARUNS_H */
