/*
 * rts/Eras.c -- GHC's era API (docs/reference/heap-profile.md) on top of
 * the storage manager's era module (sm/heap/Era.h; Note [Eras live in block
 * descriptors] in sm/heap/Era.c).  Eras work in every build, at no
 * per-object cost.  The --automatic-era-increment is the storage
 * manager's own policy (storage_era_after_gc).
 */
#include "Messages.h"
#include "Storage.h"
#include "os/Thread.h"
#include "strata/Api.h"

/* A thread that holds no capability is refused, as before: the API's
 * promise (docs/design/eras.md) did not change with its cost. */
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

/* The caller's next object has the era read or a later one: its nursery
 * block catches up first (Note [Changing the era without stopping the
 * world] in sm/heap/Era.c). */
StgWord getUserEra(void)
{
    Capability *cap = capability_mine();
    return (StgWord)(cap != NULL ? storage_era_observe(cap) : storage_era_now());
}

/* Advances the era by `by`; a step past the largest era is refused and
 * reported (storage_increment_era), since a wrapped era would read as 0,
 * "not counted", and silently hide every later object from -he. */
StgWord incrementUserEra(StgWord by)
{
    if (era_caller_ok("incrementUserEra"))
        return (StgWord)storage_increment_era("incrementUserEra", by);
    return (StgWord)storage_era_now();
}
