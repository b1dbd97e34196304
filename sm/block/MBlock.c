/*
 * sm/block/MBlock.c -- megablocks: 1 MiB, 1 MiB-aligned pieces of one large
 * address-space reservation, handed to the block allocator.
 *
 * Relies on the OS memory layer (support/os/OSMem.h) for reserving and
 * committing address space, and on support/Messages.h for panics and tracing.
 * Nothing else: this file never reads or writes heap memory itself.
 *
 * Design: docs/design/block-allocator.md.  In short:
 *
 *   - mblock_init reserves the whole heap at once, so heap_alloced (in
 *     MBlock.h) is a range check.  See Note [One reservation].
 *   - Megablocks below the bump index have been handed out at least once;
 *     those at or above it are untouched (reserved, never committed).
 *   - Freed megablocks go on a free list of runs, sorted by address and
 *     coalesced.  A free megablock is either still committed (counted by
 *     mblock_n_free) or returned to the OS by mblock_return_free.
 *   - The free list lives in a side table outside the heap, indexed by
 *     megablock number.  See Note [The megablock side table].
 *
 * Not thread-safe: callers serialise (the storage manager's lock, or the
 * single capability).
 */
#include "MBlock.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "Messages.h"
#include "Prefault.h"
#include "os/OSMem.h"

#if defined(STRATA_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#endif

/* --------------------------------------------------------------------------
 * State
 * ----------------------------------------------------------------------- */

/*
 * Note [One reservation]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The whole heap is one PROT_NONE reservation made at start-up, and every
 * megablock is a piece of it.  This makes heap_alloced(p) two subtractions
 * and a compare, with no table to keep up to date and no lock.  GHC does
 * the same on 64-bit platforms; its alternative for 32-bit platforms, a
 * map from megablock number to "is heap", costs a load on every test and a
 * table update on every megablock allocation, and we have no 32-bit target.
 * The price is that the heap cannot outgrow the reservation: mblock_init's
 * caller picks a size far beyond any heap it expects (reserving costs
 * neither memory nor commit charge), and mblock_alloc_group returns NULL
 * when the reservation is exhausted, like an OS refusal.
 */

/*
 * Note [The megablock side table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC threads its free megablock list through the free megablocks
 * themselves.  We cannot: a megablock returned to the OS is PROT_NONE, and
 * under AddressSanitizer a free megablock's memory is poisoned by the
 * block allocator.  So the list lives in three arrays outside the heap,
 * indexed by megablock number (0 = the first megablock of the
 * reservation):
 *
 *   mb_state[i]   what megablock i is (MBState below), for every i;
 *   run_len[i]    length in megablocks of the free run starting at i;
 *   run_next[i]   index of the next free run's first megablock, or NO_RUN;
 *
 * run_len and run_next are meaningful only where a run starts.  The arrays
 * cost 9 bytes per megablock of reservation (9 MiB for 1 TiB), allocated
 * with calloc/malloc, so their pages are only touched as the heap grows.
 * A run may mix committed (MB_FREE) and returned (MB_RETURNED) megablocks;
 * allocation commits the returned ones it takes.
 */

typedef enum {
    MB_UNTOUCHED = 0, /* at or above the bump index: never handed out, or
                         given back below it by mblock_return_free */
    MB_IN_USE = 1,    /* held by the block allocator */
    MB_FREE = 2,      /* on the free list, committed (.inv.mblock-state) */
    MB_RETURNED = 3,  /* on the free list, decommitted */
} MBState;

#define NO_RUN UINT32_MAX

char *mblock_heap_base;
char *mblock_heap_end;

static uint8_t *mb_state;      /* one MBState per megablock of the reservation */
static uint32_t *run_len;      /* free-run heads: run length in megablocks */
static uint32_t *run_next;     /* free-run heads: next run, or NO_RUN */
static uint32_t free_runs = NO_RUN; /* first (lowest) free run, or NO_RUN */

static uint32_t n_total;       /* megablocks in the reservation */
static uint32_t bump;          /* first untouched megablock (.inv.mblock-bump) */
static uint32_t bump_hw;       /* highest value bump has had */
static uint32_t ahead_end;     /* [bump, ahead_end): committed ahead of use
                                  for the prefault helper (.inv.mblock-ahead) */
