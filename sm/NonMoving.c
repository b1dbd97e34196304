/*
 * sm/NonMoving.c -- the non-moving old generation (+RTS --nonmoving-gc):
 * its cycle of snapshot, concurrent mark, sync pause and concurrent
 * sweep, and its state.  Relies on the copying collector (GC.c) for the
 * snapshot's collection of the young generations, on NonMovingAlloc.c
 * for promotion into segments, NonMovingMark.c for the mark,
 * NonMovingSweep.c for the sweep, NonMovingThread.c for the mark thread
 * and sm/heap/UpdRemSet.c for the write barrier's log.  See
 * docs/design/gc.md, "The non-moving generation".
 *
 * Note [The non-moving collector]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With --nonmoving-gc the young generations stay copying and the oldest
 * one is never copied: its small objects live in segments (Note
 * [Segments] in Segment.h), its large and pinned objects in their groups,
 * and a cycle finds the dead ones by marking from a snapshot of the
 * roots, then frees them in place.  The design follows GHC's non-moving
 * collector (Gamari and Dietz, "Alligator collector", ISMM 2020), itself
 * after Ueno and Ohori's snapshot-at-the-beginning collector for
 * functional programs, and Go's runtime in how its phases are told
 * (runtime/mgc.go).  A cycle, with what is stopped in each phase, what
 * the write barrier does, and what holds at its end:
 *
 *   1. The snapshot [world stopped; phase IDLE -> MARKING].  A collection
 *      of every young generation that promotes each survivor into the
 *      oldest, so that nothing young exists at the snapshot.  The epoch
 *      flips first, so its copies are allocated marked (Note [Mark
 *      epochs]); whenever it meets an object of the generation from a
 *      root or a copy it queues it for the mark (Note [The snapshot]).
 *      The barrier's log is turned on before the world runs again.
 *      Holds: every object reachable now is marked or reachable from the
 *      queue through the generation.
 *   2. The mark [concurrent, on the mark thread; MARKING].  The mark
 *      thread marks from the queue and from the barrier's full chunks;
 *      the barrier logs every value a write into the generation
 *      overwrites (Note [The update remembered set] in UpdRemSet.c);
 *      collections of the young generations go on, the mark thread
 *      parked (Note [The mark thread parks] in NonMovingThread.c), their
 *      copies into the generation allocated marked; one that finds the
 *      cycle lagging marks a slice itself (Note [A collection helps a
 *      lagging cycle]).  When its queue is empty the mark thread asks
 *      for the sync (SYNC_WANTED) and interrupts every capability.
 *   3. The sync [world stopped; SYNC_WANTED -> SWEEPING].  Run by the
 *      first mutator that reaches its allocation slow path, or by the
 *      next collection: the capabilities' partly filled chunks are
 *      marked, then weak pointers are settled to a fixed point with the
 *      mark (Note [Weak pointers and the non-moving generation] in
 *      Weak.c), every weak root source learns which of its objects died,
 *      dead objects leave the remembered set, the barrier's log is turned
 *      off.  Holds: every object reachable at the snapshot, and every one
 *      allocated since, is marked; an unmarked one is unreachable.
 *   4. The sweep [concurrent, on the mark thread; SWEEPING -> SWEPT].
 *      Unmarked slots and groups are freed (a slice of them by a
 *      collection, if the cycle lags); what it freed is taken off
 *      the generation's counts at the next collection (SWEPT -> IDLE),
 *      which also sets the generation's new budget.
 *
 * A collection that must have the cycle's results at once -- the
 * program's strata_perform_gc, a heap above -M (not a census: Note [A
 * census from the snapshot]) -- finishes a
 * running cycle in its own pause and runs its own cycle there from start
 * to end (exact: nonmoving_gc_begin and nonmoving_snapshot_end).
 *
 * Note [Mark epochs]
 * ~~~~~~~~~~~~~~~~~~
 * A slot's mark byte is 0 when free, else 1 or 2: the epoch of the cycle
 * that last marked it, or in which it was allocated; a large or pinned
 * group keeps the same in two flag bits.  nonmoving_epoch is the epoch of
 * the running (or last) cycle, and every allocation writes it.  A cycle
 * starts by flipping it (1 <-> 2): every object then carries the other
 * epoch, unmarked, with nothing to clear; marking writes the new one, so
 * does allocation from then on (allocated black).  After the mark every
 * object of the other epoch is dead, and the sweep frees it.  So a slot
 * allocated between cycles is marked as live only by the next cycle's
 * mark, and one allocated during a cycle survives it.
 *
 * Note [The snapshot]
 * ~~~~~~~~~~~~~~~~~~~
 * The mark must mark everything reachable at the snapshot.  At the end of
 * the snapshot's collection every reachable object is either a copy it
 * made (already marked) or an object of the generation reached from a
 * root, a static root, a copy or another such object.  The collection
 * queues every object of the generation it meets while evacuating a
 * root, a static root, a copy's field or a remembered object's field
 * (the last only for safety: a remembered object may be dead, so this can
 * keep garbage for one cycle; not a remembered array's elements, which
 * the mark reads itself: Note [Scanning an array's cards] in Scav.c),
 * but not a weak pointer's value: weak
 * pointers are decided in the sync.  A BLACKHOLE it meets is marked and
 * its free variables queued there and then, with the world stopped: the
 * concurrent mark never reads one (Note [Tracing beside the mutators] in
 * NonMovingMark.c), and every BLACKHOLE is held by its evaluator's frame,
 * a root.  The mark then follows the generation's own pointers from the
 * queue.
 *
 * Note [A census from the snapshot]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A heap census (-hT, -hi, -he, ...) under --nonmoving-gc is taken from a
 * cycle, without a pause of its own: the profiler asks for a tally
 * (gc_request_tally) and a major collection -- which is a snapshot's --
 * counts the young generations' survivors into it as it promotes them
 * (their copies, and the large and pinned groups it adopts; the
 * BLACKHOLEs of the generation it marks itself), then hands the tally to
 * the cycle (LiveTally.counting).  The mark counts each object of the
 * generation as it marks it, on the mark thread and in the sync, by
 * table or by era (a tally by_era), into the same buckets.  What the
 * mark marks is what the snapshot reached; objects the program allocates
 * later are allocated marked and never counted.  When the sync ends the
 * mark, the tally is whole: the census hook (nonmoving_set_census_hook) posts
 * it, stamped with the snapshot's moment (at_ns): in the eventlog in a
 * block of its own that begins then (eventlog_stamp_global), in the .hp
 * file as the sample's time.  So a census costs the snapshot's pause,
 * which the cycle needed anyway, and no mark or walk with the world
 * stopped; a census request no longer makes a collection exact
 * (policy_exact_wanted), and one that comes while a cycle runs waits for
 * the next snapshot.  Exact for the snapshot's moment, with these
 * readings: a mutable array or variable counts as clean, which every one
 * of the generation is at a snapshot (nothing young is left for it to
 * point at) whatever the program wrote since; an object the program
 * changes in place before the mark reaches it -- a thunk it evaluates
 * (BLACKHOLE, then IND: not counted, as the copying collector never
 * counts an indirection), an AP it enters -- counts as what the mark
 * finds, and a weak pointer's value that the program read after its key
 * died is counted (the barrier kept it).  A collection that must be
 * exact (strata_perform_gc, -M, a census on request or at exit,
 * --census-gc=every-tick) still runs its cycle in its pause, and its
 * census is of that moment.
 */
