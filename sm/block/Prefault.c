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
 *
 * Note [The helper never holds up the program]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The helper is work ahead of need; two ways it held the program up
 * under --nonmoving-gc at -N1 on two cores (bench/optimisations.md):
 *
 *   - With the mark thread busy it was a third busy thread on two
 *     cores, so the kernel often ran it where the mark thread or the
 *     program wanted to run: a collection waited for the mark thread to be
 *     scheduled and park, or the program, woken at a collection's end,
 *     waited a scheduler slice (about 3.6 ms).  So a thread that wants a
 *     processor the helper would take says so (prefault_make_way, from
 *     the mark thread where no processor is spare for both), and the
 *     helper starts no populate call meanwhile.  A lower scheduling
 *     priority (SCHED_IDLE) was tried instead and was worse: the next
 *     point bites harder when the helper waits long for a processor.
 *   - A populate call holds the process's memory-map lock for reading,
 *     and the program's mprotect, which commits memory, takes it for
 *     writing: it waits for the call in flight, and for as long as the
 *     kernel leaves the helper off a processor in it.  So the megablock
 *     layer grows the window through prefault_pause, which gives up at
 *     once when a call is in flight: the window then grows at a later
 *     allocation.  It waits only where waiting is cheaper than the page
 *     faults it saves: when less than half the window is left ahead of
 *     the bump index (a window asked for whole before or after a
 *     collection; skipping it doubled the page faults binary-trees 20
 *     takes itself in some runs), for a commit the heap needs now (the
 *     bump index past the window), and to return memory to the OS (at
 *     most once a major collection).  Calls are a quarter
 *     of a megablock (about 100 us at full speed), so such a wait is
 *     short.
 */

/* One populate call (Note [The helper never holds up the program]). */
#define PREFAULT_CHUNK (MBLOCK_SIZE / 4)

static OsMutex pf_lock = OS_MUTEX_INIT;
static OsCond pf_work = OS_COND_INIT;   /* helper: something to do, or stop */
static OsCond pf_quiet = OS_COND_INIT;  /* cancel: the call in flight ended */
static OsThread pf_thread;
static bool pf_started;                 /* a thread to join */
static bool pf_live;                    /* requests are taken */
static bool pf_stop;
static bool pf_busy;                    /* a populate call in flight */
static bool pf_paused;                  /* prefault_pause: start no call */
static unsigned pf_way_made;            /* prefault_make_way(true) calls not
                                           yet ended: start no call */
static bool pf_stall;                   /* prefault_stall_for_test */
static char *pf_next, *pf_end;          /* [pf_next, pf_end): still to do */
static StgWord pf_done_bytes;

static void *prefault_main(void *arg)
{
    (void)arg;
    os_mutex_lock(&pf_lock);
    while (!pf_stop) {
        if (pf_next >= pf_end || pf_paused || pf_way_made > 0) {
            os_cond_wait(&pf_work, &pf_lock);
            continue;
        }
        char *lo = pf_next;
        char *hi = (StgWord)(pf_end - lo) > PREFAULT_CHUNK ? lo + PREFAULT_CHUNK : pf_end;
        pf_next = hi;
        pf_busy = true;
        while (pf_stall && !pf_stop)
            os_cond_wait(&pf_work, &pf_lock);
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
    pf_started = pf_live = pf_stop = pf_busy = pf_paused = pf_stall = false;
    pf_way_made = 0;
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
    pf_busy = pf_paused = false;
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
    pf_started = pf_stall = false;
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

bool prefault_pause(void)
{
    os_mutex_lock(&pf_lock);
    bool paused = !pf_busy;
    if (paused)
        pf_paused = true;
    os_mutex_unlock(&pf_lock);
    return paused;
}

void prefault_resume(void)
{
    os_mutex_lock(&pf_lock);
    pf_paused = false;
    os_cond_broadcast(&pf_work);
    os_mutex_unlock(&pf_lock);
}

void prefault_make_way(bool on)
{
    os_mutex_lock(&pf_lock);
    if (on) {
        pf_way_made++;
    } else {
        ASSERT(pf_way_made > 0);
        if (--pf_way_made == 0)
            os_cond_broadcast(&pf_work);
    }
    os_mutex_unlock(&pf_lock);
}

void prefault_stall_for_test(bool stall)
{
    os_mutex_lock(&pf_lock);
    pf_stall = stall;
    os_cond_broadcast(&pf_work);
    os_mutex_unlock(&pf_lock);
}

bool prefault_stalled_for_test(void)
{
    os_mutex_lock(&pf_lock);
    bool stalled = pf_stall && pf_busy;
    os_mutex_unlock(&pf_lock);
    return stalled;
}

StgWord prefault_bytes(void)
{
    os_mutex_lock(&pf_lock);
    StgWord b = pf_done_bytes;
    os_mutex_unlock(&pf_lock);
    return b;
}