static uint32_t ahead_target;  /* mblock_prefault_window: the window reaches
                                  at least this index ... */
static uint32_t ahead_idle;    /* ... and at least this far above bump */

static StgWord n_in_use;       /* megablocks in state MB_IN_USE */
static StgWord n_free;         /* megablocks in state MB_FREE */
static StgWord n_returned_free; /* megablocks in state MB_RETURNED */
static StgWord n_hw;           /* high-water mark of n_in_use + n_free */
static StgWord n_returned_total; /* megablocks ever decommitted */
static StgWord n_cycle_peak;   /* highest n_in_use since mblock_take_cycle_peak */
static StgWord n_window_commits; /* commit calls made to grow the prefault window */

static inline char *mb_addr(uint32_t i)
{
    return mblock_heap_base + ((StgWord)i << MBLOCK_SHIFT);
}

static inline uint32_t mb_index(const void *mb)
{
    return (uint32_t)(((StgWord)mb - (StgWord)mblock_heap_base) >> MBLOCK_SHIFT);
}

static void note_high_water(void)
{
    if (n_in_use > n_cycle_peak)
        n_cycle_peak = n_in_use;
    if (n_in_use + n_free > n_hw)
        n_hw = n_in_use + n_free;
}

/* --------------------------------------------------------------------------
 * Initialisation and shutdown
 * ----------------------------------------------------------------------- */

int mblock_init(StgWord reserve_bytes)
{
    if (mb_state != NULL)
        rts_panic("mblock_init: called twice (base=%p)", (void *)mblock_heap_base);
    if (reserve_bytes == 0 || reserve_bytes > SIZE_MAX - MBLOCK_MASK)
        return EINVAL;
    StgWord size = (reserve_bytes + MBLOCK_MASK) & ~MBLOCK_MASK;
    if ((size >> MBLOCK_SHIFT) >= NO_RUN)
        return EINVAL;
    uint32_t count = (uint32_t)(size >> MBLOCK_SHIFT);

    void *base;
    int err = os_mem_reserve(size, MBLOCK_SIZE, &base);
    if (err != 0)
        goto fail_reserve;
    err = ENOMEM;
    mb_state = calloc(count, sizeof *mb_state);
    if (mb_state == NULL)
        goto fail_state;
    run_len = malloc((size_t)count * sizeof *run_len);
    if (run_len == NULL)
        goto fail_len;
    run_next = malloc((size_t)count * sizeof *run_next);
    if (run_next == NULL)
        goto fail_next;

    mblock_heap_base = base;
    mblock_heap_end = (char *)base + size;
#if defined(STRATA_ASAN)
    /* The heap holds pointers into the C heap (a segment's era runs):
     * while the reservation is ours, LeakSanitizer reads its mapped
     * parts for them, so that a process that ends without mblock_exit
     * (a heap overflow's exit 251, hs_exit leaving the heap to threads
     * still attached) holds what its heap holds, as it does. */
    __lsan_register_root_region(base, size);
#endif
    n_total = count;
    bump = bump_hw = ahead_end = ahead_target = ahead_idle = 0;
    free_runs = NO_RUN;
    n_in_use = n_free = n_returned_free = n_hw = n_returned_total = n_cycle_peak = 0;
    debug_trace(DEBUG_BLOCK, "mblock: reserved %lu megablocks at %p",
                (unsigned long)count, base);
    return 0;

fail_next:
    free(run_len);
    run_len = NULL;
fail_len:
    free(mb_state);
    mb_state = NULL;
fail_state:
    (void)os_mem_release(base, size);
fail_reserve:
    return err;
}