#include "NonMoving.h"

#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "GC.h"
#include "GCThread.h"
#include "Messages.h"
#include "MutList.h"
#include "NonMovingPrivate.h"
#include "Nursery.h"
#include "Sanity.h"
#include "UpdRemSet.h"
#include "Weak.h"
#include "os/Clock.h"

MarkQueue nonmoving_queue;

/* The census the running cycle counts (Note [A census from the
 * snapshot]), or NULL: set in the snapshot's pause, read by the mark
 * thread between its parks, filled and dropped in the sync. */
static LiveTally *cycle_tally;
static NonMovingCensusHook census_hook;

void nonmoving_set_census_hook(NonMovingCensusHook hook)
{
    census_hook = hook;
}

/* ----------------------------------------------------------------------
 * The phases
 * ---------------------------------------------------------------------- */

OsMutex nonmoving_lock = OS_MUTEX_INIT;
OsCond nonmoving_changed = OS_COND_INIT;
uint64_t nonmoving_cycle;
static int phase = NONMOVING_IDLE;   /* NonMovingPhase, changed under the lock */

/* What the running cycle's sweep has freed, not yet taken off the
 * generation's counts: the program reads them without a lock, so they
 * change only with the world stopped (nonmoving_gc_begin). */
NonMovingSwept nonmoving_swept_pending;

