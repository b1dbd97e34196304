/*
 * sm/GCThread.c -- the GC threads' state, the pool of OS threads that run
 * a parallel collection's phases, and the termination of a parallel scan
 * (see GCThread.h).
 *
 * Note [GC threads are the capabilities' threads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC collects with the OS threads that run its capabilities.  strata's
 * capabilities are held by the program's own threads, which may be few
 * (a single-threaded program at -N4) or blocked in C where the collector
 * cannot borrow them, so each capability but the collecting one has a GC
 * thread of its own instead: an OS thread started at the first parallel
 * collection, asleep between collections, that only ever runs collector
 * code.  GC thread 0 is the thread that stopped the world; GC thread k > 0
 * works for the k-th other capability, whose eventlog buffer it writes
 * (its holder is parked).  -qn caps how many run.
 */
#include "GCThread.h"

#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "Capability.h"
#include "GCPrivate.h"
#include "Messages.h"
#include "os/Thread.h"

_Thread_local GCThread *gct __attribute__((tls_model("initial-exec"))) = NULL;

GCThread **gc_threads = NULL;
unsigned gc_threads_max = 0;
unsigned gc_n_threads = 1;

/* ----------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------- */

bool gc_threads_init(unsigned n_threads, unsigned n_gens)
{
    if (n_threads < 1)
        n_threads = 1;
    if (n_threads > GC_THREADS_MAX)
        n_threads = GC_THREADS_MAX;
    gc_threads = calloc(n_threads, sizeof *gc_threads);
    if (gc_threads == NULL) {
        rts_error("storage: out of C heap for the GC threads (threads=%u)", n_threads);
        return false;
    }
    gc_threads_max = n_threads;
    for (unsigned i = 0; i < n_threads; i++) {
        GCThread *t = calloc(1, sizeof *t + n_gens * sizeof t->ws[0]);
        gc_threads[i] = t;
        if (t == NULL || !ws_deque_init(&t->deque, 6)) {
            rts_error("storage: out of C heap for the GC threads (threads=%u)", n_threads);
            return false;
        }
        t->index = i;
        live_tally_init(&t->own_tally, (EraRange){0, 0});
    }
    gc_n_threads = 1;
    return true;
}

/* ----------------------------------------------------------------------
 * The pool
 * ---------------------------------------------------------------------- */

static OsMutex pool_lock = OS_MUTEX_INIT;
static OsCond pool_wake = OS_COND_INIT;     /* a round starts, or exit */
static unsigned pool_round = 0;             /* under pool_lock */
static void (*pool_work)(void) = NULL;
static bool pool_exit = false;
static OsThread *pool_os = NULL;            /* [1 .. pool_started] */
static unsigned pool_started = 1;           /* thread 0 is the caller */

static bool work_join(void);
static void leave_busy(void);

static void *worker_main(void *arg)
{
    GCThread *self = arg;
    gct = self;
    unsigned seen = 0;
    os_mutex_lock(&pool_lock);
    for (;;) {
        while (!pool_exit && pool_round == seen)
            os_cond_wait(&pool_wake, &pool_lock);
        if (pool_exit)
            break;
        seen = pool_round;
        void (*work)(void) = pool_work;
        os_mutex_unlock(&pool_lock);
        if (work_join())
            work();
        os_mutex_lock(&pool_lock);
    }
    os_mutex_unlock(&pool_lock);
    return NULL;
}

/* Starts the OS threads of GC threads 1 .. n-1 not yet running; returns
 * how many GC threads can run (fewer if the OS refuses threads). */
static unsigned start_workers(unsigned n)
{
    if (pool_os == NULL) {
        pool_os = calloc(gc_threads_max, sizeof *pool_os);
        if (pool_os == NULL)
            return 1;
    }
    while (pool_started < n) {
        int err = os_thread_start(&pool_os[pool_started], worker_main,
                                  gc_threads[pool_started]);
        if (err != 0) {
            rts_error("gc: could not start GC thread %u (errno %d); collecting with %u",
                      pool_started, err, pool_started);
            break;
        }
        pool_started++;
    }
    return pool_started < n ? pool_started : n;
}