void mblock_exit(void)
{
    if (mb_state == NULL)
        return;
    prefault_stop();
#if defined(STRATA_ASAN)
    /* The block allocator poisons free memory; clear the shadow of every
     * megablock ever used so a later mapping at these addresses starts
     * clean.  Untouched megablocks were never poisoned. */
    if (bump_hw != 0)
        ASAN_UNPOISON_MEMORY_REGION(mblock_heap_base, (StgWord)bump_hw << MBLOCK_SHIFT);
#endif
    size_t size = (size_t)(mblock_heap_end - mblock_heap_base);
#if defined(STRATA_ASAN)
    __lsan_unregister_root_region(mblock_heap_base, size);
#endif
    int err = os_mem_release(mblock_heap_base, size);
    if (err != 0)
        rts_error("mblock: could not release the heap reservation "
                  "(base=%p, size_bytes=%zu, errno=%d)",
                  (void *)mblock_heap_base, size, err);
    free(run_next);
    free(run_len);
    free(mb_state);
    run_next = run_len = NULL;
    mb_state = NULL;
    mblock_heap_base = mblock_heap_end = NULL;
    n_total = bump = bump_hw = ahead_end = ahead_target = ahead_idle = 0;
    free_runs = NO_RUN;
    n_in_use = n_free = n_returned_free = n_hw = n_returned_total = n_cycle_peak = 0;
    n_window_commits = 0;
}

/* --------------------------------------------------------------------------
 * Allocation
 * ----------------------------------------------------------------------- */

/* Commits the returned megablocks in [first, first+count) of a free run,
 * a maximal stretch at a time, turning them into MB_FREE.  On failure the
 * stretches already committed stay MB_FREE (still on the free list), so
 * the state is consistent whatever happens. */
static int commit_returned(uint32_t first, uint32_t count)
{
    uint32_t i = first, end = first + count;
    while (i < end) {
        if (mb_state[i] != MB_RETURNED) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j < end && mb_state[j] == MB_RETURNED)
            j++;
        int err = os_mem_commit(mb_addr(i), (StgWord)(j - i) << MBLOCK_SHIFT);
        if (err != 0) {
            debug_trace(DEBUG_BLOCK, "mblock: commit failed (first=%lu, count=%lu, errno=%d)",
                        (unsigned long)i, (unsigned long)(j - i), err);
            return err;
        }
        for (uint32_t k = i; k < j; k++)
            mb_state[k] = MB_FREE;
        n_returned_free -= j - i;
        n_free += j - i;
        i = j;
    }
    return 0;
}

static void mark_in_use(uint32_t first, uint32_t count)
{
    for (uint32_t i = first; i < first + count; i++)
        mb_state[i] = MB_IN_USE;
    n_in_use += count;
    note_high_water();
}

/* Unlinks run r (whose predecessor is prev, or NO_RUN) from the list. */
static void run_unlink(uint32_t prev, uint32_t r)
{
    if (prev == NO_RUN)
        free_runs = run_next[r];
    else
        run_next[prev] = run_next[r];
}

/* Takes the first n megablocks of free run r (prev precedes it), n <=
 * run_len[r].  The rest of the run, if any, stays in r's place. */
static void *take_from_run(uint32_t prev, uint32_t r, uint32_t n)
{
    if (commit_returned(r, n) != 0)
        return NULL;
    uint32_t rest = run_len[r] - n;
    if (rest == 0) {
        run_unlink(prev, r);
    } else {
        uint32_t s = r + n;
        run_len[s] = rest;
        run_next[s] = run_next[r];
        if (prev == NO_RUN)
            free_runs = s;
        else
            run_next[prev] = s;
    }
    n_free -= n;
    mark_in_use(r, n);
    return mb_addr(r);
}

/* Commits [bump, bump+n) for the bump index to move over, skipping what
 * the prefault window has committed already. */
static int commit_above_bump(uint32_t n)
{
    uint32_t from = ahead_end > bump ? ahead_end : bump;
    if (from >= bump + n)
        return 0;
    int err = os_mem_commit(mb_addr(from), (StgWord)(bump + n - from) << MBLOCK_SHIFT);
    if (err != 0)
        debug_trace(DEBUG_BLOCK, "mblock: commit failed (first=%lu, count=%lu, errno=%d)",
                    (unsigned long)from, (unsigned long)(bump + n - from), err);
    return err;
}

/* Where the window should end: at ahead_target, and at least ahead_idle
 * megablocks above the bump index, inside the reservation. */
static uint32_t window_end(void)
{
    uint32_t end = n_total - bump < ahead_idle ? n_total : bump + ahead_idle;
    return ahead_target > end ? ahead_target : end;
}