static NonMovingStats stats;

/* The running cycle's measure of what its mark finds live (Note [A
 * cycle's budget from what its mark found live] in Policy.c): the
 * generation's words once the snapshot promoted into it, less what its
 * sweep frees. */
static StgWord snapshot_words, cycle_swept_words;

NonMovingPhase nonmoving_phase_now(void)
{
    return (NonMovingPhase)__atomic_load_n(&phase, __ATOMIC_ACQUIRE);
}

static void set_phase(NonMovingPhase p)
{
    os_mutex_lock(&nonmoving_lock);
    __atomic_store_n(&phase, (int)p, __ATOMIC_RELEASE);
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
}

bool nonmoving_can_start_cycle(void)
{
    return nonmoving_phase_now() == NONMOVING_IDLE;
}

bool nonmoving_sync_wanted(void)
{
    return nonmoving_phase_now() == NONMOVING_SYNC_WANTED;
}

const NonMovingStats *nonmoving_stats(void)
{
    return &stats;
}

void nonmoving_note_thread_cpu(uint64_t ns)
{
    __atomic_store_n(&stats.thread_cpu_ns, ns, __ATOMIC_RELAXED);
}

/* The mark thread's CPU clock at the start of the cycle it works on (the
 * mark thread's alone), and the last swept cycle's cost:
 * last_cycle_cpu_ns is written by the mark thread as its sweep ends,
 * before the phase says so, or in a pause, and read by the census's
 * ticker action on a mutator: atomic. */
static uint64_t cycle_cpu_of, cycle_cpu_start;
static uint64_t last_cycle_cpu_ns;

void nonmoving_note_cycle_cpu_start(uint64_t cycle, uint64_t at_ns)
{
    if (cycle != cycle_cpu_of)
        cycle_cpu_of = cycle, cycle_cpu_start = at_ns;
}

uint64_t nonmoving_last_cycle_cpu_ns(void)
{
    return __atomic_load_n(&last_cycle_cpu_ns, __ATOMIC_RELAXED);
}

static void help_reset(void);

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

bool nonmoving_init(unsigned n_threads)
{
    nonmoving_alloc_init();
    nonmoving_epoch = 1;
    nonmoving_marked_words = 0;
    nonmoving_marked_objects = 0;
    nonmoving_cycle = 0;
    nonmoving_thread_reset();
    __atomic_store_n(&phase, NONMOVING_IDLE, __ATOMIC_RELAXED);
    memset(&nonmoving_swept_pending, 0, sizeof nonmoving_swept_pending);
    memset(&stats, 0, sizeof stats);
    snapshot_words = cycle_swept_words = 0;
    __atomic_store_n(&last_cycle_cpu_ns, 0, __ATOMIC_RELAXED);
    cycle_cpu_of = cycle_cpu_start = 0;
    help_reset();
    memset(&nonmoving_queue, 0, sizeof nonmoving_queue);
    for (unsigned i = 0; i < n_threads; i++) {
        NonMovingThread *nm = calloc(1, sizeof *nm);
        if (nm == NULL) {
            rts_error("storage: out of C heap for the non-moving generation (threads=%u)",
                      n_threads);
            return false;
        }
        gc_threads[i]->nm = nm;
    }
    return true;
}

void nonmoving_exit(void)
{
    nonmoving_thread_stop();
    barrier_set_logging(false);
    upd_rem_set_exit();
    for (unsigned i = 0; i < gc_threads_max; i++) {
        NonMovingThread *nm = gc_threads[i]->nm;
        if (nm == NULL)
            continue;
        mark_queue_free(&nm->reached);
        free(nm);
        gc_threads[i]->nm = NULL;
    }
    mark_queue_free(&nonmoving_queue);
    mark_chunk_pool_exit();
    nonmoving_sweep_exit();
    /* Segments' era runs live in the C heap; their blocks go back with
     * the reservation. */
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link)
        segment_release((Segment *)bd->start);
}

/* ----------------------------------------------------------------------
 * The snapshot
 * ---------------------------------------------------------------------- */

