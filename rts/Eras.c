/*
 * rts/Eras.c -- GHC's era API (shared/reference §4) on top of the storage
 * manager's per-block eras (Note [Eras live in block descriptors] in
 * sm/Storage.c).  Eras work in every build, at no per-object cost.
 */
#include "Eras.h"

#include "RtsFlags.h"
#include "Storage.h"
#include "strata/Api.h"

/* The highest era ever current: the sanity checker's bound on block eras. */
static uint64_t max_era_seen = 1;

static void era_change(uint64_t era)
{
    if (era == storage_current_era)
        return;
    storage_current_era = era;
    if (era > max_era_seen)
        max_era_seen = era;
    storage_retire_alloc_blocks();
}

void setUserEra(StgWord era)
{
    era_change(era);
}

StgWord getUserEra(void)
{
    return (StgWord)storage_current_era;
}

StgWord incrementUserEra(StgWord by)
{
    era_change(storage_current_era + by);
    return (StgWord)storage_current_era;
}

uint64_t eras_max_seen(void)
{
    return max_era_seen;
}

void eras_reset(void)
{
    max_era_seen = 1;
}

/* --automatic-era-increment: one era per major GC, unless the user has
 * turned eras off by setting 0 (GHC's rule). */
void eras_after_gc(unsigned collected_gen, bool major)
{
    (void)collected_gen;
    if (major && rts_flags.automatic_era_increment && storage_current_era > 0)
        era_change(storage_current_era + 1);
}