/* Keeps the window [bump, window_end()) committed and handed to the
 * prefault helper (Note [Faulting in ahead of the heap] in Prefault.c).
 * A failed commit only makes the window shorter; so does a populate call
 * in flight, which the commit would wait for, while half the window is
 * still ahead (Note [The helper never holds up the program]): a later
 * allocation grows it. */
static void keep_window(void)
{
    if (!prefault_running())
        return;
    if (ahead_end < bump)
        ahead_end = bump;
    uint32_t want_end = window_end();
    bool paused = want_end > ahead_end && prefault_pause();
    if (want_end > ahead_end && (paused || ahead_end - bump < (want_end - bump) / 2)) {
        int err = os_mem_commit(mb_addr(ahead_end), (StgWord)(want_end - ahead_end) << MBLOCK_SHIFT);
        if (paused)
            prefault_resume();
        n_window_commits++;
        if (err != 0) {
            debug_trace(DEBUG_BLOCK, "mblock: commit ahead failed (first=%lu, count=%lu, "
                        "errno=%d)", (unsigned long)ahead_end,
                        (unsigned long)(want_end - ahead_end), err);
            return;
        }
        ahead_end = want_end;
    }
    if (ahead_end > bump)
        prefault_extend(mb_addr(bump), mb_addr(ahead_end));
}

/* Decommits the window [bump, ahead_end), after making sure the helper
 * touches none of it.  On failure the range stays committed and stays the
 * window. */
static void drop_window(void)
{
    if (ahead_end <= bump)
        return;
    prefault_cancel();
    int err = os_mem_decommit(mb_addr(bump), (StgWord)(ahead_end - bump) << MBLOCK_SHIFT);
    if (err != 0) {
        debug_trace(DEBUG_BLOCK, "mblock: decommit of the window failed (first=%lu, count=%lu, "
                    "errno=%d)", (unsigned long)bump, (unsigned long)(ahead_end - bump), err);
        return;
    }
    ahead_end = bump;
}

/* Takes the whole of run r, which ends at the bump index, plus extra
 * untouched megablocks above it. */
static void *take_run_and_bump(uint32_t prev, uint32_t r, uint32_t extra)
{
    uint32_t len = run_len[r];
    if (commit_returned(r, len) != 0)
        return NULL;
    if (commit_above_bump(extra) != 0)
        return NULL;
    run_unlink(prev, r);
    n_free -= len;
    bump += extra;
    if (bump > bump_hw)
        bump_hw = bump;
    mark_in_use(r, len + extra);
    keep_window();
    return mb_addr(r);
}

static void *take_from_bump(uint32_t n)
{
    if (commit_above_bump(n) != 0)
        return NULL;
    uint32_t first = bump;
    bump += n;
    if (bump > bump_hw)
        bump_hw = bump;
    mark_in_use(first, n);
    keep_window();
    return mb_addr(first);
}

/*
 * Note [Growing the last free run]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * When no free run is long enough, a request goes to the bump index.  If
 * the highest free run ends exactly at the bump index, we hand out that
 * run plus just enough untouched megablocks above it, instead of leaving
 * the run behind as a hole.  Large objects that grow a little at a time
 * (n, then n+1, ...) would otherwise leave a trail of unusable runs.
 */
void *mblock_alloc_group(StgWord n)
{
    if (n == 0)
        rts_panic("mblock_alloc_group: zero megablocks requested");
    if (mb_state == NULL)
        rts_panic("mblock_alloc_group: mblock_init has not been called");
    if (n > n_total)
        return NULL;
    uint32_t want = (uint32_t)n;

    uint32_t prev = NO_RUN, last = NO_RUN, last_prev = NO_RUN;
    for (uint32_t r = free_runs; r != NO_RUN; prev = r, r = run_next[r]) {
        if (run_len[r] >= want)
            return take_from_run(prev, r, want);
        last_prev = prev;
        last = r;
    }
    if (last != NO_RUN && last + run_len[last] == bump) {
        uint32_t extra = want - run_len[last];
        if (n_total - bump < extra)
            return NULL;
        return take_run_and_bump(last_prev, last, extra);
    }
    if (n_total - bump < want) {
        debug_trace(DEBUG_BLOCK, "mblock: reservation exhausted (want=%lu, left=%lu)",
                    (unsigned long)want, (unsigned long)(n_total - bump));
        return NULL;
    }
    return take_from_bump(want);
}