void nonmoving_snapshot_begin(unsigned n_threads)
{
    ASSERT(nonmoving_phase_now() == NONMOVING_IDLE);
    stats.last_start_words = nonmoving_generation_words();
    nonmoving_epoch = (uint8_t)(3 - nonmoving_epoch);   /* Note [Mark epochs] */
    nonmoving_marked_words = 0;
    nonmoving_marked_objects = 0;
    os_mutex_lock(&nonmoving_lock);   /* the mark thread reads it under the lock */
    __atomic_store_n(&nonmoving_cycle, nonmoving_cycle + 1, __ATOMIC_RELEASE);
    os_mutex_unlock(&nonmoving_lock);
    for (unsigned i = 0; i < n_threads; i++)
        gc_threads[i]->nm_push = true;
}

/* ----------------------------------------------------------------------
 * The mark and the sync
 * ---------------------------------------------------------------------- */

/* Queues the entries of the barrier's chunks and gives the chunks back;
 * returns how many entries they held. */
static StgWord queue_chunks(UrsChunk *c)
{
    StgWord n = 0;
    for (UrsChunk *next; c != NULL; c = next) {
        next = c->next;
        for (StgWord i = 0; i < c->n; i++)
            mark_queue_push_unmarked(&nonmoving_queue, c->e[i]);
        n += c->n;
        upd_rem_set_release(c);
    }
    return n;
}

bool nonmoving_mark_step(bool (*stop)(void *))
{
    queue_chunks(upd_rem_set_take_full());
    if (!nonmoving_mark_until(&nonmoving_queue, true, cycle_tally, stop, NULL))
        return false;
    UrsChunk *more = upd_rem_set_take_full();
    if (more == NULL)
        return true;
    queue_chunks(more);
    return false;
}

/* The cycle's mark found its queue empty: MARKING -> SYNC_WANTED, once,
 * by the mark thread or by a collection that helped (Note [A collection
 * helps a lagging cycle]), whichever comes first; true for that one. */
static bool mark_done(uint64_t cycle)
{
    os_mutex_lock(&nonmoving_lock);
    bool first = nonmoving_phase_now() == NONMOVING_MARKING && nonmoving_cycle == cycle;
    StgWord marked = 0;
    if (first) {
        /* Before the phase: a collection that sees SYNC_WANTED runs the sync,
         * which resets phase_start_ns and counts its marks, without this lock. */
        stats.mark_ns += clock_elapsed_ns() - stats.phase_start_ns;
        marked = nonmoving_marked_objects;
        __atomic_store_n(&phase, NONMOVING_SYNC_WANTED, __ATOMIC_RELEASE);
    }
    os_mutex_unlock(&nonmoving_lock);
    if (first)
        gc_observe_nonmoving(NONMOVING_EVENT_MARK_END, marked);
    return first;
}

void nonmoving_ask_for_sync(uint64_t cycle)
{
    if (mark_done(cycle))
        capabilities_interrupt_all();   /* someone's next slow path runs the sync */
}

/* A weak root source's slot: NULL if its object died in this cycle
 * (indirections followed, as weak_gc_is_alive does). */
static void update_weak_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    *slot = nonmoving_alive_or_null(*slot);
}

/* Drops the dead objects from the generation's remembered set: after the
 * sweep their slots may hold other objects, or nothing.  The
 * capabilities' own lists are gathered onto it first. */
static void forget_dead_remembered(void)
{
    mut_list_gather();
    BlockDesc *kept = NULL;
    MUT_LIST_FOR_EACH(oldest_gen->mut_list, c, {
        stats.last_sync_steps++;
        if (nonmoving_is_marked(c))
            mut_chain_append(&kept, c, mut_list_new_block);
    });
    mut_list_free(oldest_gen->mut_list);
    oldest_gen->mut_list = kept;
}

/* The sync's marking, with the world stopped: the chunks the capabilities
 * were filling, then weak pointers to a fixed point with the mark, the
 * weak roots and the remembered set.  The log goes off after it. */
static void finish_mark_stw(void)
{
    LiveTally *tally = cycle_tally;
    StgWord marked_before = nonmoving_marked_objects;
    stats.last_sync_steps += queue_chunks(upd_rem_set_take_all_stw());
    nonmoving_mark_until(&nonmoving_queue, false, tally, NULL, NULL);
    weak_nonmoving_begin();
    while (weak_nonmoving_traverse(&nonmoving_queue))
        nonmoving_mark_until(&nonmoving_queue, false, tally, NULL, NULL);
    weak_nonmoving_end();
    stats.last_sync_steps += nonmoving_marked_objects - marked_before;
    gc_visit_weak_roots(update_weak_root, NULL);
    forget_dead_remembered();
    barrier_set_logging(false);
}

