/*
 * sm/NonMovingThread.c -- the non-moving generation's mark thread: an OS
 * thread of the runtime, started at the first cycle, that marks while the
 * program runs, asks the program for the cycle's sync pause, then sweeps.
 * It holds no capability: it parks whenever the world stops (Note [The
 * mark thread parks]).  Relies on the cycle's steps in NonMoving.c
 * (NonMovingPrivate.h) and on the capabilities' sync (Capability.h).
 *
 * Note [The mark thread parks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The mark thread reads the heap beside the mutators, never beside the
 * collector: between two objects it marks (every MARK_STOP_CHECK_EVERY)
 * and two segments it sweeps it looks at the capabilities' sync flag, and
 * when a thread is stopping the world (a collection, the sync pause, a
 * debugger's pause, an eventlog flush) it parks there until the world
 * runs again (capability_worker_park); the thread stopping the world waits
 * for it as for a capability.  What it works on between parks -- the mark
 * queue, the sweep's lists -- is global, so a collection that must finish
 * the cycle at once (strata_perform_gc, a heap over -M) takes it over with
 * the world stopped, and the thread, when it wakes, sees another cycle or
 * phase and goes back to waiting.  A collection that finds the cycle
 * lagging behind the program takes a slice of it the same way, and the
 * thread works on from where the slice left the queue or the sweep's
 * lists (Note [A collection helps a lagging cycle] in NonMoving.c): so a
 * cycle ends however seldom the thread is scheduled between
 * collections.  So a collection never moves an object
 * the mark thread holds a pointer to: the queue holds objects of the
 * generation only, which never move, and a young pointer read from a
 * field is tested (and dropped) before the thread can park.
 *
 * While it marks or sweeps, and is not parked, the thread wants a
 * processor of its own; where the prefault helper would take the one it
 * needs (fewer processors than the capabilities, the helper and this
 * thread), the helper makes way (Note [The helper never holds up the
 * program] in sm/block/Prefault.c): it takes no processor from the mark
 * thread, so a stop of the world does not wait for the mark thread to be
 * scheduled before it can park.
 */
#include "NonMovingPrivate.h"

#include "Capability.h"
#include "MBlock.h"
#include "Messages.h"
#include "os/Clock.h"

static OsThread mark_thread;
static bool mark_thread_started;
static bool exit_wanted;         /* under nonmoving_lock; read atomically */
static bool mark_thread_done;    /* under nonmoving_lock: it has returned */
static bool stopped_for_good;    /* under nonmoving_lock: no thread until
                                    nonmoving_thread_reset */
static int held_phase;           /* NonMovingPhase, under nonmoving_lock;
                                    read atomically: nonmoving_hold */
static bool starved;             /* the same: nonmoving_starve_mark_thread */
static uint64_t ration_end;      /* progress at which a rationed thread
                                    starves (0: none); atomic:
                                    nonmoving_ration_mark_thread */
static bool helper_makes_way;    /* no processor spare for the prefault
                                    helper and this thread: set at start */

/* The thread starts or stops working beside the program (Note [The mark
 * thread parks]). */
static void working(bool on)
{
    if (helper_makes_way)
        mblock_prefault_make_way(on);
}

static void park(void)
{
    working(false);
    capability_worker_park();
    working(true);
}

/* A stop between two objects or segments: the world is stopping, or the
 * runtime is. */
static bool should_stop(void *arg)
{
    (void)arg;
    return capability_worker_should_park() || __atomic_load_n(&exit_wanted, __ATOMIC_RELAXED);
}

/* Whether a test keeps the thread from working in phase. */
static bool thread_held(NonMovingPhase phase)
{
    return nonmoving_phase_held(phase) || __atomic_load_n(&starved, __ATOMIC_RELAXED);
}

/* Stop checks passed while marking or sweeping: a count of the thread's
 * work (Note [A collection helps a lagging cycle] in NonMoving.c).
 * Written by the thread alone. */
static uint64_t progress;

static bool working_stop(void *arg)
{
    uint64_t done = __atomic_load_n(&progress, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&progress, done, __ATOMIC_RELAXED);
    uint64_t end = __atomic_load_n(&ration_end, __ATOMIC_RELAXED);
    if (end != 0 && done >= end) {
        __atomic_store_n(&ration_end, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&starved, true, __ATOMIC_RELAXED);
        return true;
    }
    return should_stop(arg);
}

uint64_t nonmoving_thread_progress(void)
{
    return __atomic_load_n(&progress, __ATOMIC_RELAXED);
}

static bool still(NonMovingPhase phase, uint64_t cycle)
{
    return nonmoving_phase_now() == phase && !thread_held(phase) &&
           __atomic_load_n(&nonmoving_cycle, __ATOMIC_ACQUIRE) == cycle &&
           !__atomic_load_n(&exit_wanted, __ATOMIC_RELAXED);
}

/* Marks until nothing is left, parking for every sync; then asks for the
 * cycle's sync pause. */
static void run_mark(uint64_t cycle)
{
    bool done = false;
    capability_worker_begin();
    working(true);
    while (still(NONMOVING_MARKING, cycle)) {
        if (should_stop(NULL)) {
            park();
            continue;
        }
        if (nonmoving_mark_step(working_stop)) {
            done = true;
            break;
        }
    }
    working(false);
    capability_worker_end();
    if (done)
        nonmoving_ask_for_sync(cycle);
}

