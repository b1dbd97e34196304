/*
 * sm/heap/Capability.c -- capabilities, the thread-local registers and the
 * stop-the-world sync (see Capability.h and docs/design/capabilities.md).
 *
 * Note [Stopping the world]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * One scheduler lock guards which capability is held by whom, which are
 * parked, and who owns a sync.  A thread that needs the world stopped (a
 * GC, a debugger pause, an eventlog flush) sets sync_owner under the lock,
 * raises xsync_pending and clears every other held capability's hp_lim,
 * so that each holder's next allocation enters the slow path, which calls
 * capability_safepoint.  There the holder runs capability_before_park_hook
 * (its root stack pointer becomes visible), writes its bump pointer into
 * its nursery block, marks itself parked, and waits.  rts_suspend releases
 * the capability instead, which the sync also accepts: a free capability
 * holds no thread's pointers.  The owner waits until every other held
 * capability is parked; while the sync lasts no free capability can be
 * taken.  Everything the parked threads wrote before parking happens
 * before the owner's work (the lock hand-over), and everything the owner
 * wrote -- including the parked threads' own registers, which a GC resets
 * -- happens before they run again.
 *
 * Two threads may ask for a sync at once.  The second finds sync_owner
 * set and parks like any other capability; when it wakes the world may
 * have changed under it (its nursery was emptied by a GC), so
 * capability_stop_world returns false and the caller looks again.
 */
#include "Capability.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "Messages.h"
#include "os/Clock.h"
#include "os/Thread.h"

Capability *capabilities = NULL;
unsigned capabilities_n = 0;

static _Thread_local Capability *my_cap = NULL;

static OsMutex sched_lock = OS_MUTEX_INIT;
static OsCond sched_changed = OS_COND_INIT;
static Capability *sync_owner = NULL;   /* under sched_lock */
static unsigned sync_depth = 0;         /* owner's nested stops */
static atomic_bool xsync_pending;
static SyncStats sync_stats;            /* under sched_lock */
static bool worker_active;              /* under sched_lock: the collector's
                                           worker touches the heap */
static bool worker_parked;              /* under sched_lock: ... and waits
                                           for a sync to end */

static OsMutex sm_mutex = OS_MUTEX_INIT;

void (*capability_before_park_hook)(void) = NULL;

_Thread_local StgRegs strata_regs STRATA_TLS_MODEL;

void sm_lock(void)
{
    os_mutex_lock(&sm_mutex);
}

void sm_unlock(void)
{
    os_mutex_unlock(&sm_mutex);
}

Capability *capability_mine(void)
{
    return my_cap;
}

static void wait_for_interrupters(void);

static void regs_hp_lim_store(StgRegs *r, StgPtr lim)
{
    __atomic_store_n(&r->hp_lim, lim, __ATOMIC_RELAXED);
}

/* ----------------------------------------------------------------------
 * Start-up
 * ---------------------------------------------------------------------- */

bool capabilities_init(unsigned n, unsigned n_gens)
{
    capabilities = aligned_alloc(OS_CACHE_LINE, n * sizeof(Capability));
    if (capabilities == NULL) {
        rts_error("capabilities: out of C heap for %u capabilities", n);
        return false;
    }
    memset(capabilities, 0, n * sizeof(Capability));
    capabilities_n = n;
    for (unsigned i = 0; i < n; i++) {
        Capability *cap = &capabilities[i];
        cap->no = i;
        cap->regs = &cap->saved;
        cap->sample_at_words = STGWORD_MAX;   /* not sampling */
        cap->mut_lists = calloc(n_gens, sizeof(BlockDesc *));
        if (cap->mut_lists == NULL) {
            rts_error("capabilities: out of C heap for capability %u", i);
            return false;
        }
    }
    atomic_store(&xsync_pending, false);
    sync_owner = NULL;
    sync_depth = 0;
    worker_active = worker_parked = false;
    memset(&sync_stats, 0, sizeof sync_stats);
    return true;
}