/* The cycle's census is whole: filled, and handed over if it was counted
 * beside the program (one counted in a single pause is the collection's,
 * which hands it over itself). */
static void census_counted(void)
{
    LiveTally *t = cycle_tally;
    if (t == NULL)
        return;
    cycle_tally = NULL;
    live_tally_flush(t);
    bool beside = t->counting;
    t->counting = false;
    t->filled = true;
    if (beside && census_hook != NULL)
        census_hook(t);
}

/* -DS: the heap, the old space and the snapshot invariant (Note
 * [Checking the snapshot invariant] in SanitySnapshot.c) as the sync
 * begins, in a sync pause of its own or at a collection's start; not in
 * a cycle a collection runs whole, whose nursery still holds forwarding
 * pointers (its heap is checked before and after it). */
static void check_at_sync(void)
{
    if (!debug_enabled(DEBUG_SANITY))
        return;
    mut_list_gather();   /* the inventory counts the generations' lists */
    sanity_check_heap("at the sync");
}

/* Phase 3 (Note [The non-moving collector]), the world stopped: in a
 * pause of its own, or in a collection's (whose time it is then). */
static void sync_stw(bool in_collection)
{
    if (nonmoving_phase_now() == NONMOVING_MARKING)   /* the mark had not asked */
        gc_observe_nonmoving(NONMOVING_EVENT_MARK_END, nonmoving_marked_objects);
    gc_observe_nonmoving(NONMOVING_EVENT_SYNC_BEGIN, 0);
    stats.syncs_in_gcs += in_collection;
    stats.last_sync_steps = 0;
    finish_mark_stw();
    census_counted();
    stats.last_sync_steps += nonmoving_sweep_prepare();
    stats.phase_start_ns = clock_elapsed_ns();
    gc_observe_nonmoving(NONMOVING_EVENT_SYNC_END, 0);
    gc_observe_nonmoving(NONMOVING_EVENT_SWEEP_BEGIN, 0);
    set_phase(NONMOVING_SWEEPING);
}

/* Runs the sync if the mark has asked for it (the world stopped);
 * in_collection: inside a collection's pause.  True if it ran. */
static bool sync_if_wanted(bool in_collection)
{
    if (!nonmoving_sync_wanted())
        return false;
    check_at_sync();
    sync_stw(in_collection);
    return true;
}

void nonmoving_sync(void)
{
    uint64_t start = clock_elapsed_ns();
    if (!capability_stop_world())
        return;   /* another sync came first; the next slow path looks again */
    if (sync_if_wanted(false)) {
        /* From the request to the world running again, as a GC's pause. */
        uint64_t ns = clock_elapsed_ns() - start;
        stats.syncs++;
        stats.sync_ns += ns;
        if (ns > stats.max_sync_ns)
            stats.max_sync_ns = ns;
        debug_trace(DEBUG_GC, "gc: non-moving sync: %lu words marked, %.3f ms",
                    (unsigned long)nonmoving_marked_words, (double)ns / 1e6);
    }
    capability_resume_world();
}

/* ----------------------------------------------------------------------
 * The sweep and the end of a cycle
 * ---------------------------------------------------------------------- */

/* The sweep is done; on_mark_thread: by the mark thread, whose CPU
 * time is then the cycle's cost. */
static void sweep_ended(bool on_mark_thread)
{
    gc_observe_nonmoving(NONMOVING_EVENT_SWEEP_END, 0);
    if (on_mark_thread)
        __atomic_store_n(&last_cycle_cpu_ns, clock_thread_cpu_ns() - cycle_cpu_start,
                         __ATOMIC_RELAXED);
    os_mutex_lock(&nonmoving_lock);
    stats.sweep_ns += clock_elapsed_ns() - stats.phase_start_ns;
    __atomic_store_n(&phase, NONMOVING_SWEPT, __ATOMIC_RELEASE);
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
}

bool nonmoving_sweep_step(bool (*stop)(void *))
{
    /* With stop: on the mark thread, beside the program. */
    if (!nonmoving_sweep_until(&nonmoving_swept_pending, stop != NULL, stop, NULL))
        return false;
    sweep_ended(stop != NULL);
    return true;
}