unsigned gc_threads_available(unsigned n)
{
    return n > 1 ? start_workers(n) : 1;
}

/* Note [Joining a parallel phase]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Thread 0 does not wait for the other GC threads to wake: it starts
 * work at once, counted busy, and each other thread joins the phase when
 * the OS runs it, by adding itself to the busy count -- unless the count
 * is already zero, which means the phase is over (Note [Ending a parallel
 * scan]) and the late thread goes back to sleep.  So on a loaded machine
 * a collection loses parallelism, not time: nobody waits for a thread
 * that never got a processor.  A thread that joined is idle again before
 * the count can reach zero, so once thread 0 sees zero every GC thread's
 * work is done and its state is thread 0's to merge. */
void gc_run_threads(unsigned n, void (*work)(void))
{
    gct = gc_threads[0];
    if (n > 1) {
        os_mutex_lock(&pool_lock);
        pool_work = work;
        pool_round++;
        os_cond_broadcast(&pool_wake);
        os_mutex_unlock(&pool_lock);
    }
    work();
}

void gc_threads_exit(void)
{
    if (pool_started > 1) {
        os_mutex_lock(&pool_lock);
        pool_exit = true;
        os_cond_broadcast(&pool_wake);
        os_mutex_unlock(&pool_lock);
        for (unsigned i = 1; i < pool_started; i++)
            (void)os_thread_join(pool_os[i]);
    }
    free(pool_os);
    pool_os = NULL;
    pool_started = 1;
    pool_exit = false;
    pool_round = 0;
    for (unsigned i = 0; i < gc_threads_max; i++) {
        GCThread *t = gc_threads[i];
        if (t == NULL)
            continue;   /* gc_threads_init ran out of C heap */
        for (unsigned g = 0; g < storage_n_gens; g++)
            era_map_free(&t->ws[g].dests);
        free(t->scan_queue);
        if (atomic_load_explicit(&t->deque.array, memory_order_relaxed) != NULL)
            ws_deque_free(&t->deque);
        live_tally_free(&t->own_tally);
        free(t);
    }
    free(gc_threads);
    gc_threads = NULL;
    gc_threads_max = 0;
    gc_n_threads = 1;
    gct = NULL;
}

/* ----------------------------------------------------------------------
 * Blocks
 * ---------------------------------------------------------------------- */

/* Note [Blocks in batches]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * The block allocator is shared, so a parallel GC thread takes sm_lock for
 * each to-space block, and with every thread copying the lock is contended
 * (perf, binary-trees-par 20 -N2: mutex and futex calls and the allocator
 * about a tenth of the samples).  So a parallel GC thread takes
 * GC_BLOCK_BATCH blocks at a time under one lock and keeps the rest on its
 * spare list, as GHC's GC threads keep a free list; what is left goes back
 * at the end of the scan (gc_return_spare_blocks), so that between
 * collections every block belongs to the heap or to the allocator
 * (.inv.block-inventory).  One GC thread takes no lock and keeps no spares. */
#define GC_BLOCK_BATCH 16

BlockDesc *gc_alloc_block(void)
{
    GCThread *t = gct;
    if (!t->parallel) {
        BlockDesc *bd = block_alloc_group(1);
        if (bd == NULL)
            storage_heap_overflow(BLOCK_SIZE);
        return bd;
    }
    if (t->spare_blocks == NULL) {
        sm_lock();
        for (unsigned i = 0; i < GC_BLOCK_BATCH; i++) {
            BlockDesc *bd = block_alloc_group(1);
            if (bd == NULL)
                break;
            bd->link = t->spare_blocks;
            t->spare_blocks = bd;
        }
        sm_unlock();
        if (t->spare_blocks == NULL)
            storage_heap_overflow(BLOCK_SIZE);
    }
    BlockDesc *bd = t->spare_blocks;
    t->spare_blocks = bd->link;
    bd->link = NULL;
    return bd;
}

BlockDesc *gc_alloc_pointer_block(void)
{
    BlockDesc *bd = gc_alloc_block();
    block_set_gen_no(bd, BLOCK_GEN_NO_POINTERS);
    return bd;
}

