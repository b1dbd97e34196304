/*
 * rts/Threads.c -- attaching OS threads to the runtime: rts_lock,
 * rts_unlock, rts_suspend, rts_resume, strata_safepoint (see Threads.h and
 * docs/design/capabilities.md).
 *
 * Note [Threads and capabilities]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A strata thread is an OS thread attached to the runtime: it has a TSO
 * whose STACK chunks hold its local-root frames, and while it runs it
 * holds a capability.  rts_lock attaches the caller (a new thread, with a
 * new id, as GHC gives each call-in a new Haskell thread) and takes a
 * capability; rts_unlock gives the capability back and detaches, unless
 * frames are still pushed (then the thread stays attached, its frames stay
 * roots, and the next rts_lock on that OS thread goes on with it).
 * rts_suspend gives the capability back but stays attached: the frames
 * stay roots and are updated by collections that run meanwhile, and the C
 * variables must hold no heap pointers, exactly as in a GHC safe foreign
 * call.  The registry is changed only by a thread holding a capability,
 * never during a sync, so the collector reads it with the world stopped.
 */
#include "Threads.h"

#include <stdio.h>
#include <stdlib.h>

#include "EventLog.h"
#include "Messages.h"
#include "Roots.h"
#include "Storage.h"
#include "os/Thread.h"
#include "strata/Api.h"
#include "strata/EventLogFormat.h"

static OsMutex registry_lock = OS_MUTEX_INIT;
static OsCond registry_changed = OS_COND_INIT;
static StrataThread *threads_all = NULL;    /* newest first */
static uint32_t next_thread_id = 1;
static _Thread_local StrataThread *me = NULL;

StrataThread *threads_mine(void)
{
    return me;
}

static void for_each_oldest_first(StrataThread *t, void (*f)(StrataThread *, void *), void *env)
{
    if (t == NULL)
        return;
    for_each_oldest_first(t->next, f, env);
    f(t, env);
}

void threads_for_each(void (*f)(StrataThread *t, void *env), void *env)
{
    os_mutex_lock(&registry_lock);
    /* A handful of threads: recursion depth is their number. */
    StrataThread *all = threads_all;
    os_mutex_unlock(&registry_lock);
    for_each_oldest_first(all, f, env);
}

/* Note [A thread that ends holding a capability]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A thread that takes a capability with rts_lock and ends without
 * rts_unlock would keep it for good: the other threads wait for it at
 * their next collection, hs_exit gives up on it, and an interrupt (an era
 * change, a tick) would write into its registers after its thread-local
 * storage is gone.  So each attached thread sets a thread-specific key,
 * and the key's destructor, which the C library runs as the thread ends,
 * names the misuse and does what rts_unlock would, its local-root frames
 * dropped.  A thread that ends suspended or with frames left pushed holds
 * no capability: hs_exit names it, as before.  The thread that called
 * hs_init is left alone (only it may call hs_exit). */
static OsThreadKey ending_key;
static bool ending_key_made;   /* under registry_lock */

static void thread_ending(void *arg)
{
    StrataThread *t = arg;
    if (t != me || capabilities_n == 0 || capability_mine() == NULL || t->id == 1)
        return;
    rts_error("thread %u (kernel thread %ld) ended holding capability %u (rts_lock with no "
              "rts_unlock): it is given back and the thread detached, its local roots dropped",
              (unsigned)t->id, t->os_tid, capability_mine()->no);
    threads_detach();
    capability_release();
}

StrataThread *threads_attach(Capability *cap)
{
    (void)cap;
    StrataThread *t = calloc(1, sizeof *t);
    if (t == NULL)
        rts_panic("out of C heap attaching thread %ld", os_thread_id());
    t->os_tid = os_thread_id();
    os_mutex_lock(&registry_lock);
    t->id = next_thread_id++;
    t->next = threads_all;
    threads_all = t;
    if (!ending_key_made)
        ending_key_made = os_thread_key_create(&ending_key, thread_ending) == 0;
    os_mutex_unlock(&registry_lock);
    me = t;
    if (ending_key_made)
        os_thread_key_set(ending_key, t);
    eventlog_post_create_thread(t->id);
    eventlog_post_run_thread(t->id);
    roots_thread_init(&t->tso, t->id);   /* allocates: t is registered with no TSO yet */
    return t;
}