/* Takes what the sweep freed so far off the generation's counts. */
static void apply_swept(void)
{
    Generation *g = oldest_gen;
    NonMovingSwept *s = &nonmoving_swept_pending;
    ASSERT(g->n_blocks >= s->segment_blocks && g->n_words >= s->words &&
           g->n_large_blocks >= s->large_blocks && g->n_large_words >= s->large_words);
    g->n_blocks -= s->segment_blocks;
    g->n_words -= s->words;
    g->n_large_blocks -= s->large_blocks;
    g->n_large_words -= s->large_words;
    cycle_swept_words += s->words + s->large_words;
    memset(s, 0, sizeof *s);
}

/* A cycle ended (its sweep applied): what its mark found live. */
static void cycle_ended(void)
{
    stats.cycles++;
    StgWord now = nonmoving_generation_words();
    stats.last_live_words =
        snapshot_words > cycle_swept_words ? snapshot_words - cycle_swept_words : 0;
    stats.last_allocated_words = now > stats.last_live_words ? now - stats.last_live_words : 0;
    debug_trace(DEBUG_GC, "gc: non-moving cycle %lu: started at %lu words, %lu after the "
                "snapshot, %lu found live; the generation holds %lu",
                (unsigned long)nonmoving_cycle, (unsigned long)stats.last_start_words,
                (unsigned long)snapshot_words, (unsigned long)stats.last_live_words,
                (unsigned long)now);
}

/* Takes what the sweep freed off the generation's counts, and ends the
 * cycle if its sweep is done. */
static bool end_if_swept(void)
{
    apply_swept();
    if (nonmoving_phase_now() != NONMOVING_SWEPT)
        return false;
    cycle_ended();
    set_phase(NONMOVING_IDLE);
    return true;
}

void nonmoving_finish_sweep(void)
{
    if (nonmoving_phase_now() == NONMOVING_SWEEPING)
        nonmoving_sweep_step(NULL);
}

/* Runs what is left of the cycle now, the world stopped. */
static void finish_cycle_stw(void)
{
    NonMovingPhase p = nonmoving_phase_now();
    if (p == NONMOVING_MARKING || p == NONMOVING_SYNC_WANTED)
        sync_stw(true);
    nonmoving_finish_sweep();
}

/* Twice the blocks the program can take between two collections: its
 * nurseries, and the large and pinned allocation that asks for a
 * collection (Note [Freeing the sweep's groups a budget at a time] in
 * NonMovingSweep.c). */
#define SETTLE_BLOCKS_PER_BLOCK_TAKEN 2

StgWord nonmoving_settle_budget_blocks(void)
{
    StgWord taken = storage_nursery_blocks() + storage_config.nursery_bytes / BLOCK_SIZE;
    return SETTLE_BLOCKS_PER_BLOCK_TAKEN * taken;
}

bool nonmoving_gc_begin(bool exact)
{
    /* Before this collection allocates; an exact one frees all. */
    nonmoving_settle_swept(exact ? ~(StgWord)0 : nonmoving_settle_budget_blocks());
    (void)sync_if_wanted(true);   /* the world is stopped already */
    if (exact || nonmoving_thread_stopped())
        finish_cycle_stw();
    return end_if_swept();
}