/* --------------------------------------------------------------------------
 * Freeing
 * ----------------------------------------------------------------------- */

void mblock_free_group(void *mb, StgWord n)
{
    if (mb_state == NULL)
        rts_panic("mblock_free_group: mblock_init has not been called");
    if (n == 0 || ((StgWord)mb & MBLOCK_MASK) != 0 || !heap_alloced(mb))
        rts_panic("mblock_free_group: bad argument (mb=%p, n=%lu)", mb, (unsigned long)n);
    uint32_t first = mb_index(mb);
    if (first >= bump || n > bump - first)
        rts_panic("mblock_free_group: group runs past the used heap "
                  "(mb=%p, n=%lu, bump=%lu)", mb, (unsigned long)n, (unsigned long)bump);
    uint32_t count = (uint32_t)n;
    for (uint32_t i = first; i < first + count; i++) {
        if (mb_state[i] != MB_IN_USE)
            rts_panic("mblock_free_group: megablock not in use (mb=%p, index=%lu, state=%d)",
                      (void *)mb_addr(i), (unsigned long)i, mb_state[i]);
        mb_state[i] = MB_FREE;
    }
    n_in_use -= count;
    n_free += count;

    /* Find the runs either side; keep the list sorted and coalesced. */
    uint32_t prev = NO_RUN, next = free_runs;
    while (next != NO_RUN && next < first) {
        prev = next;
        next = run_next[next];
    }
    uint32_t cur;
    if (prev != NO_RUN && prev + run_len[prev] == first) {
        run_len[prev] += count;
        cur = prev;
    } else {
        run_len[first] = count;
        run_next[first] = next;
        if (prev == NO_RUN)
            free_runs = first;
        else
            run_next[prev] = first;
        cur = first;
    }
    if (next != NO_RUN && cur + run_len[cur] == next) {
        run_len[cur] += run_len[next];
        run_next[cur] = run_next[next];
    }
}

/* --------------------------------------------------------------------------
 * Returning memory to the OS
 * ----------------------------------------------------------------------- */

/* After megablocks at the top of the used heap have been returned, move
 * the bump index down over them: they become untouched again, and the
 * free list gets shorter (.inv.mblock-bump). */
static void retreat_bump(void)
{
    uint32_t prev = NO_RUN, last = NO_RUN;
    for (uint32_t r = free_runs; r != NO_RUN; r = run_next[r]) {
        if (run_next[r] == NO_RUN) {
            last = r;
            break;
        }
        prev = r;
    }
    if (last == NO_RUN || last + run_len[last] != bump)
        return;
    uint32_t k = 0;
    while (k < run_len[last] && mb_state[bump - 1 - k] == MB_RETURNED) {
        mb_state[bump - 1 - k] = MB_UNTOUCHED;
        k++;
    }
    if (k == 0)
        return;
    drop_window();   /* the window sits on the old bump index */
    bump -= k;
    ahead_end = bump;
    n_returned_free -= k;
    run_len[last] -= k;
    if (run_len[last] == 0)
        run_unlink(prev, last);
}

/*
 * Note [Returning the highest megablocks first]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Allocation is first-fit from the lowest address, so the megablocks
 * likely to be wanted again soon are the low ones.  Returning from the top
 * keeps the committed part of the heap compact and lets the bump index
 * move down again.  We walk mb_state downwards from the bump index; that
 * is O(megablocks used), which is fine for a call made once per major GC.
 */