void gc_return_spare_blocks(void)
{
    for (unsigned i = 0; i < gc_threads_max; i++) {
        GCThread *t = gc_threads[i];
        while (t->spare_blocks != NULL) {
            BlockDesc *bd = t->spare_blocks;
            t->spare_blocks = bd->link;
            block_free_group(bd);
        }
    }
}

/* ----------------------------------------------------------------------
 * Stealing and termination
 * ---------------------------------------------------------------------- */

/* The current phase and how many GC threads are busy in it, in one word
 * (phase << 32 | busy), so that joining a phase, leaving it and seeing it
 * end are single atomic operations on one thing (Note [Joining a parallel
 * phase], Note [Ending a parallel scan]). */
static _Atomic uint64_t phase_word;
static uint32_t phase_counter;          /* thread 0's */

static inline uint32_t word_phase(uint64_t w)
{
    return (uint32_t)(w >> 32);
}
static inline uint32_t word_busy(uint64_t w)
{
    return (uint32_t)w;
}

/* GC threads in this collection; read by threads that may be looking at
 * a phase that has just ended while thread 0 starts the next collection. */
static unsigned n_threads_now(void)
{
    return __atomic_load_n(&gc_n_threads, __ATOMIC_RELAXED);
}

void gc_set_n_threads(unsigned n)
{
    __atomic_store_n(&gc_n_threads, n, __ATOMIC_RELAXED);
}

void gc_work_begin(void)
{
    phase_counter++;
    gc_threads[0]->phase = phase_counter;
    atomic_store_explicit(&phase_word, (uint64_t)phase_counter << 32 | 1, memory_order_release);
}

/* A GC thread other than 0 joins the phase in progress, if there is one
 * and this collection uses it (Note [Joining a parallel phase]). */