/* Sweeps until done, parking for every sync. */
static void run_sweep(uint64_t cycle)
{
    capability_worker_begin();
    working(true);
    while (still(NONMOVING_SWEEPING, cycle)) {
        if (should_stop(NULL)) {
            park();
            continue;
        }
        if (nonmoving_sweep_step(working_stop))
            break;
    }
    working(false);
    capability_worker_end();
}

/* How long the thread waits for its sync pause before it interrupts the
 * capabilities again (a sync that was not its own may have taken the
 * interrupt). */
#define SYNC_RETRY_MS 2

static void *mark_thread_main(void *arg)
{
    (void)arg;
    os_mutex_lock(&nonmoving_lock);
    while (!exit_wanted) {
        NonMovingPhase phase = nonmoving_phase_now();
        uint64_t cycle = nonmoving_cycle;
        if ((phase == NONMOVING_MARKING || phase == NONMOVING_SWEEPING) &&
            thread_held(phase)) {
            os_cond_wait(&nonmoving_changed, &nonmoving_lock);   /* idle: no sync waits */
        } else if (phase == NONMOVING_MARKING || phase == NONMOVING_SWEEPING) {
            os_mutex_unlock(&nonmoving_lock);
            nonmoving_note_cycle_cpu_start(cycle, clock_thread_cpu_ns());
            if (phase == NONMOVING_MARKING)
                run_mark(cycle);
            else
                run_sweep(cycle);
            nonmoving_note_thread_cpu(clock_thread_cpu_ns());   /* +RTS -s */
            os_mutex_lock(&nonmoving_lock);
        } else if (phase == NONMOVING_SYNC_WANTED) {
            OsDeadline d = os_deadline_after_ms(SYNC_RETRY_MS);
            if (os_cond_wait_until(&nonmoving_changed, &nonmoving_lock, &d) != 0 &&
                nonmoving_phase_now() == NONMOVING_SYNC_WANTED) {
                os_mutex_unlock(&nonmoving_lock);
                capabilities_interrupt_all();
                os_mutex_lock(&nonmoving_lock);
            }
        } else {
            os_cond_wait(&nonmoving_changed, &nonmoving_lock);
        }
    }
    mark_thread_done = true;
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
    return NULL;
}

void nonmoving_thread_wake(void)
{
    os_mutex_lock(&nonmoving_lock);
    ASSERT(!stopped_for_good);
    if (!mark_thread_started) {
        helper_makes_way = os_cpus_available() < capabilities_n + 2;
        int err = os_thread_start(&mark_thread, mark_thread_main, NULL);
        if (err != 0)
            rts_panic("cannot start the non-moving generation's mark thread (errno=%d)", err);
        mark_thread_started = true;
    }
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
}

/* How often a thread that waits for the mark thread to end looks at
 * whether a sync wants it parked. */
#define STOP_POLL_MS 1

void nonmoving_thread_stop(void)
{
    os_mutex_lock(&nonmoving_lock);
    stopped_for_good = true;
    bool started = mark_thread_started;
    __atomic_store_n(&exit_wanted, true, __ATOMIC_RELAXED);
    os_cond_broadcast(&nonmoving_changed);
    /* The mark thread may be parked for another thread's sync, which
     * waits for this one too: wait at safe points, not in the join. */
    while (started && !mark_thread_done) {
        OsDeadline d = os_deadline_after_ms(STOP_POLL_MS);
        (void)os_cond_wait_until(&nonmoving_changed, &nonmoving_lock, &d);
        os_mutex_unlock(&nonmoving_lock);
        (void)capability_safepoint();
        os_mutex_lock(&nonmoving_lock);
    }
    mark_thread_started = false;
    os_mutex_unlock(&nonmoving_lock);
    if (started)
        os_thread_join(mark_thread);
}

void nonmoving_hold(NonMovingPhase phase)
{
    os_mutex_lock(&nonmoving_lock);
    __atomic_store_n(&held_phase, (int)phase, __ATOMIC_RELAXED);
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
}

void nonmoving_starve_mark_thread(bool on)
{
    os_mutex_lock(&nonmoving_lock);
    __atomic_store_n(&ration_end, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&starved, on, __ATOMIC_RELAXED);
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
}

void nonmoving_ration_mark_thread(uint64_t checks)
{
    os_mutex_lock(&nonmoving_lock);
    __atomic_store_n(&ration_end, checks == 0 ? 0 : nonmoving_thread_progress() + checks,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&starved, checks == 0, __ATOMIC_RELAXED);
    os_cond_broadcast(&nonmoving_changed);
    os_mutex_unlock(&nonmoving_lock);
}

bool nonmoving_mark_thread_has_ration(void)
{
    return __atomic_load_n(&ration_end, __ATOMIC_RELAXED) != 0;
}

bool nonmoving_phase_held(NonMovingPhase phase)
{
    return (int)phase == __atomic_load_n(&held_phase, __ATOMIC_RELAXED);
}

bool nonmoving_thread_stopped(void)
{
    os_mutex_lock(&nonmoving_lock);
    bool stopped = stopped_for_good;
    os_mutex_unlock(&nonmoving_lock);
    return stopped;
}

void nonmoving_thread_reset(void)
{
    mark_thread_started = mark_thread_done = stopped_for_good = false;
    __atomic_store_n(&held_phase, NONMOVING_IDLE, __ATOMIC_RELAXED);
    __atomic_store_n(&starved, false, __ATOMIC_RELAXED);
    __atomic_store_n(&ration_end, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&exit_wanted, false, __ATOMIC_RELAXED);
}
