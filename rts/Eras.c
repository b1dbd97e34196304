/*
 * rts/Eras.c -- GHC's era API (docs/reference/heap-profile.md) on top of the storage
 * manager's per-block eras (Note [Eras live in block descriptors] in
 * sm/Storage.c).  Eras work in every build, at no per-object cost.
 */
#include "Eras.h"

#include "Messages.h"
#include "RtsFlags.h"
#include "Storage.h"
#include "os/Thread.h"
#include "strata/Api.h"

/* Every capability's allocation blocks change era with the world stopped
 * (storage_set_era), which only a thread holding a capability can ask. */
static bool era_caller_ok(const char *who)
{
    if (capabilities_n == 0 || capability_mine() != NULL)
        return true;
    rts_error("%s: refused: thread %ld holds no capability (call rts_lock first, or "
              "rts_resume after rts_suspend)", who, os_thread_id());
    return false;
}

void setUserEra(StgWord era)
{
    if (era_caller_ok("setUserEra"))
        storage_set_era(era);
}

StgWord getUserEra(void)
{
    return (StgWord)storage_current_era;
}

/* Advances the era by `by`, refusing a step past the largest era: a
 * wrapped era would read as 0, "not counted", and silently hide every
 * later object from -he.  The era then stays where it is, and the refusal
 * is reported once a run (the automatic increment would repeat it at
 * every major GC). */
static bool era_overflow_reported;

static void era_advance(const char *who, uint64_t by)
{
    uint64_t era;
    if (storage_advance_era(by, &era) || era_overflow_reported)
        return;
    era_overflow_reported = true;
    rts_error("%s: the era cannot pass %llu (era=%llu, by=%llu); it stays %llu", who,
              (unsigned long long)UINT64_MAX, (unsigned long long)era,
              (unsigned long long)by, (unsigned long long)era);
}

StgWord incrementUserEra(StgWord by)
{
    if (era_caller_ok("incrementUserEra"))
        era_advance("incrementUserEra", by);
    return (StgWord)storage_current_era;
}

void eras_reset(void)
{
    era_overflow_reported = false;
}

/* --automatic-era-increment: one era per major GC, unless the user has
 * turned eras off by setting 0 (GHC's rule). */
void eras_after_gc(unsigned collected_gen, bool major)
{
    (void)collected_gen;
    if (major && rts_flags.automatic_era_increment && storage_current_era > 0)
        era_advance("--automatic-era-increment", 1);
}