void capabilities_exit(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        free(capabilities[i].mut_lists);
    free(capabilities);
    capabilities = NULL;
    capabilities_n = 0;
    my_cap = NULL;
    memset(&strata_regs, 0, sizeof strata_regs);
}

/* ----------------------------------------------------------------------
 * Taking and giving back
 * ---------------------------------------------------------------------- */

static Capability *free_capability_locked(void)
{
    if (sync_owner != NULL)
        return NULL;   /* a stopped world stays stopped */
    for (unsigned i = 0; i < capabilities_n; i++)
        if (!capabilities[i].held)
            return &capabilities[i];
    return NULL;
}

static Capability *take_locked(Capability *cap)
{
    cap->held = true;
    cap->parked = false;
    cap->holder_tid = os_thread_id();
    strata_regs.hp = cap->saved.hp;
    /* The first allocation takes the slow path, which restores the limit
     * in the current era: interrupters skip a free capability (Note
     * [Interrupting without the lock]).  The SC publication pairs with
     * their SC read of regs. */
    regs_hp_lim_store(&strata_regs, NULL);
    __atomic_store_n(&cap->regs, &strata_regs, __ATOMIC_SEQ_CST);
    my_cap = cap;
    return cap;
}

Capability *capability_acquire(void)
{
    ASSERT(my_cap == NULL);
    os_mutex_lock(&sched_lock);
    Capability *cap;
    while ((cap = free_capability_locked()) == NULL)
        os_cond_wait(&sched_changed, &sched_lock);
    take_locked(cap);
    os_mutex_unlock(&sched_lock);
    return cap;
}

void capability_release(void)
{
    Capability *cap = my_cap;
    ASSERT(cap != NULL);
    os_mutex_lock(&sched_lock);
    cap->saved.hp = strata_regs.hp;
    cap->saved.hp_lim = __atomic_load_n(&strata_regs.hp_lim, __ATOMIC_RELAXED);
    __atomic_store_n(&cap->regs, &cap->saved, __ATOMIC_SEQ_CST);
    cap->held = false;
    cap->holder_tid = 0;
    my_cap = NULL;
    strata_regs.hp = NULL;
    regs_hp_lim_store(&strata_regs, NULL);
    os_cond_broadcast(&sched_changed);
    os_mutex_unlock(&sched_lock);
    /* An interrupter that read regs before the store above may still
     * write our hp_lim: our thread (and its registers) may end once we
     * return. */
    wait_for_interrupters();
}

unsigned capabilities_held(void)
{
    unsigned n = 0;
    os_mutex_lock(&sched_lock);
    for (unsigned i = 0; i < capabilities_n; i++)
        n += capabilities[i].held;
    os_mutex_unlock(&sched_lock);
    return n;
}

/* ----------------------------------------------------------------------
 * Syncs (Note [Stopping the world])
 * ---------------------------------------------------------------------- */

