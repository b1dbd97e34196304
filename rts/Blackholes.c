/*
 * rts/Blackholes.c -- waiting for a blackhole another thread evaluates
 * (Note [Blackholes between threads] in Eval.c), and naming the waits that
 * can never end.
 *
 * Note [Cycles of blackhole waits]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Thread A evaluates thunk TA, whose entry forces TB; thread B evaluates
 * TB, whose entry forces TA.  Each finds the other's blackhole and waits
 * for it forever: the cross-thread <<loop>>.  GHC finds it when the
 * collector sees both threads unreachable and raises NonTermination in
 * one; strata's threads are OS threads the collector cannot reach, so the
 * cycle is found when it closes, as GHC's single-thread <<loop>> is.
 *
 * A thread that is about to wait registers itself on a list, under the
 * lock below and while it still holds its capability: the rooted slot
 * holding the blackhole, and its newest stack chunk with that chunk's
 * stack pointer.  From then until it leaves the list it pushes and pops no
 * frame, so another thread may read its frames under the lock; it holds a
 * capability while it does, so no collection moves the heap meanwhile
 * (collections do rewrite the slots, but chunks never move).  Registering
 * and looking for a cycle happen in one critical section, so of the
 * threads that close a cycle, the last to register sees all the others
 * registered: it follows owners (which registered thread has an eval frame
 * holding the blackhole it waits for, what that one waits for, and so on),
 * and if the chain comes back to itself, reports <<loop>> naming each
 * thread and each thunk's info table, stops the world (the others of the
 * cycle still wake every 10 ms and take capabilities) and exits 1 as the
 * one-thread case does.  A chain that reaches a blackhole no waiting thread evaluates ends:
 * its owner runs, and may still update it.
 *
 * Lock order: a thread holding the registry's lock (rts/Threads.c) may
 * take this one (blackholes_describe_wait, for hs_exit); this file never
 * takes the registry's lock.
 */
#include "Blackholes.h"

#include <stdatomic.h>
#include <stdio.h>

#include "Capability.h"
#include "Messages.h"
#include "Roots.h"
#include "Shutdown.h"
#include "os/Thread.h"
#include "strata/EventLogFormat.h"
#include "strata/Roots.h"

#define STOP_OTHERS_MS 1000u

static OsMutex blackhole_lock = OS_MUTEX_INIT;
static OsCond blackhole_updated = OS_COND_INIT;
static atomic_uint sleepers;              /* waiting on blackhole_updated */
static StrataThread *waiters;             /* registered, under the lock */

static const StgInfoTable *info_acquire(const StgClosure *c)
{
    return __atomic_load_n(&c->info, __ATOMIC_ACQUIRE);
}

const StgRootSite blackholes_eval_site = {"eval_thunk", __FILE__, __LINE__};

static const char *thunk_name(const StgClosure *bh)
{
    const StgInfoTable *info = ((const StgBlackhole *)bh)->thunk_info;
    return info != NULL && info->name != NULL ? info->name : "(unnamed)";
}

void blackholes_announce_update(void)
{
    if (atomic_load(&sleepers) > 0) {
        os_mutex_lock(&blackhole_lock);
        os_cond_broadcast(&blackhole_updated);
        os_mutex_unlock(&blackhole_lock);
    }
}

/* The registered thread evaluating the blackhole bh, or NULL (its owner
 * runs).  Under the lock. */
static StrataThread *waiting_owner(const StgClosure *bh)
{
    for (StrataThread *t = waiters; t != NULL; t = t->next_waiter)
        if (roots_frames_hold(t->blocked_stack, t->blocked_sp, &blackholes_eval_site, 0, bh))
            return t;
    return NULL;
}

/* True if following owners from me comes back to me.  Under the lock;
 * each step goes to a registered thread, so a chain longer than the list
 * has met a cycle that does not pass through me. */
