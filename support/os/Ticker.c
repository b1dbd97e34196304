/*
 * support/os/Ticker.c -- the ticker thread (see Ticker.h).  Relies on pthreads
 * and CLOCK_MONOTONIC condition-variable timeouts, and on an interrupt
 * function the storage manager installs (clearing every capability's
 * hp_lim, Note [The allocation limit] in sm/alloc/Storage.c).
 */
#include "os/Ticker.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>


/* Note [The ticker]
 * ~~~~~~~~~~~~~~~~~
 * Periodic work (flushing the eventlog, the heap census) touches state the
 * mutator owns, so it must run on the mutator, at a safe point.  The
 * ticker thread therefore never runs an action (.inv.mutator-only in
 * docs/design/eventlog.md): when one is due it marks
 * it, sets xattention, and calls the interrupt function, which stores NULL
 * into every running capability's hp_lim so that the next allocation on
 * any of them takes the slow path, which calls storage_attention_handler
 * -> ticker_run_due_actions.  The first thread there runs the due actions
 * (one thread at a time: action_lock).
 *
 * The NULL store races with the mutator's own writes of hp_lim (moving to
 * the next nursery block, retiring a block); if the mutator's write lands
 * last, the NULL is lost.  xattention is not: the slow path checks it on
 * every entry, so a tick is served at the latest when the current nursery
 * block (4 KiB) is used up.  A program that stops allocating is not
 * interrupted at all -- GHC has the same limit for non-allocating loops.
 *
 * We use a thread sleeping on a condition variable rather than a signal
 * timer (GHC's choice on some platforms) so that no system call of the
 * program is interrupted with EINTR, and so ticker_exit can wake and join
 * the thread at once instead of waiting out an interval. */

typedef struct {
    void (*fn)(void);            /* runs on the mutator */
    uint64_t interval_ns;
    uint64_t next_due_ns;        /* ticker thread's clock; under lock */
    atomic_bool xdue;            /* set by the ticker, cleared by the mutator */
} TickAction;

static TickAction actions[TICKER_MAX_ACTIONS];
static unsigned n_actions;           /* under lock (written by the mutator) */
static atomic_bool xattention;       /* some action is due */
static void (*interrupt_fn)(void);   /* set before the thread starts */
static pthread_mutex_t action_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;          /* signalled by ticker_exit */
static pthread_t thread;
static bool running;                 /* thread started and not joined */
static bool stopping;                /* under lock */

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Marks the due actions and sets xattention; *any says whether one was
 * due.  Called with lock held.  Returns the next deadline. */
static uint64_t tick_locked(uint64_t now, bool *any_due)
{
    uint64_t next = UINT64_MAX;
    bool any = false;
    for (unsigned i = 0; i < n_actions; i++) {
        TickAction *a = &actions[i];
        if (now >= a->next_due_ns) {
            atomic_store(&a->xdue, true);
            any = true;
            /* Skip missed ticks rather than run them back to back. */
            while (a->next_due_ns <= now)
                a->next_due_ns += a->interval_ns;
        }
        if (a->next_due_ns < next)
            next = a->next_due_ns;
    }
    if (any)
        atomic_store(&xattention, true);
    *any_due = any;
    return next;
}

static void *ticker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        bool any_due;
        uint64_t next = tick_locked(monotonic_ns(), &any_due);
        if (any_due && interrupt_fn != NULL) {
            /* Outside the lock: the interrupt takes the storage manager's
             * own, which a mutator may hold while it adds an action. */
            pthread_mutex_unlock(&lock);
            interrupt_fn();
            pthread_mutex_lock(&lock);
            if (stopping)
                break;
        }
        struct timespec deadline = {
            .tv_sec = (time_t)(next / 1000000000u),
            .tv_nsec = (long)(next % 1000000000u),
        };
        pthread_cond_timedwait(&wake, &lock, &deadline);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

static int ticker_start(void)
{
    pthread_condattr_t attr;
    int err = pthread_condattr_init(&attr);
    if (err != 0)
        return err;
    err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (err == 0)
        err = pthread_cond_init(&wake, &attr);
    pthread_condattr_destroy(&attr);
    if (err != 0)
        return err;
    stopping = false;
    err = pthread_create(&thread, NULL, ticker_main, NULL);
    if (err != 0) {
        pthread_cond_destroy(&wake);
        return err;
    }
    running = true;
    return 0;
}

int ticker_add_action(double interval_secs, void (*fn)(void))
{
    if (fn == NULL || !(interval_secs > 0) || interval_secs > 1e9)
        return EINVAL;
    pthread_mutex_lock(&lock);
    if (n_actions == TICKER_MAX_ACTIONS) {
        pthread_mutex_unlock(&lock);
        return ENOSPC;
    }
    TickAction *a = &actions[n_actions];
    a->fn = fn;
    a->interval_ns = (uint64_t)(interval_secs * 1e9);
    if (a->interval_ns == 0)
        a->interval_ns = 1;
    a->next_due_ns = monotonic_ns() + a->interval_ns;
    atomic_store(&a->xdue, false);
    n_actions++;
    if (running)
        pthread_cond_signal(&wake);   /* recompute the deadline */
    pthread_mutex_unlock(&lock);
    if (running)
        return 0;
    int err = ticker_start();
    if (err != 0) {
        pthread_mutex_lock(&lock);
        n_actions--;
        pthread_mutex_unlock(&lock);
    }
    return err;
}

bool ticker_attention_pending(void)
{
    return atomic_load_explicit(&xattention, memory_order_relaxed);
}

void ticker_set_interrupt(void (*fn)(void))
{
    interrupt_fn = fn;
}

void ticker_run_due_actions(void)
{
    if (!atomic_load_explicit(&xattention, memory_order_relaxed))
        return;
    /* Another mutator thread is running them: it will see this tick. */
    if (pthread_mutex_trylock(&action_lock) != 0)
        return;
    if (atomic_exchange(&xattention, false)) {
        /* n_actions changes at start-up only, before any thread runs. */
        for (unsigned i = 0; i < n_actions; i++)
            if (atomic_exchange(&actions[i].xdue, false))
                actions[i].fn();
    }
    pthread_mutex_unlock(&action_lock);
}

void ticker_exit(void)
{
    if (running) {
        pthread_mutex_lock(&lock);
        stopping = true;
        pthread_cond_signal(&wake);
        pthread_mutex_unlock(&lock);
        pthread_join(thread, NULL);
        pthread_cond_destroy(&wake);
        running = false;
    }
    n_actions = 0;
    atomic_store(&xattention, false);
}