/* Note [Interrupting without the lock]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An interrupt (an era change, an attention request) stores NULL into the
 * hp_lim of every held capability, found through cap->regs: the holder's
 * thread-local registers.  A thread that holds a capability interrupts
 * without a lock, so a holder may give its capability back, and its
 * thread end, between the interrupter's read of regs and its store.  So
 * the interrupter makes its own capability's xinterrupt_seq odd across
 * its reads and stores (only the holder writes it: a store, not an
 * atomic read-modify-write), and capability_release, after pointing regs
 * back at the saved copy, waits until every capability's count is even or
 * has moved on before it returns.  An SC store of the count then SC reads
 * of regs, against an SC store of regs then SC reads of the counts: either
 * the interrupter reads the saved copy or the releaser sees it at work.
 * A thread without a capability (the debug stub's, the control socket's)
 * interrupts under sched_lock instead, as rarely as it asks for attention.
 * A NULL that lands in a thread's registers after it gave the capability
 * back is harmless: such a thread has hp_lim = NULL anyway, and one that
 * took a capability again takes one slow path more.
 *
 * A free capability is skipped: capability_acquire clears the limit, so
 * its holder's first allocation takes the slow path and catches up with
 * the era there.  The publication of regs there and the interrupter's
 * reads of it are SC, after the era's CAS and before the holder's look at
 * the era: either the interrupter sees the holder's registers and clears
 * them, or the holder's catch-up sees the new era (Note [Changing the era
 * without stopping the world] in Era.c).  Attention requests to a free
 * capability need nothing more: their flags are checked on every slow
 * path.  GC syncs clear limits under sched_lock (stop_world).
 *
 * The NULL itself is a release store.  All the era argument asks of it is
 * to land after the interrupter's CAS and its read of regs, and a release
 * store after sequentially consistent operations does on both targets
 * strata runs on: a plain move after a locked instruction on x86-64 (TSO
 * keeps stores in order), and on AArch64 the same stlr an SC store is.
 * An SC store would be an xchg on x86-64, which waits for the holder's
 * cache line to arrive; the release store leaves it in the store buffer
 * (bench/optimisations.md, row 655a0be).  It also
 * pairs with the holder's acquire load of hp_lim, so a request's flag,
 * stored before the NULL, is seen. */

/* NULL into every held capability's hp_lim but skip's, after the era's
 * SC CAS and against the holders' catch-up (Note [Interrupting without
 * the lock]).  A release store, not an SC one: see there. */
static void interrupt_held(const Capability *skip)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *c = &capabilities[i];
        if (c == skip)
            continue;
        StgRegs *r = __atomic_load_n(&c->regs, __ATOMIC_SEQ_CST);
        if (r != &c->saved)
            __atomic_store_n(&r->hp_lim, NULL, __ATOMIC_RELEASE);
    }
}

static void interrupt(bool skip_mine)
{
    Capability *me = my_cap;
    if (me == NULL) {
        os_mutex_lock(&sched_lock);   /* no regs changes meanwhile */
        interrupt_held(NULL);
        os_mutex_unlock(&sched_lock);
        return;
    }
    if (skip_mine && capabilities_n == 1)
        return;   /* -N1: no one else to tell */
    uint32_t seq = me->xinterrupt_seq;
    __atomic_store_n(&me->xinterrupt_seq, seq + 1, __ATOMIC_SEQ_CST);
    interrupt_held(skip_mine ? me : NULL);
    __atomic_store_n(&me->xinterrupt_seq, seq + 2, __ATOMIC_RELEASE);
}

void capabilities_interrupt_others(void)
{
    interrupt(true);
}

void capabilities_interrupt_all(void)
{
    interrupt(false);
}

/* For capability_release: waits out every interrupter that may have read
 * the registers it gave back (Note [Interrupting without the lock]). */
static void wait_for_interrupters(void)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        uint32_t *x = &capabilities[i].xinterrupt_seq;
        uint32_t seq = __atomic_load_n(x, __ATOMIC_SEQ_CST);
        while ((seq & 1) != 0 && __atomic_load_n(x, __ATOMIC_ACQUIRE) == seq)
            os_thread_yield();
    }
}

void capability_sync_nursery(Capability *cap)
{
    if (cap->nursery.current != NULL)
        cap->nursery.current->free = cap->regs->hp;
}

/* Parks my_cap until no sync is in progress; called with sched_lock held.
 * Before it counts as parked, its roots and bump pointer are written back
 * (.inv.stopped); stop_world waits for every other held capability. */
static void park_locked(Capability *cap)
{
    if (capability_before_park_hook != NULL)
        capability_before_park_hook();
    capability_sync_nursery(cap);
    cap->parked = true;
    os_cond_broadcast(&sched_changed);
    while (sync_owner != NULL)
        os_cond_wait(&sched_changed, &sched_lock);
    cap->parked = false;
}