static bool closes_cycle(StrataThread *me)
{
    unsigned steps = 0;
    for (StrataThread *t = waiters; t != NULL; t = t->next_waiter)
        steps++;
    StrataThread *t = me;
    while (steps-- > 0) {
        StgClosure *bh = *t->blocked_on;
        if (info_acquire(bh) != &stg_BLACKHOLE_info)
            return false;   /* updated: t is about to go on */
        t = waiting_owner(bh);
        if (t == NULL)
            return false;
        if (t == me)
            return true;
    }
    return false;
}

/* Names the cycle through me, one line a thread, and exits 1.  Called
 * with the lock held; the cycle's threads wait forever, so the chain
 * cannot change. */
_Noreturn static void report_cycle(StrataThread *me)
{
    unsigned n = 0;
    StrataThread *t = me;
    do {
        n++;
        t = waiting_owner(*t->blocked_on);
    } while (t != me);
    rts_error("<<loop>>: %u threads wait for each other's thunks (each evaluates the thunk "
              "the one before waits for):", n);
    t = me;
    do {
        StgClosure *bh = *t->blocked_on;
        StrataThread *owner = waiting_owner(bh);
        rts_error("<<loop>>:   thread %u (kernel thread %ld) waits for thunk %s, which thread "
                  "%u evaluates", (unsigned)t->id, t->os_tid, thunk_name(bh),
                  (unsigned)owner->id);
        t = owner;
    } while (t != me);
    os_mutex_unlock(&blackhole_lock);
    /* The other threads of the cycle still wake and take capabilities;
     * stop them (a thread that reaches no safe point within a second is
     * left running) so that the exit's statistics read quiet ones. */
    (void)capability_stop_world_within(STOP_OTHERS_MS);
    rts_shutdown_and_exit(1);
}

/* Registers the calling thread as waiting for the blackhole in *slot, and
 * reports the cycle this closes, if it closes one. */
static void register_waiter(StrataThread *me, StgClosure **slot)
{
    roots_sync_stack();
    os_mutex_lock(&blackhole_lock);
    me->blocked_on = slot;
    me->blocked_stack = roots_current_stack();
    me->blocked_sp = me->blocked_stack->sp;
    me->next_waiter = waiters;
    waiters = me;
    if (closes_cycle(me))
        report_cycle(me);
    os_mutex_unlock(&blackhole_lock);
}

static void unregister_waiter(StrataThread *me)
{
    os_mutex_lock(&blackhole_lock);
    for (StrataThread **p = &waiters; *p != NULL; p = &(*p)->next_waiter)
        if (*p == me) {
            *p = me->next_waiter;
            break;
        }
    me->blocked_on = NULL;
    me->next_waiter = NULL;
    os_mutex_unlock(&blackhole_lock);
}

StgClosure *blackholes_wait(StgClosure *c)
{
    STRATA_ROOTS(w, 1);
    w[0] = c;
    StrataThread *me = threads_mine();
    register_waiter(me, &w[0]);
    while (info_acquire(w[0]) == &stg_BLACKHOLE_info) {
        threads_block(THREAD_STOP_BLOCKED_ON_BLACKHOLE);
        os_mutex_lock(&blackhole_lock);
        atomic_fetch_add(&sleepers, 1);
        OsDeadline deadline = os_deadline_after_ms(10);
        (void)os_cond_wait_until(&blackhole_updated, &blackhole_lock, &deadline);
        atomic_fetch_sub(&sleepers, 1);
        os_mutex_unlock(&blackhole_lock);
        threads_unblock();
    }
    unregister_waiter(me);
    c = w[0];
    STRATA_ROOTS_POP(w);
    return c;
}

bool blackholes_describe_wait(const StrataThread *t, char *buf, size_t size)
{
    os_mutex_lock(&blackhole_lock);
    bool waiting = t->blocked_on != NULL;
    if (waiting) {
        StgClosure *bh = *t->blocked_on;
        StrataThread *owner = waiting_owner(bh);
        if (owner != NULL)
            snprintf(buf, size, "waits for thunk %s, which thread %u evaluates (it waits too)",
                     thunk_name(bh), (unsigned)owner->id);
        else   /* a running owner may be writing the thunk's table: no name */
            snprintf(buf, size, "waits for a thunk another thread is evaluating");
    }
    os_mutex_unlock(&blackhole_lock);
    return waiting;
}