/* Note [A collection helps a lagging cycle]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The mark thread marks and sweeps only between collections (Note [The
 * mark thread parks] in NonMovingThread.c), and only when the system
 * gives it a processor there.  A program that collects back to back (a
 * small nursery, -DS's check of the whole heap in every pause, a busy
 * machine) starved it: a unit test's cycle under -A256k -DS took minutes
 * (test_nonmoving's concurrent-mark test: 574 s), and msgbuf at 1 GB
 * sometimes never ended a cycle and held everything it ever promoted
 * (3,311 MiB against 2,000-2,400).  The cycle's memory is what the
 * program promotes while it runs (Note [A cycle's budget from what its
 * mark found live] in Policy.c), so it is behind its plan when the
 * generation has grown past the peak its budget planned by an eighth of
 * it and two nurseries, far behind past a half (policy_cycle_lag).  It
 * lags when it is far behind, or behind with a mark thread that has
 * stalled: one that did less than HELP_FIRST_SLICE stop checks since the
 * last collection.  A thread that works while the generation outgrows
 * the plan by less than a half is left to it: on a quiet machine msgbuf
 * with movable messages is behind in a third of its collections, its
 * thread keeping up, and helping it then doubled the p99 pause (2.5 ->
 * 5.0 ms; bench/optimisations.md).  From the first collection that finds
 * a phase lagging until the phase ends, the
 * phase is paced: each collection's interval must have seen a pace of
 * work, counted in the mark thread's stop checks (one per 256 entries
 * marked, or per segment or group swept: nonmoving_thread_progress),
 * and the collection, the world stopped and the mark thread parked, does
 * what the thread fell short of: it marks from the mark's queue and the
 * barrier's full chunks (nonmoving_mark_step, as the mark thread does,
 * stopped by a count), or sweeps segments and groups -- the world being
 * stopped, freeing them at once.  The pace starts at HELP_FIRST_SLICE
 * checks (2,048 entries, or 8 segments and groups) and doubles at each
 * collection of the phase up to HELP_FIRST_SLICE << HELP_MAX_DOUBLINGS
 * (65,536 entries, or 256 segments and groups, a few milliseconds).  So
 * a phase with W checks of work left when it starts lagging ends within
 * HELP_MAX_DOUBLINGS + 1 + W / 256 collections however seldom its thread
 * runs (the mark's W grows only by the values the program's writes
 * overwrite), a help costs at most the cap, and a thread that keeps the
 * pace costs the pauses nothing.  A help that empties the queue runs the
 * sync in its own pause, as the mark thread would have asked; one that
 * ends the sweep ends the cycle.  The mark thread, when it wakes, works
 * on from where the help left the queue and the sweep's lists (all
 * global).  A cycle can also be late without any memory lag: a program
 * that collects back to back and promotes little (a unit test under
 * -A64k -DS: test_nonmoving's sweep test took 26 s to 2 minutes alone)
 * never grows its generation past the plan, so its starved cycle ran
 * only when the thread got a processor.  So once a cycle has lasted
 * HELP_LATE_COLLECTIONS collections its phases are paced too, lagging or
 * not.  That is more than a cycle that keeps its plan takes in the
 * bench's programs (binary-trees 21: 175 collections a cycle on average,
 * one of 20 past 128, none past 256), so a thread that keeps up is seldom
 * paced by it, and a cycle within its plan for fewer collections than
 * that is never paced.  This is
 * Go's mark assist (runtime/mgcmark.go's gcAssistAlloc) in spirit: there
 * the allocating goroutine pays for its allocation in scan work; here
 * the collecting thread pays for the interval in what the mark thread
 * did not do.  Measured against a pace that doubled without a cap (lists
 * 3000000: one help marked 4 million objects in a 450 ms pause) and
 * against helping only a thread that made no progress at all (msgbuf
 * at 1 GB still never ended a cycle once: its thread ran, slowly):
 * bench/optimisations.md.
 * A phase a test holds (nonmoving_hold) is not helped with. */
#define HELP_FIRST_SLICE 8
#define HELP_MAX_DOUBLINGS 5
#define HELP_LATE_COLLECTIONS 256

static uint64_t help_cycle;   /* 0: none yet (cycles count from 1) */
static int help_phase = NONMOVING_IDLE;
static unsigned help_round;
static uint64_t help_left;   /* stop checks left in this help's slice */
static uint64_t help_seen_progress;   /* the thread's, at the last collection */
static uint64_t age_cycle;   /* the cycle whose collections age_collections counts */
static unsigned age_collections;

static void help_reset(void)
{
    help_cycle = 0;
    help_phase = NONMOVING_IDLE;
    help_round = 0;
    help_seen_progress = nonmoving_thread_progress();
    age_cycle = 0;
    age_collections = 0;
}

/* Whether the running cycle has lasted HELP_LATE_COLLECTIONS collections
 * (of those that could help it: not while a test holds its phase), this
 * one included. */
static bool cycle_late(void)
{
    if (age_cycle != nonmoving_cycle) {
        age_cycle = nonmoving_cycle;
        age_collections = 0;
    }
    if (age_collections < HELP_LATE_COLLECTIONS)
        age_collections++;
    return age_collections >= HELP_LATE_COLLECTIONS;
}

static bool help_stop(void *arg)
{
    (void)arg;
    return --help_left == 0;
}

/* Whether a collection has helped with the running phase already. */
static bool helping(NonMovingPhase p)
{
    return help_cycle == nonmoving_cycle && help_phase == (int)p;
}

