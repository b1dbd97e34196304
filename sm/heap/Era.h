/*
 * sm/heap/Era.h -- the era module: the current era (GHC's user_era), how it
 * is set and advanced, the era range everything that selects eras uses,
 * and the --automatic-era-increment policy.  Note [Eras live in block
 * descriptors] in Era.c; docs/design/eras.md.
 */
#ifndef STRATA_ERA_H
#define STRATA_ERA_H

#include <stdbool.h>
#include <stdint.h>

#include "os/Thread.h"

/* An inclusive range of eras [lo, hi]: the -he<lo>-<hi> selection, the
 * eras a census or a live tally counts.  ERA_RANGE_ALL is every era. */
typedef struct {
    uint64_t lo, hi;
} EraRange;

#define ERA_RANGE_ALL ((EraRange){0, UINT64_MAX})

static inline bool era_range_has(EraRange r, uint64_t era)
{
    return era >= r.lo && era <= r.hi;
}

/* The era stamped on new blocks (GHC's user_era), published as one word
 * (Note [Changing the era without stopping the world] in Era.c).  Read it
 * with storage_era_now; change it through storage_set_era. */
typedef struct {
    /* A cache line of its own (sizeof == 64): each change writes it, and
     * nothing a linker would place beside it should move with it. */
    _Alignas(OS_CACHE_LINE) uint64_t current;
} EraLine;
extern EraLine storage_era_line;

/* The current era, from any thread (a relaxed atomic load). */
static inline uint64_t storage_era_now(void)
{
    return __atomic_load_n(&storage_era_line.current, __ATOMIC_RELAXED);
}

struct Capability_;

/* Called by cap's holder whenever it has set its allocation limit: makes
 * its nursery block go on in the current era (a run of it; without room,
 * the block is retired and the next allocation starts a new one), then
 * checks, after its SC store of the limit, that the era did not move.
 * Returns the era its next object takes. */
uint64_t storage_era_catch_up(struct Capability_ *cap);

/* The current era, read by cap's holder (getUserEra): its next object
 * takes that era or a later one.  A pending request (hp_lim = NULL) is
 * kept: the next allocation's slow path catches up then. */
uint64_t storage_era_observe(struct Capability_ *cap);

/* Starts a run's eras at 1 (storage_init), forgetting a refusal reported
 * by a previous run. */
void storage_era_init(void);

/* Makes era the current one: publishes it, starts a run of it in the
 * caller's nursery block and sends every other held capability to its
 * slow path, where it starts its own (.inv.block-era).  No world is
 * stopped and no lock taken. */
void storage_set_era(uint64_t era);

/* Adds by to the era with one compare-and-swap (so that increments from
 * several threads all count), unless that would pass
 * UINT64_MAX: then returns false and changes nothing.  *era_out receives
 * the era afterwards. */
bool storage_advance_era(uint64_t by, uint64_t *era_out);

/* storage_advance_era for who (a caller's name, for the message), which
 * reports a refusal once a run (a wrapped era would read as 0, "not
 * counted").  Returns the era afterwards. */
uint64_t storage_increment_era(const char *who, uint64_t by);

/* The --automatic-era-increment policy (StorageConfig): after a major GC,
 * with the collection's world still stopped, the era advances by one
 * unless it is 0 (GHC's rule).  Called by the collector. */
void storage_era_after_gc(bool major);

/* The highest era ever current this run: no block may carry a higher one. */
uint64_t storage_max_era(void);

#endif /* STRATA_ERA_H */