StgWord mblock_return_free(StgWord keep)
{
    if (mb_state == NULL)
        return 0;
    StgWord want = n_free > keep ? n_free - keep : 0;
    StgWord returned = 0;
    if (want > 0) {
        /* Memory is going back, so the heap will not grow soon: the window
         * goes too, and the helper must not be faulting in what is about
         * to be decommitted. */
        drop_window();
        prefault_cancel();
    }
    uint32_t i = bump;
    while (want > 0 && i > 0) {
        i--;
        if (mb_state[i] != MB_FREE)
            continue;
        uint32_t hi = i + 1, lo = i;
        while (lo > 0 && mb_state[lo - 1] == MB_FREE && hi - lo < want)
            lo--;
        int err = os_mem_decommit(mb_addr(lo), (StgWord)(hi - lo) << MBLOCK_SHIFT);
        if (err != 0) {
            /* The range may be zeroed but is still accessible: it stays
             * MB_FREE.  Give up for now; a later call will try again. */
            debug_trace(DEBUG_BLOCK, "mblock: decommit failed (first=%lu, count=%lu, errno=%d)",
                        (unsigned long)lo, (unsigned long)(hi - lo), err);
            break;
        }
        for (uint32_t k = lo; k < hi; k++)
            mb_state[k] = MB_RETURNED;
        n_free -= hi - lo;
        n_returned_free += hi - lo;
        n_returned_total += hi - lo;
        returned += hi - lo;
        want -= hi - lo;
        i = lo;
    }
    retreat_bump();
    if (returned != 0)
        debug_trace(DEBUG_BLOCK, "mblock: returned %lu megablocks to the OS (kept=%lu)",
                    (unsigned long)returned, (unsigned long)n_free);
    return returned;
}

/* --------------------------------------------------------------------------
 * The prefault window
 * ----------------------------------------------------------------------- */

int mblock_prefault_start(void)
{
    if (mb_state == NULL)
        rts_panic("mblock_prefault_start: mblock_init has not been called");
    return prefault_start();
}

void mblock_prefault_stop(void)
{
    prefault_stop();
}

void mblock_prefault_window(StgWord grow, StgWord idle)
{
    if (mb_state == NULL)
        return;
    ahead_target = grow > n_total - bump ? n_total : bump + (uint32_t)grow;
    ahead_idle = idle > n_total ? n_total : (uint32_t)idle;
    /* A smaller window leaves what is faulted in alone: predictions move
     * by a few megablocks from one GC to the next, and decommitting to
     * fault in again is the work the helper is there to save.  The window
     * goes when memory is returned (mblock_return_free). */
    keep_window();
}

StgWord mblock_prefault_bytes(void)
{
    return prefault_bytes();
}

StgWord mblock_prefault_ahead(void)
{
    return ahead_end > bump ? ahead_end - bump : 0;
}

StgWord mblock_prefault_wanted(void)
{
    if (mb_state == NULL || !prefault_running())
        return 0;
    return window_end() - bump;
}

static StgWord n_ways_made;     /* mblock_prefault_make_way(true) calls; atomic */

void mblock_prefault_make_way(bool on)
{
    if (on)
        __atomic_fetch_add(&n_ways_made, 1, __ATOMIC_RELAXED);
    prefault_make_way(on);
}

StgWord mblock_prefault_ways_made(void)
{
    return __atomic_load_n(&n_ways_made, __ATOMIC_RELAXED);
}

/* --------------------------------------------------------------------------
 * Counters
 * ----------------------------------------------------------------------- */

bool mblock_holds(const void *p)
{
    return mb_state != NULL && heap_alloced(p) && mb_index(p) < n_total &&
           mb_state[mb_index(p)] == MB_IN_USE;
}

StgWord mblock_n_in_use(void) { return n_in_use; }
StgWord mblock_n_free(void) { return n_free; }
StgWord mblock_n_returned_free(void) { return n_returned_free; }
StgWord mblock_n_hw(void) { return n_hw; }

StgWord mblock_take_cycle_peak(void)
{
    StgWord peak = n_cycle_peak;
    n_cycle_peak = n_in_use;
    return peak;
}
StgWord mblock_n_returned(void) { return n_returned_total; }
StgWord mblock_n_window_commits(void) { return n_window_commits; }

/* --------------------------------------------------------------------------
 * Debugging
 * ----------------------------------------------------------------------- */

