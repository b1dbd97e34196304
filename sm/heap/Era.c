/*
 * sm/heap/Era.c -- the current era: setting and advancing it with the
 * world stopped, the runs of the new era it starts in every capability's
 * allocation blocks, and the automatic increment after a major GC.
 * Relies on the capabilities' sync (Capability.h), the era runs of a block
 * (EraRuns.h) and the pinned-block list (Heap.h).
 * See docs/design/eras.md.
 */
#include "Era.h"

#include "Capability.h"
#include "EraRuns.h"
#include "Heap.h"
#include "Messages.h"

uint64_t storage_current_era = 1;
static uint64_t max_era_seen = 1;

/* Note [Eras live in block descriptors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC records an object's era in a header word of every closure, which
 * needs a profiling build.  strata records it once per block, or once per
 * run of a block that holds several eras (Note [Blocks of several eras] in
 * EraRuns.h): every object has the era of its block or run
 * (.inv.block-era).  Three places keep that true:
 *
 *  - a nursery block takes storage_current_era when allocation into it
 *    starts (nursery_next_block), and a pinned block when it is opened;
 *  - changing the era starts a run of the new era at hp in the current
 *    nursery block (alloc_blocks_take_current_era; a new block when there
 *    is no room for the run's word) and retires the pinned block;
 *  - the collector copies each object into a to-space block of the same
 *    generation *and era* -- the era's own block, or a run of it in the
 *    generation's shared block (Note [Where a copy goes] in Evac.c) -- and
 *    large objects and pinned blocks keep their descriptor, hence their
 *    era, when relinked.
 *
 * The cost is at most one partly filled block per era with a block's
 * worth of live data per generation, and a word per run otherwise,
 * measured in docs/design/eras.md; the census reads the era off the
 * descriptor or the runs. */

/* A refusal to pass the largest era is reported once a run (the automatic
 * increment would repeat it at every major GC). */
static bool era_overflow_reported;

void storage_era_init(void)
{
    storage_current_era = 1;
    max_era_seen = 1;
    era_overflow_reported = false;
}

/* Makes cap's next object take the current era: a run of it in the
 * current nursery block, and a new pinned block. */
static void alloc_blocks_take_current_era(Capability *cap)
{
    StgRegs *regs = cap->regs;
    BlockDesc *cur = cap->nursery.current;
    if (cur != NULL) {
        /* The nursery block goes on in a run of the new era (Note [Blocks
         * of several eras] in EraRuns.h): an era change costs a word,
         * and restamps a block with nothing in it yet -- also the fresh
         * block a GC has just reset, which the slow path that ran the GC
         * allocates from without another look at the era.  Without room
         * for a run, the next allocation takes the slow path, which
         * starts a new block. */
        cur->free = regs->hp;
        StgPtr lim = __atomic_load_n(&regs->hp_lim, __ATOMIC_RELAXED);
        if (!block_start_era_run(cur, storage_current_era))
            __atomic_store_n(&regs->hp_lim, regs->hp, __ATOMIC_RELAXED);
        else if (lim != NULL)   /* keep an attention request */
            __atomic_store_n(&regs->hp_lim, block_alloc_limit(cur), __ATOMIC_RELAXED);
    }
    storage_retire_pinned_block_of(cap);
}

/* Every capability's allocation blocks take the new era before any of
 * them allocates again: the world is stopped for the change (the GC's
 * own sync when the era advances after a major GC).  Before the capabilities
 * exist (start-up) there is nothing to retire. */
static void set_era_world_stopped(uint64_t era)
{
    storage_current_era = era;
    if (era > max_era_seen)
        max_era_seen = era;
    for (unsigned i = 0; i < capabilities_n; i++)
        alloc_blocks_take_current_era(&capabilities[i]);
}

/* Adds by to the era with the world already stopped, unless that would
 * pass UINT64_MAX: then returns false and changes nothing. */
static bool advance_world_stopped(uint64_t by)
{
    if (by > UINT64_MAX - storage_current_era)
        return false;
    if (by != 0)
        set_era_world_stopped(storage_current_era + by);
    return true;
}

/* Sets the era (advance: adds value to it, unless that would pass
 * UINT64_MAX) with the world stopped, so that changes from several
 * threads all count and the era never goes back; before any capability is
 * held (start-up) there is no world to stop. */
static bool change_era(bool advance, uint64_t value, uint64_t *era_out)
{
    bool stop = capability_mine() != NULL;
    ASSERT(stop || capabilities_held() == 0);
    if (stop)
        capability_stop_world_own();
    bool ok = true;
    if (advance)
        ok = advance_world_stopped(value);
    else if (value != storage_current_era)
        set_era_world_stopped(value);
    if (era_out != NULL)
        *era_out = storage_current_era;
    if (stop)
        capability_resume_world();
    return ok;
}

bool storage_advance_era(uint64_t by, uint64_t *era_out)
{
    return change_era(true, by, era_out);
}

void storage_set_era(uint64_t era)
{
    if (era != storage_current_era)   /* setting it again stops nothing */
        (void)change_era(false, era, NULL);
}

uint64_t storage_max_era(void)
{
    return max_era_seen;
}

static void report_overflow(const char *who, uint64_t era, uint64_t by)
{
    if (era_overflow_reported)
        return;
    era_overflow_reported = true;
    rts_error("%s: the era cannot pass %llu (era=%llu, by=%llu); it stays %llu", who,
              (unsigned long long)UINT64_MAX, (unsigned long long)era,
              (unsigned long long)by, (unsigned long long)era);
}

uint64_t storage_increment_era(const char *who, uint64_t by)
{
    uint64_t era;
    if (!storage_advance_era(by, &era))
        report_overflow(who, era, by);
    return storage_current_era;
}

/* The collector calls this with its world stopped: the era moves as a
 * storage policy, with no second stop of the world (GHC advances per
 * census; strata's census runs after major GCs, so the two agree whenever
 * a census is due). */
void storage_era_after_gc(bool major)
{
    if (!major || !storage_config.automatic_era_increment || storage_current_era == 0)
        return;
    if (!advance_world_stopped(1))
        report_overflow("--automatic-era-increment", storage_current_era, 1);
}