static bool work_join(void)
{
    uint64_t w = atomic_load_explicit(&phase_word, memory_order_acquire);
    for (;;) {
        if (word_busy(w) == 0)
            return false;
        if (atomic_compare_exchange_weak_explicit(&phase_word, &w, w + 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            break;
    }
    gct->phase = word_phase(w);
    if (gct->index < n_threads_now())
        return true;
    leave_busy();
    return false;
}

bool gc_work_wanted(void)
{
    return word_busy(atomic_load_explicit(&phase_word, memory_order_relaxed)) < gc_n_threads;
}

static bool any_deque_has_work(void)
{
    unsigned n = n_threads_now();
    for (unsigned i = 0; i < n; i++)
        if (!ws_deque_looks_empty(&gc_threads[i]->deque))
            return true;
    return false;
}

BlockDesc *gc_steal_block(void)
{
    unsigned n = gc_n_threads;
    for (unsigned k = 1; k < n; k++) {
        GCThread *victim = gc_threads[(gct->index + k) % n];
        for (int tries = 0; tries < 4 && !ws_deque_looks_empty(&victim->deque); tries++) {
            BlockDesc *bd = ws_deque_steal(&victim->deque);
            if (bd != NULL) {
                gct->steals++;
                return bd;
            }
        }
    }
    return NULL;
}

/* Note [Copying alone]
 * ~~~~~~~~~~~~~~~~~~~~
 * A claim's compare-and-swap is a full barrier, about a third of a
 * parallel GC's time (Note [Copying in parallel] in Evac.h), and it is
 * paid even when the other GC threads are idle: a list or any other
 * chain gives them nothing to take.  A thread may copy without claims
 * while no other thread can copy: every root item has been taken, no
 * other thread is busy, and its own deque is empty.  Idle threads only
 * come back for work on a deque, and a thread that joins late finds no
 * root item and nothing to steal, so that stays true until this thread
 * pushes a block, and it claims again before it does (give_up_block,
 * evacuate_large in Evac.c): the push's release store publishes its
 * unclaimed copies to the thread that steals the block.  The deque is
 * read before the busy count: a thief counts itself busy before it
 * steals, so a steal seen in the deque means its count is seen too.
 * Each block scan looks again (scavenge_block in Scav.c); each phase
 * starts claiming.  Between phases thread 0 runs alone. */
bool gc_copying_alone(void)
{
    GCThread *t = gct;
    if (!gc_roots_all_taken())
        return false;
    if (atomic_load_explicit(&t->deque.top, memory_order_acquire) <
        atomic_load_explicit(&t->deque.bottom, memory_order_relaxed))
        return false;
    return word_busy(atomic_load_explicit(&phase_word, memory_order_acquire)) == 1;
}

/* Note [Ending a parallel scan]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The busy count of the phase counts the GC threads that may still
 * create work.  A thread with nothing of its own to scan and nothing to
 * steal leaves the count and watches the deques: when one looks non-empty
 * it rejoins the count before trying to steal, and when the count reaches
 * zero (or another phase has begun) the scan is over for it.  Only a counted thread pushes work, and a thread leaves only
 * with its own deque empty, so a count of zero means every deque is
 * empty and stays so. */

/* Note [Idle GC threads sleep]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An idle thread used to spin until the phase ended: on lists -N2 (one
 * chain, nothing to share) the second thread's spinning was as much CPU
 * as the first thread's copying, and on a loaded machine it took the
 * processor from the thread doing the work.  Now it spins IDLE_SPINS
 * rounds, then sleeps on idle_wake until a thread pushes work
 * (gc_work_pushed), the count reaches zero, or a millisecond passes.
 * The wake at zero is exact: the sleeper tests the count under idle_lock
 * and the thread that brings it to zero broadcasts under the lock.  A
 * push reads the number of sleepers without the lock, so a push racing
 * with a thread falling asleep can go unseen; the millisecond bounds
 * what that costs (help that comes late), never correctness. */
#define IDLE_SPINS 1024

static OsMutex idle_lock = OS_MUTEX_INIT;
static OsCond idle_wake = OS_COND_INIT;
static _Atomic unsigned idle_sleepers;

static void wake_idle(void)
{
    os_mutex_lock(&idle_lock);
    os_cond_broadcast(&idle_wake);
    os_mutex_unlock(&idle_lock);
}

/* Leaves the busy count; the thread that empties it wakes the sleepers. */
static void leave_busy(void)
{
    uint64_t old = atomic_fetch_sub_explicit(&phase_word, 1, memory_order_acq_rel);
    if (word_busy(old) == 1)
        wake_idle();
}

void gc_work_pushed(void)
{
    if (atomic_load_explicit(&idle_sleepers, memory_order_relaxed) != 0)
        wake_idle();
}

void gc_share_block(BlockDesc *bd)
{
    GCThread *t = gct;
    t->claim = true;
    ws_deque_push(&t->deque, bd);
    gc_work_pushed();
}

/* Sleeps until woken or a millisecond has passed, unless the phase is
 * over or a deque has work. */
static void idle_sleep(uint32_t mine)
{
    os_mutex_lock(&idle_lock);
    atomic_fetch_add_explicit(&idle_sleepers, 1, memory_order_relaxed);
    uint64_t w = atomic_load_explicit(&phase_word, memory_order_acquire);
    if (word_phase(w) == mine && word_busy(w) != 0 && !any_deque_has_work()) {
        OsDeadline d = os_deadline_after_ms(1);
        (void)os_cond_wait_until(&idle_wake, &idle_lock, &d);
    }
    atomic_fetch_sub_explicit(&idle_sleepers, 1, memory_order_relaxed);
    os_mutex_unlock(&idle_lock);
}

bool gc_work_idle_wait(void)
{
    uint32_t mine = gct->phase;
    gc_observe_thread_phase(gct->index, GC_PHASE_IDLE);
    leave_busy();
    for (unsigned spins = 1;; spins++) {
        uint64_t w = atomic_load_explicit(&phase_word, memory_order_acquire);
        if (word_phase(w) != mine || word_busy(w) == 0)
            return false;
        if (any_deque_has_work() &&
            atomic_compare_exchange_strong_explicit(&phase_word, &w, w + 1, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            gc_observe_thread_phase(gct->index, GC_PHASE_WORK);
            return true;
        }
        if (spins >= IDLE_SPINS) {
            idle_sleep(mine);
            spins = 0;
        } else if (spins % 32 == 0) {
            os_thread_yield();
        } else {
            __builtin_ia32_pause();
        }
    }
}