/* The work this collection's interval must have seen, in stop checks:
 * twice the last one's in the same phase of the same cycle, up to
 * HELP_FIRST_SLICE << HELP_MAX_DOUBLINGS. */
static uint64_t help_pace(NonMovingPhase p)
{
    if (!helping(p)) {
        help_cycle = nonmoving_cycle;
        help_phase = (int)p;
        help_round = 0;
    }
    unsigned shift = help_round < HELP_MAX_DOUBLINGS ? help_round : HELP_MAX_DOUBLINGS;
    help_round++;
    return (uint64_t)HELP_FIRST_SLICE << shift;
}

bool nonmoving_help_cycle(NonMovingLag lag)
{
    uint64_t progress = nonmoving_thread_progress();
    uint64_t by_thread = progress - help_seen_progress;
    help_seen_progress = progress;
    NonMovingPhase p = nonmoving_phase_now();
    if ((p != NONMOVING_MARKING && p != NONMOVING_SWEEPING) || nonmoving_phase_held(p))
        return false;
    /* Behind the plan, a thread that did a first slice's work since the
     * last collection is left to it; far behind, none is. */
    bool stalled = by_thread < HELP_FIRST_SLICE;
    bool lagging = lag == NONMOVING_FAR_BEHIND_PLAN || (lag == NONMOVING_BEHIND_PLAN && stalled);
    bool late = cycle_late();
    if (!(lagging || late || helping(p)))
        return false;
    uint64_t pace = help_pace(p);
    if (by_thread >= pace)
        return false;   /* the thread kept the pace */
    uint64_t slice = help_left = pace - by_thread;
    uint64_t steps;
    if (p == NONMOVING_MARKING) {
        StgWord marked = nonmoving_marked_objects;
        bool done = nonmoving_mark_step(help_stop);
        steps = nonmoving_marked_objects - marked;
        /* The sync the mark thread would ask for (it may have asked,
         * its queue found empty as the world stopped). */
        if (done)
            (void)mark_done(nonmoving_cycle);
        (void)sync_if_wanted(true);
    } else {
        bool done = nonmoving_sweep_until(&nonmoving_swept_pending, false, help_stop, NULL);
        steps = slice - help_left;
        if (done)
            sweep_ended(false);
    }
    stats.helps++;
    stats.help_steps += steps;
    if (steps > stats.max_help_steps)
        stats.max_help_steps = steps;
    debug_trace(DEBUG_GC, "gc: non-moving cycle %lu lags: this collection %s %lu (slice %lu)",
                (unsigned long)nonmoving_cycle,
                p == NONMOVING_MARKING ? "marked" : "swept", (unsigned long)steps,
                (unsigned long)slice);
    return end_if_swept();
}

bool nonmoving_snapshot_end(LiveTally *tally, bool exact)
{
    for (unsigned i = 0; i < gc_threads_max; i++)
        gc_threads[i]->nm_push = false;
    stats.phase_start_ns = clock_elapsed_ns();
    snapshot_words = nonmoving_generation_words();
    cycle_swept_words = 0;
    gc_observe_nonmoving(NONMOVING_EVENT_MARK_BEGIN, 0);
    cycle_tally = tally;   /* the snapshot's copies are counted in it */
    if (exact || nonmoving_thread_stopped()) {
        /* The whole cycle in this pause: its census is of this moment,
         * and its cost is the pause's. */
        __atomic_store_n(&last_cycle_cpu_ns, 0, __ATOMIC_RELAXED);
        set_phase(NONMOVING_MARKING);
        nonmoving_mark_until(&nonmoving_queue, false, tally, NULL, NULL);
        sync_stw(true);
        nonmoving_sweep_step(NULL);
        apply_swept();
        cycle_ended();
        stats.stw_cycles++;
        set_phase(NONMOVING_IDLE);
        return true;
    }
    if (tally != NULL) {
        /* The mark thread counts on (Note [A census from the snapshot]). */
        tally->filled = false;
        tally->counting = true;
        tally->at_ns = clock_elapsed_ns();
    }
    barrier_set_logging(true);
    set_phase(NONMOVING_MARKING);
    nonmoving_thread_wake();
    return false;
}

StgWord nonmoving_generation_words(void)
{
    return oldest_gen->n_words + oldest_gen->n_large_words;
}