void threads_detach(void)
{
    StrataThread *t = me;
    eventlog_post_stop_thread(t->id, THREAD_STOP_FINISHED);
    os_mutex_lock(&registry_lock);
    for (StrataThread **p = &threads_all; *p != NULL; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    os_cond_broadcast(&registry_changed);
    os_mutex_unlock(&registry_lock);
    roots_thread_exit();
    if (ending_key_made)
        os_thread_key_set(ending_key, NULL);
    me = NULL;
    free(t);
}

typedef struct {
    RootEvacFn evac;
    void *ctx;
} VisitArgs;

static void visit_thread_roots(StrataThread *t, void *env)
{
    const VisitArgs *a = env;
    roots_visit_thread(&t->tso, a->evac, a->ctx);
}

/* The other threads wrote their stack pointers back before parking or
 * suspending (threads_before_park, rts_suspend); the caller's is written
 * here. */
void threads_visit_roots(RootEvacFn evac, void *ctx)
{
    roots_sync_stack();
    VisitArgs a = {evac, ctx};
    threads_for_each(visit_thread_roots, &a);
}

void threads_before_park(void)
{
    roots_sync_stack();
}

static unsigned count_others_locked(void)
{
    unsigned n = 0;
    for (StrataThread *t = threads_all; t != NULL; t = t->next)
        n += t != me;
    return n;
}

/* One line for a thread hs_exit gives up on: what it waits for.  Under
 * the registry's lock (describe_wait may take the blackholes' lock). */
static void report_left_behind(const StrataThread *t, ThreadWaitDescriber *describe_wait)
{
    char wait[160];
    if (!describe_wait(t, wait, sizeof wait))
        snprintf(wait, sizeof wait, "%s", t->suspended ? "suspended in a foreign call"
                                                       : "holding a capability");
    rts_error("hs_exit:   thread %u (kernel thread %ld), %s", (unsigned)t->id, t->os_tid, wait);
}

bool threads_wait_for_others(uint32_t timeout_ms, ThreadWaitDescriber *describe_wait)
{
    OsDeadline deadline = os_deadline_after_ms(timeout_ms);
    os_mutex_lock(&registry_lock);
    while (count_others_locked() > 0)
        if (os_cond_wait_until(&registry_changed, &registry_lock, &deadline) != 0)
            break;
    unsigned left = count_others_locked();
    if (left > 0) {
        rts_error("hs_exit: %u other thread%s still attached after %u ms; the runtime stops "
                  "without them (each rts_lock needs its rts_unlock, each rts_suspend its "
                  "rts_resume and rts_unlock):", left, left == 1 ? " is" : "s are",
                  (unsigned)timeout_ms);
        for (StrataThread *t = threads_all; t != NULL; t = t->next)
            if (t != me)
                report_left_behind(t, describe_wait);
    }
    os_mutex_unlock(&registry_lock);
    return left == 0;
}

void threads_exit(void)
{
    os_mutex_lock(&registry_lock);
    StrataThread *t = threads_all;
    threads_all = NULL;
    next_thread_id = 1;
    os_mutex_unlock(&registry_lock);
    while (t != NULL) {
        StrataThread *next = t->next;
        if (t != me)
            free(t);   /* left behind by a thread hs_exit gave up on */
        t = next;
    }
    if (ending_key_made)
        os_thread_key_set(ending_key, NULL);
    free(me);
    me = NULL;
}

/* ----------------------------------------------------------------------
 * The public API
 * ---------------------------------------------------------------------- */

static bool runtime_running(const char *who)
{
    if (capabilities_n > 0)
        return true;
    rts_error("%s: the runtime is not running (call hs_init first; hs_exit stops it)", who);
    return false;
}

Capability *rts_lock(void)
{
    if (!runtime_running("rts_lock"))
        return NULL;
    Capability *mine = capability_mine();
    if (mine != NULL) {
        rts_error("rts_lock: refused: thread %ld already holds capability %u (call rts_unlock "
                  "first; capabilities are not taken twice)", os_thread_id(), mine->no);
        return NULL;
    }
    if (me != NULL && me->suspended) {
        rts_error("rts_lock: refused: thread %ld is suspended by rts_suspend (call rts_resume "
                  "to take a capability back)", os_thread_id());
        return NULL;
    }
    Capability *cap = capability_acquire();
    if (me == NULL)
        threads_attach(cap);
    else
        eventlog_post_run_thread(me->id);   /* frames were left pushed */
    me->locked_cap = cap;
    return cap;
}

void rts_unlock(Capability *cap)
{
    if (!runtime_running("rts_unlock"))
        return;
    Capability *mine = capability_mine();
    if (mine == NULL) {
        rts_error("rts_unlock: refused: thread %ld holds no capability%s", os_thread_id(),
                  me != NULL && me->suspended ? " (it is suspended: call rts_resume first)" : "");
        return;
    }
    /* After rts_suspend/rts_resume the thread may hold another capability
     * than the one rts_lock returned; either names it. */
    if (cap != mine && (me == NULL || cap != me->locked_cap)) {
        rts_error("rts_unlock: refused: capability %p is not the one thread %ld holds "
                  "(capability %u)", (void *)cap, os_thread_id(), mine->no);
        return;
    }
    if (me != NULL && me->id == 1) {
        rts_error("rts_unlock: refused: the thread that called hs_init keeps its capability "
                  "until hs_exit (use rts_suspend around a blocking call instead)");
        return;
    }
    roots_sync_stack();
    if (roots_pushed_frames_mine() > 0) {
        /* Its frames stay roots: the thread stays attached. */
        eventlog_post_stop_thread(me->id, THREAD_STOP_YIELDING);
        capability_release();
        return;
    }
    threads_detach();
    capability_release();
}

void threads_block(uint16_t status)
{
    roots_sync_stack();
    me->suspended = true;
    eventlog_post_stop_thread(me->id, status);
    capability_release();
}

void threads_unblock(void)
{
    capability_acquire();
    me->suspended = false;
    eventlog_post_run_thread(me->id);
}

void rts_suspend(void)
{
    if (!runtime_running("rts_suspend"))
        return;
    if (capability_mine() == NULL || me == NULL) {
        rts_error("rts_suspend: refused: thread %ld holds no capability (%s)", os_thread_id(),
                  me != NULL && me->suspended ? "it is suspended already"
                                              : "call rts_lock first");
        return;
    }
    threads_block(THREAD_STOP_FOREIGN_CALL);
}

void rts_resume(void)
{
    if (!runtime_running("rts_resume"))
        return;
    if (me == NULL || !me->suspended) {
        rts_error("rts_resume: refused: thread %ld is not suspended (rts_resume without "
                  "rts_suspend)", os_thread_id());
        return;
    }
    threads_unblock();
}

void strata_safepoint(void)
{
    if (capability_mine() == NULL) {
        if (capabilities_n > 0)
            rts_error("strata_safepoint: thread %ld holds no capability (call rts_lock first)",
                      os_thread_id());
        return;
    }
    storage_safepoint();
}

unsigned strata_n_capabilities(void)
{
    return capabilities_n;
}

uint32_t strata_my_thread_id(void)
{
    return me != NULL ? me->id : 0;
}
