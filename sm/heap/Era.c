/*
 * sm/heap/Era.c -- the current era: setting and advancing it without
 * stopping the world, the runs of the new era each capability starts in
 * its allocation blocks at its next allocation, and the automatic
 * increment after a major GC.
 * Relies on the capabilities' sync (Capability.h), the era runs of a block
 * (EraRuns.h) and the pinned-block list (Heap.h).
 * See docs/design/eras.md.
 */
#include "Era.h"

#include "AllocLimit.h"
#include "Capability.h"
#include "EraRuns.h"
#include "Heap.h"
#include "Messages.h"

EraLine storage_era_line = {.current = 1};
static uint64_t max_era_seen = 1;

/* Note [Eras live in block descriptors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC records an object's era in a header word of every closure, which
 * needs a profiling build.  strata records it once per block, or once per
 * run of a block that holds several eras (Note [Blocks of several eras] in
 * EraRuns.h): every object has the era of its block or run
 * (.inv.block-era).  Three places keep that true:
 *
 *  - a nursery block takes the current era when allocation into it
 *    starts (nursery_next_block), and a pinned block when it is opened;
 *  - after an era change each capability starts a run of the new era at
 *    hp in its current nursery block at its next allocation
 *    (storage_era_catch_up; a new block when there is no room for the
 *    run's word, Note [Changing the era without stopping the world]),
 *    and opens a new pinned block at its next pinned allocation;
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
    __atomic_store_n(&storage_era_line.current, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&max_era_seen, 1, __ATOMIC_RELAXED);
    era_overflow_reported = false;
}

/* Note [Changing the era without stopping the world]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An era change is a sequentially consistent compare-and-swap of
 * storage_era_line.current.  Just before it, the changer starts the run of
 * the era it is about to make current in its own nursery block, with plain
 * stores that the CAS then publishes (start_run_before_change; the
 * ordinary catch-up when the CAS fails and no change is made).  After it,
 * it stores NULL into the hp_lim of every other held capability, without a
 * lock (capabilities_interrupt_others, Note [Interrupting without the
 * lock] in Capability.c).  Each of those, at its next allocation, takes
 * the slow path and starts its run there (storage_era_catch_up); the
 * attention handler runs only for a request flag, so the run and one SC
 * store are all it costs.  A free capability is left alone:
 * capability_acquire clears the limit, so the first allocation of its next
 * holder catches up. Only the holder writes its blocks' runs, so no world
 * is stopped (.inv.cap-owner).
 *
 * The rule (docs/design/eras.md, Exactness): an object whose allocation an
 * era change happens before has that era or a later one.  The changer's
 * own next object: its run is of the era its CAS made current, or its
 * catch-up (at its next allocation, when its limit was already cleared)
 * reads the era after the CAS.  A later change by another thread: that CAS
 * reads this one, so the changer's plain stores happen before it, and that
 * changer's NULL lands after the changer's limit.  Another thread's next
 * object: its fast path reads its own hp_lim; the change's NULL happens
 * before that read, so the read returns NULL or a later store.  The only
 * later stores are the holder's own, in its slow path, and each is a
 * sequentially consistent store followed by a second, sequentially
 * consistent look at the era (the catch-up loop).  Changer: CAS era; load
 * cap->regs; store hp_lim.  Holder: store cap->regs (when it took the
 * capability); store hp_lim; load era.  All are in one total order: either
 * the holder's load comes after the CAS and it starts its run, or it comes
 * before, so the changer's load of regs finds the holder's registers and
 * its NULL comes after the holder's limit, and the next allocation takes
 * the slow path. (SC operations rather than fences, which ThreadSanitizer
 * cannot check; the NULL is a release store, which lands after the
 * changer's SC operations on every target, Note [Interrupting without the
 * lock] in Capability.c.)  A thread that reads the era (getUserEra)
 * catches up too, so an object it allocates next has that era or a later
 * one.  An object allocated while the change is under way, unordered with
 * it, may take either era, as in GHC.  The fast path is unchanged.
 * --automatic-era-increment changes the era inside the GC's own stopped
 * world and starts the runs itself (set_era_world_stopped). */

/* Records era for the sanity checker's bound (a racing maximum): an era
 * that is replaced by a lower one (storage_max_era takes the current era
 * too, so an increment records nothing). */
