/*
 * sm/block/Prefault.c -- the prefault helper (see Prefault.h).
 *
 * Relies on support/os for the thread, its lock and the populate call.
 * Its state is the range still to fault in, under one lock that the
 * helper never holds across a system call.
 */
#include "Prefault.h"

#include <errno.h>

#include "Messages.h"
#include "os/OSMem.h"
#include "os/Thread.h"

/*
 * Note [Faulting in ahead of the heap]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The first write to a page the process has never used takes a page fault
 * and a zero-fill in the kernel, on the thread that writes.  The heap
 * grows when a copying GC's to-space outruns the free memory, so most of
 * those faults land in GC pauses: on map-churn 4000000 they were a fifth
 * of the GC's time (bench/optimisations.md, row be05244, has the counts).
 * GHC's RTS takes them the same way.
 *
 * Where the program leaves a processor idle (more available than
 * capabilities), strata takes them on a helper thread first.  The
 * megablock layer keeps a window of megablocks above its bump index
 * committed and hands it here; the helper faults the pages in with
 * os_mem_populate, a megablock at a time, lowest first, while the mutator
 * or the GC runs.  The policy sizes the window (Policy.c): a few
 * megablocks while the mutator runs, and before a major GC the to-space
 * that GC is expected to need beyond the free memory.
 *
 * Why this is safe without more locking:
 *   - populating writes nothing, so the helper may fault in pages the
 *     heap has already taken and is writing (the bump index passed them);
 *   - a range is only ever decommitted after prefault_cancel, which waits
 *     for the call in flight, so the helper cannot fault pages back into
 *     memory the heap has just given to the OS;
 *   - the helper's CPU time is the process's, so `+RTS -s` charges it to
 *     the mutator or the GC, whichever ran beside it.
 */

/* One populate call: a megablock, so prefault_cancel waits at most for
 * that (well under a millisecond: bench/optimisations.md, row be05244). */
#define PREFAULT_CHUNK MBLOCK_SIZE

static OsMutex pf_lock = OS_MUTEX_INIT;
static OsCond pf_work = OS_COND_INIT;   /* helper: something to do, or stop */
static OsCond pf_quiet = OS_COND_INIT;  /* cancel: the call in flight ended */
static OsThread pf_thread;
static bool pf_started;                 /* a thread to join */
static bool pf_live;                    /* requests are taken */
static bool pf_stop;
static bool pf_busy;                    /* a populate call in flight */
static char *pf_next, *pf_end;          /* [pf_next, pf_end): still to do */
static StgWord pf_done_bytes;

static void *prefault_main(void *arg)
{
    (void)arg;
    os_mutex_lock(&pf_lock);
    while (!pf_stop) {
        if (pf_next >= pf_end) {
            os_cond_wait(&pf_work, &pf_lock);
            continue;
        }
        char *lo = pf_next;
        char *hi = (StgWord)(pf_end - lo) > PREFAULT_CHUNK ? lo + PREFAULT_CHUNK : pf_end;
        pf_next = hi;
        pf_busy = true;
        os_mutex_unlock(&pf_lock);
        int err = os_mem_populate(lo, (size_t)(hi - lo));
        os_mutex_lock(&pf_lock);
        pf_busy = false;
        os_cond_broadcast(&pf_quiet);
        if (err == 0) {
            pf_done_bytes += (StgWord)(hi - lo);
        } else if (err == EINVAL) {
            /* The kernel has no MADV_POPULATE_WRITE: stop taking work. */
            debug_trace(DEBUG_BLOCK, "prefault: the kernel cannot populate; helper stops");
            pf_live = false;
            pf_next = pf_end = NULL;
            break;
        }
        /* Any other failure (the range was decommitted under a request
         * that predates a cancel) costs nothing: the heap faults the
         * pages in itself, as it would without the helper. */
    }
    os_mutex_unlock(&pf_lock);
    return NULL;
}

/* A child of fork has no helper; the lock may have been held, or a call
 * in flight, at the fork.  Start over with nothing running. */
static void prefault_forget_in_child(void)
{
    pf_lock = (OsMutex)OS_MUTEX_INIT;
    pf_work = (OsCond)OS_COND_INIT;
    pf_quiet = (OsCond)OS_COND_INIT;
    pf_started = pf_live = pf_stop = pf_busy = false;
    pf_next = pf_end = NULL;
}

int prefault_start(void)
{
    static bool fork_handler;
    if (!fork_handler && os_thread_at_fork_child(prefault_forget_in_child) == 0)
        fork_handler = true;
    os_mutex_lock(&pf_lock);
    if (pf_started) {
        os_mutex_unlock(&pf_lock);
        return 0;
    }
    pf_stop = false;
    pf_busy = false;
    pf_next = pf_end = NULL;
    pf_done_bytes = 0;
    int err = os_thread_start(&pf_thread, prefault_main, NULL);
    pf_started = err == 0;
    pf_live = err == 0;
    os_mutex_unlock(&pf_lock);
    return err;
}

void prefault_stop(void)
{
    os_mutex_lock(&pf_lock);
    if (!pf_started) {
        os_mutex_unlock(&pf_lock);
        return;
    }
    pf_stop = true;
    pf_live = false;
    os_cond_broadcast(&pf_work);
    os_mutex_unlock(&pf_lock);
    int err = os_thread_join(pf_thread);
    if (err != 0)
        rts_panic("prefault: cannot join the helper thread (errno=%d)", err);
    os_mutex_lock(&pf_lock);
    pf_started = false;
    pf_next = pf_end = NULL;
    os_mutex_unlock(&pf_lock);
}

bool prefault_running(void)
{
    os_mutex_lock(&pf_lock);
    bool live = pf_live;
    os_mutex_unlock(&pf_lock);
    return live;
}

void prefault_extend(char *lo, char *hi)
{
    os_mutex_lock(&pf_lock);
    if (pf_live && lo < hi) {
        if (pf_next < lo)
            pf_next = lo;
        if (pf_end < hi)
            pf_end = hi;
        if (pf_next < pf_end)
            os_cond_broadcast(&pf_work);
    }
    os_mutex_unlock(&pf_lock);
}

void prefault_cancel(void)
{
    os_mutex_lock(&pf_lock);
    /* The next request starts afresh: what is decommitted after this call
     * must be faulted in again, even below where the helper had got to. */
    pf_next = pf_end = NULL;
    while (pf_busy)
        os_cond_wait(&pf_quiet, &pf_lock);
    os_mutex_unlock(&pf_lock);
}

StgWord prefault_bytes(void)
{
    os_mutex_lock(&pf_lock);
    StgWord b = pf_done_bytes;
    os_mutex_unlock(&pf_lock);
    return b;
}