/*
 * What mblock_check verifies (each tag is in docs/design/block-allocator.md):
 *   .inv.mblock-runs   free runs are inside [0, bump), non-empty, sorted,
 *                      and separated by at least one megablock not free
 *                      (so coalesced); the walk ends (no cycle).
 *   .inv.mblock-state  every megablock in a run is MB_FREE or MB_RETURNED,
 *                      and every such megablock is in a run.
 *   .inv.mblock-bump   megablocks in [bump, bump_hw) are MB_UNTOUCHED.
 *   .inv.mblock-ahead  the prefault window [bump, ahead_end) lies inside
 *                      the reservation, and its megablocks are
 *                      MB_UNTOUCHED too (committed, never handed out).
 *   .inv.mblock-count  the counters equal the numbers of megablocks in
 *                      each state, and n_hw >= n_in_use + n_free.
 * Whether MB_FREE megablocks really are committed is not checked: asking
 * the OS would need another system call in rts/os for a debugging aid.
 */
void mblock_check(void)
{
    if (mb_state == NULL)
        return;
    if (bump > n_total || bump_hw > n_total || bump > bump_hw)
        rts_panic("mblock_check: bad bump index (bump=%lu, bump_hw=%lu, total=%lu)",
                  (unsigned long)bump, (unsigned long)bump_hw, (unsigned long)n_total);

    StgWord runs = 0, in_runs = 0;
    uint32_t prev_end = 0;
    int first_run = 1;
    for (uint32_t r = free_runs; r != NO_RUN; r = run_next[r]) {
        if (++runs > n_total)
            rts_panic("mblock_check: free list has a cycle (runs=%lu)", (unsigned long)runs);
        if (r >= bump || run_len[r] == 0 || run_len[r] > bump - r)
            rts_panic("mblock_check: free run outside the used heap "
                      "(run=%lu, len=%lu, bump=%lu)",
                      (unsigned long)r, (unsigned long)run_len[r], (unsigned long)bump);
        if (!first_run && r <= prev_end)
            rts_panic("mblock_check: free list unsorted, overlapping or uncoalesced "
                      "(run=%lu, prev_end=%lu)", (unsigned long)r, (unsigned long)prev_end);
        for (uint32_t i = r; i < r + run_len[r]; i++)
            if (mb_state[i] != MB_FREE && mb_state[i] != MB_RETURNED)
                rts_panic("mblock_check: megablock in a free run is not free "
                          "(index=%lu, state=%d)", (unsigned long)i, mb_state[i]);
        in_runs += run_len[r];
        prev_end = r + run_len[r];
        first_run = 0;
    }

    StgWord used = 0, free_c = 0, returned = 0;
    for (uint32_t i = 0; i < bump; i++) {
        switch (mb_state[i]) {
        case MB_IN_USE: used++; break;
        case MB_FREE: free_c++; break;
        case MB_RETURNED: returned++; break;
        default:
            rts_panic("mblock_check: untouched megablock below the bump index "
                      "(index=%lu, bump=%lu)", (unsigned long)i, (unsigned long)bump);
        }
    }
    if (ahead_end > n_total)
        rts_panic("mblock_check: prefault window past the reservation (ahead_end=%lu, "
                  "total=%lu)", (unsigned long)ahead_end, (unsigned long)n_total);
    uint32_t untouched_end = ahead_end > bump_hw ? ahead_end : bump_hw;
    for (uint32_t i = bump; i < untouched_end; i++)
        if (mb_state[i] != MB_UNTOUCHED)
            rts_panic("mblock_check: megablock above the bump index is not untouched "
                      "(index=%lu, state=%d)", (unsigned long)i, mb_state[i]);
    if (in_runs != free_c + returned)
        rts_panic("mblock_check: free megablocks missing from the free list "
                  "(in_runs=%lu, free=%lu, returned=%lu)",
                  (unsigned long)in_runs, (unsigned long)free_c, (unsigned long)returned);
    if (used != n_in_use || free_c != n_free || returned != n_returned_free)
        rts_panic("mblock_check: counters miscounted (in_use=%lu/%lu, free=%lu/%lu, "
                  "returned=%lu/%lu)",
                  (unsigned long)used, (unsigned long)n_in_use, (unsigned long)free_c,
                  (unsigned long)n_free, (unsigned long)returned,
                  (unsigned long)n_returned_free);
    if (n_hw < n_in_use + n_free)
        rts_panic("mblock_check: high-water mark too low (hw=%lu, in_use=%lu, free=%lu)",
                  (unsigned long)n_hw, (unsigned long)n_in_use, (unsigned long)n_free);
}