static void note_max_era(uint64_t era)
{
    uint64_t m = __atomic_load_n(&max_era_seen, __ATOMIC_RELAXED);
    while (era > m &&
           !__atomic_compare_exchange_n(&max_era_seen, &m, era, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

uint64_t storage_era_catch_up(Capability *cap)
{
    /* The holder's own registers, not cap->regs: interrupters read that
     * line (Note [Interrupting without the lock] in Capability.c). */
    StgRegs *regs = &strata_regs;
    ASSERT(cap->regs == regs);
    BlockDesc *cur = cap->nursery.current;
    for (;;) {
        uint64_t era = storage_era_now();
        if (cur == NULL)
            return era;
        /* A run of the new era at hp (Note [Blocks of several eras] in
         * EraRuns.h): a word; a block with nothing in it yet -- also the
         * fresh block a GC has just reset -- is restamped.  Without room,
         * the block is retired (hp_lim = hp): the next allocation's slow
         * path starts a new block and comes back here. */
        cur->free = regs->hp;
        if (!block_start_era_run(cur, era)) {
            __atomic_store_n(&regs->hp_lim, alloc_limit_clamp(cap, regs->hp), __ATOMIC_RELAXED);
            return era;
        }
        /* Store then load, both sequentially consistent, against the
         * change's CAS then NULL store: either this load sees the new era
         * or the NULL lands after this limit.  (Not a fence: ThreadSanitizer
         * cannot check fences, and the SC pair says the same.) */
        __atomic_store_n(&regs->hp_lim, alloc_limit_clamp(cap, block_alloc_limit(cur)),
                         __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&storage_era_line.current, __ATOMIC_SEQ_CST) == era)
            return era;
    }
}

uint64_t storage_era_observe(Capability *cap)
{
    if (__atomic_load_n(&strata_regs.hp_lim, __ATOMIC_RELAXED) == NULL)
        return storage_era_now();
    return storage_era_catch_up(cap);
}

/* Makes cap's next object take the current era, with the world stopped:
 * a run of it in the current nursery block, and a new pinned block. */
static void alloc_blocks_take_current_era(Capability *cap)
{
    StgRegs *regs = cap->regs;
    BlockDesc *cur = cap->nursery.current;
    if (cur != NULL) {
        cur->free = regs->hp;
        StgPtr lim = __atomic_load_n(&regs->hp_lim, __ATOMIC_RELAXED);
        bool room = block_start_era_run(cur, storage_era_line.current);
        StgPtr own = alloc_limit_clamp(cap, room ? block_alloc_limit(cur) : regs->hp);
        if (!room || lim != NULL)   /* keep an attention request */
            __atomic_store_n(&regs->hp_lim, own, __ATOMIC_RELAXED);
    }
    storage_retire_pinned_block_of(cap);
}

/* The era advanced inside a GC's stopped world: every capability's
 * allocation blocks take it before any of them allocates again. */
static void set_era_world_stopped(uint64_t era)
{
    __atomic_store_n(&storage_era_line.current, era, __ATOMIC_SEQ_CST);   /* a rise: no note */
    for (unsigned i = 0; i < capabilities_n; i++)
        alloc_blocks_take_current_era(&capabilities[i]);
}

/* The changer's own run, started before its CAS: a run of era (the era
 * its CAS would make current) in its nursery block at hp, and its limit
 * restored, both plain stores.  A successful CAS then publishes them
 * with the era, so no later change can miss this capability: the next
 * changer's CAS reads this one's, and its NULL lands after this limit
 * (Note [Changing the era without stopping the world]).  Returns false,
 * having changed nothing, when there is nothing to restamp: no current
 * block, or a pending interrupt (hp_lim = NULL) that the next
 * allocation's catch-up will serve. */
static bool start_run_before_change(Capability *cap, uint64_t era)
{
    StgRegs *regs = &strata_regs;
    BlockDesc *cur = cap->nursery.current;
    if (cur == NULL || __atomic_load_n(&regs->hp_lim, __ATOMIC_RELAXED) == NULL)
        return false;
    cur->free = regs->hp;
    StgPtr lim = block_start_era_run(cur, era) ? block_alloc_limit(cur) : regs->hp;
    __atomic_store_n(&regs->hp_lim, alloc_limit_clamp(cap, lim), __ATOMIC_RELAXED);
    return true;
}

/* Sets the era (advance: adds value to it, unless that would pass
 * UINT64_MAX: then returns false and changes nothing) with one
 * compare-and-swap, so that changes from several threads all count, then
 * sends every other held capability to its slow path (Note [Changing the
 * era without stopping the world]).  The changer's own run is started
 * before the CAS (start_run_before_change), or, when that could not be
 * done or the CAS did not go through, by the ordinary catch-up.  *era_out
 * receives the era afterwards. */
static bool change_era(bool advance, uint64_t value, uint64_t *era_out)
{
    Capability *me = capability_mine();
    uint64_t old = storage_era_now(), era;
    bool own_run = false;   /* a run of `era` started in me's block */
    bool ok = true, changed = false;
    for (;;) {
        if (advance && value > UINT64_MAX - old) {
            era = old;
            ok = false;
            break;
        }
        era = advance ? old + value : value;
        if (era == old)
            break;
        own_run = me != NULL && start_run_before_change(me, era);
        if (__atomic_compare_exchange_n(&storage_era_line.current, &old, era, true,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
            changed = true;
            break;
        }
    }
    /* The changer's next object: its own run when the change went through
     * with one; otherwise the ordinary catch-up, which also restamps a run
     * started for an era that did not come. */
    if (me != NULL && own_run != changed)
        (void)storage_era_observe(me);
    *era_out = era;
    if (!changed)
        return ok;
    if (era < old)
        note_max_era(old);   /* storage_max_era: the current era covers the rest */
    capabilities_interrupt_others();   /* SC loads after the SC CAS */
    return true;
}

bool storage_advance_era(uint64_t by, uint64_t *era_out)
{
    uint64_t era;
    bool ok = change_era(true, by, &era);
    if (era_out != NULL)
        *era_out = era;
    return ok;
}

void storage_set_era(uint64_t era)
{
    uint64_t ignored;
    (void)change_era(false, era, &ignored);
}

uint64_t storage_max_era(void)
{
    uint64_t m = __atomic_load_n(&max_era_seen, __ATOMIC_RELAXED), now = storage_era_now();
    return now > m ? now : m;
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
    return era;
}

/* The collector calls this with its world stopped: the era moves as a
 * storage policy, with no second stop of the world (GHC advances per
 * census; strata's census runs after major GCs, so the two agree whenever
 * a census is due). */
void storage_era_after_gc(bool major)
{
    uint64_t era = storage_era_line.current;   /* the world is stopped */
    if (!major || !storage_config.automatic_era_increment || era == 0)
        return;
    if (era == UINT64_MAX)
        report_overflow("--automatic-era-increment", era, 1);
    else
        set_era_world_stopped(era + 1);
}