bool capability_safepoint(void)
{
    if (!atomic_load_explicit(&xsync_pending, memory_order_acquire))
        return false;
    Capability *cap = my_cap;
    if (cap == NULL)
        return false;
    os_mutex_lock(&sched_lock);
    bool parked = sync_owner != NULL && sync_owner != cap;
    if (parked)
        park_locked(cap);
    os_mutex_unlock(&sched_lock);
    return parked;
}

static bool all_others_parked_locked(const Capability *me)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        const Capability *c = &capabilities[i];
        if (c != me && c->held && !c->parked)
            return false;
    }
    return !worker_active || worker_parked;
}

void capability_worker_begin(void)
{
    os_mutex_lock(&sched_lock);
    while (sync_owner != NULL)
        os_cond_wait(&sched_changed, &sched_lock);
    worker_active = true;
    os_mutex_unlock(&sched_lock);
}

void capability_worker_end(void)
{
    os_mutex_lock(&sched_lock);
    worker_active = false;
    os_cond_broadcast(&sched_changed);
    os_mutex_unlock(&sched_lock);
}

bool capability_worker_should_park(void)
{
    return atomic_load_explicit(&xsync_pending, memory_order_acquire);
}

void capability_worker_park(void)
{
    os_mutex_lock(&sched_lock);
    if (sync_owner != NULL) {
        worker_parked = true;
        os_cond_broadcast(&sched_changed);
        while (sync_owner != NULL)
            os_cond_wait(&sched_changed, &sched_lock);
        worker_parked = false;
    }
    os_mutex_unlock(&sched_lock);
}

static bool stop_world(const OsDeadline *deadline);

bool capability_stop_world(void)
{
    return stop_world(NULL);
}

bool capability_stop_world_within(uint32_t timeout_ms)
{
    OsDeadline deadline = os_deadline_after_ms(timeout_ms);
    return stop_world(&deadline);
}

static bool stop_world(const OsDeadline *deadline)
{
    Capability *me = my_cap;
    if (me == NULL)
        rts_panic("stopping the world from a thread that holds no capability (thread %ld)",
                  os_thread_id());
    os_mutex_lock(&sched_lock);
    if (sync_owner == me) {
        sync_depth++;
        os_mutex_unlock(&sched_lock);
        return true;
    }
    if (sync_owner != NULL) {
        park_locked(me);
        os_mutex_unlock(&sched_lock);
        return false;
    }
    uint64_t start_ns = clock_elapsed_ns();
    sync_owner = me;
    sync_depth = 1;
    atomic_store_explicit(&xsync_pending, true, memory_order_release);
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *c = &capabilities[i];
        if (c != me && c->held)
            regs_hp_lim_store(c->regs, NULL);
    }
    while (!all_others_parked_locked(me)) {
        if (deadline == NULL) {
            os_cond_wait(&sched_changed, &sched_lock);
        } else if (os_cond_wait_until(&sched_changed, &sched_lock, deadline) != 0 &&
                   !all_others_parked_locked(me)) {
            /* The world stays stopping: whoever parks later stays parked. */
            os_mutex_unlock(&sched_lock);
            return false;
        }
    }
    uint64_t ns = clock_elapsed_ns() - start_ns;
    sync_stats.syncs++;
    sync_stats.total_ns += ns;
    if (ns > sync_stats.worst_ns)
        sync_stats.worst_ns = ns;
    sync_stats.samples_ns[sync_stats.n_samples++ % 1024] = ns;
    os_mutex_unlock(&sched_lock);
    return true;
}

void capability_stop_world_own(void)
{
    while (!stop_world(NULL))
        ;
}

void capability_resume_world(void)
{
    os_mutex_lock(&sched_lock);
    ASSERT(sync_owner == my_cap && sync_depth > 0);
    if (--sync_depth == 0) {
        sync_owner = NULL;
        atomic_store_explicit(&xsync_pending, false, memory_order_release);
        os_cond_broadcast(&sched_changed);
    }
    os_mutex_unlock(&sched_lock);
}

const SyncStats *capability_sync_stats(void)
{
    return &sync_stats;
}
