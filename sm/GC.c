/*
 * sm/GC.c -- the collector's driver: choose the generations, prepare
 * from-space, evacuate the roots, scavenge to a fixed point, free
 * from-space, resize, report.  The phases are named calls so gc_collect
 * reads as the algorithm.  Evac.c and Scav.c hold the copying itself.
 * See docs/design/gc.md.
 */
#include "GC.h"

#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "Capability.h"
#include "Era.h"
#include "Evac.h"
#include "GCPlan.h"
#include "GCPrivate.h"
#include "GCThread.h"
#include "GrowArray.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "NonMoving.h"
#include "Policy.h"
#include "PromoteInPlace.h"
#include "Sanity.h"
#include "Tenure.h"
#include "Weak.h"
#include "os/Clock.h"

#define MAX_GC_HOOKS 8
static GCHook gc_hooks[MAX_GC_HOOKS];
static unsigned n_gc_hooks = 0;

#define MAX_ROOT_SOURCES 8
static RootSource root_sources[MAX_ROOT_SOURCES];
static unsigned n_root_sources = 0;

/* A weak root source and how many slots it holds now. */
typedef struct {
    RootSource visit;
    StgWord (*held)(void);
} WeakRootSource;
static WeakRootSource weak_root_sources[MAX_ROOT_SOURCES];
static unsigned n_weak_root_sources = 0;

static const GCObserver *observer = NULL;
static GCDetails last_details;
StgWord gc_bookkeeping_steps;

const GCDetails *gc_last_details(void)
{
    return &last_details;
}

static LiveTally *tally_wanted = NULL;

void gc_request_tally(LiveTally *t)
{
    tally_wanted = t;
}

/* ----------------------------------------------------------------------
 * The scan queue
 * ---------------------------------------------------------------------- */

void gc_push_scan_queue(BlockDesc *bd)
{
    GCThread *t = gct;
    if (t->scan_queue_len == t->scan_queue_cap) {
        size_t cap = t->scan_queue_cap;
        if (GROW_ARRAY_RESERVE_MIN(t->scan_queue, cap, t->scan_queue_len + 1, 256) != 0)
            rts_panic("out of C heap growing the GC scan queue (entries=%lu)",
                      (unsigned long)t->scan_queue_len);
        t->scan_queue_cap = cap;
    }
    bd_flags_set(bd, BF_SCANQ);
    t->scan_queue[t->scan_queue_len++] = bd;
}

/* ----------------------------------------------------------------------
 * Phases
 * ---------------------------------------------------------------------- */

/* Turns generations 0..N into from-space and detaches the remembered sets
 * of the older ones for scanning. */
static void prepare_generations(unsigned N)
{
    storage_sync_nursery();
    storage_retire_pinned_blocks();
    for (unsigned i = 0; i < storage_n_gens; i++) {
        Generation *g = &storage_gens[i];
        for (unsigned t = 0; t < gc_threads_max; t++) {
            GenWorkspace *ws = &gc_threads[t]->ws[i];
            ws->last_dest = NULL;
            if (i <= N) {
                era_map_clear(&ws->dests);
                ws->shared_dest = NULL;
            }
        }
        g->old_mut_list = g->mut_list;
        g->mut_list = NULL;
        if (i <= N) {
            g->old_blocks = g->blocks;
            g->n_old_blocks = g->n_blocks;
            g->blocks = NULL;
            g->n_blocks = 0;
            g->n_words = 0;
            g->old_large = g->large_objects;
            g->large_objects = NULL;
            g->n_large_blocks = 0;
            g->n_large_words = 0;
        }
        /* A generation not collected keeps filling its partly used blocks
         * (its dests and shared block); each was scanned to its end by
         * the last GC (.inv.scanned in docs/design/gc.md), so only what
         * this GC adds is scanned. */
    }
}

/* ----------------------------------------------------------------------
 * Roots
 * ---------------------------------------------------------------------- */

void gc_add_root_source(RootSource source)
{
    if (n_root_sources == MAX_ROOT_SOURCES)
        rts_panic("too many root sources (max=%d)", MAX_ROOT_SOURCES);
    root_sources[n_root_sources++] = source;
}

void gc_visit_roots(RootEvacFn evac, void *ctx)
{
    for (unsigned i = 0; i < n_root_sources; i++)
        root_sources[i](evac, ctx);
}

void gc_add_weak_root_source(RootSource source, StgWord (*held)(void))
{
    if (n_weak_root_sources == MAX_ROOT_SOURCES)
        rts_panic("too many weak root sources (max=%d)", MAX_ROOT_SOURCES);
    weak_root_sources[n_weak_root_sources++] = (WeakRootSource){source, held};
}

bool gc_copies_unique(bool census)
{
    if (census || weak_any())
        return true;
    for (unsigned i = 0; i < n_weak_root_sources; i++)
        if (weak_root_sources[i].held() != 0)
            return true;
    return false;
}

static void update_weak_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    *slot = weak_gc_is_alive(*slot);
}

void gc_visit_weak_roots(RootEvacFn evac, void *ctx)
{
    for (unsigned i = 0; i < n_weak_root_sources; i++)
        weak_root_sources[i].visit(evac, ctx);
}

/* Points each weak root at its object's new address, or NULL if the
 * object died: after everything reachable has been found. */
static void update_weak_roots(void)
{
    gc_visit_weak_roots(update_weak_root, NULL);
}

/* A root is reachable from nothing older: it is evacuated as if from
 * generation 0, so its object stays where the policy puts it. */
static void evacuate_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    gct->evac_gen = 0;
    evacuate(slot);
}

/* Note [Roots in parallel]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * The roots are cut into items -- each root source, runs of ROOT_CHUNK
 * static roots, each block of an older generation's remembered set --
 * and the GC threads take items in turn from a shared counter before they
 * scan, so a minor GC's large remembered set is shared out.  A root source
 * is one item however much it holds. */
#define ROOT_CHUNK 256

typedef struct {
    unsigned source;             /* < n_root_sources: that source */
    unsigned gen;                /* else a remembered-set block of gen ... */
    BlockDesc *mut_block;        /* ... this one, or static roots [lo, hi) */
    StgWord lo, hi;
} RootItem;

static RootItem *root_items = NULL;
static size_t n_root_items = 0, cap_root_items = 0;
static atomic_size_t next_root_item;

static void add_root_item(RootItem item)
{
    if (GROW_ARRAY_RESERVE_MIN(root_items, cap_root_items, n_root_items + 1, 64) != 0)
        rts_panic("out of C heap listing the GC's roots (items=%zu)", n_root_items);
    root_items[n_root_items++] = item;
}

static void list_root_items(unsigned N)
{
    n_root_items = 0;
    for (unsigned i = 0; i < n_root_sources; i++)
        add_root_item((RootItem){.source = i});
    for (StgWord lo = 0; lo < static_roots_count; lo += ROOT_CHUNK) {
        StgWord hi = lo + ROOT_CHUNK < static_roots_count ? lo + ROOT_CHUNK : static_roots_count;
        add_root_item((RootItem){.source = UINT32_MAX, .lo = lo, .hi = hi});
    }
    for (unsigned g = N + 1; g < storage_n_gens; g++)
        for (BlockDesc *bd = storage_gens[g].old_mut_list; bd != NULL; bd = bd->link) {
            gc_bookkeeping_steps++;
            add_root_item((RootItem){.source = UINT32_MAX, .gen = g, .mut_block = bd});
        }
    atomic_store_explicit(&next_root_item, 0, memory_order_relaxed);
}

bool gc_roots_all_taken(void)
{
    return atomic_load_explicit(&next_root_item, memory_order_acquire) >= n_root_items;
}

static void evacuate_root_item(const RootItem *item)
{
    if (item->source < n_root_sources) {
        root_sources[item->source](evacuate_root, NULL);
    } else if (item->mut_block != NULL) {
        scavenge_mut_list_block(item->gen, item->mut_block);
    } else {
        gct->evac_gen = 0;
        for (StgWord i = item->lo; i < item->hi; i++) {
            gct->failed_to_evac = false;
            scavenge_object(static_roots[i]);
        }
    }
}

/* Which capability GC thread i works for: thread 0 is the collector,
 * the others take the remaining capabilities in order. */
static unsigned collector_cap;

static void note_collector_cap(void)
{
    Capability *mine = capability_mine();
    collector_cap = mine != NULL ? mine->no : 0;
}

static unsigned thread_cap(unsigned i)
{
    if (i == 0)
        return collector_cap;
    return i - 1 < collector_cap ? i - 1 : i;
}

void gc_observe_nonmoving(NonMovingEvent event, uint64_t marked)
{
    const GCObserver *o = __atomic_load_n(&observer, __ATOMIC_ACQUIRE);
    if (o != NULL && o->nonmoving != NULL)
        o->nonmoving(event, marked);
}

void gc_observe_thread_phase(unsigned thread, GCPhase phase)
{
    if (observer != NULL && observer->thread_phase != NULL)
        observer->thread_phase(thread_cap(thread), phase);
}

/* What each GC thread runs: first the roots, then the scan. */
static void gc_thread_roots_and_scan(void)
{
    gc_claim_copies();
    gct->worked = true;
    gc_observe_thread_phase(gct->index, GC_PHASE_WORK);
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&next_root_item, 1, memory_order_relaxed);
        if (i >= n_root_items)
            break;
        evacuate_root_item(&root_items[i]);
    }
    scavenge_loop();
}

static void gc_thread_scan(void)
{
    gc_claim_copies();
    gct->worked = true;
    gc_observe_thread_phase(gct->index, GC_PHASE_WORK);
    scavenge_loop();
}

/* Evacuates the roots and scavenges until nothing more is reachable, weak
 * pointers included: a weak's value becomes reachable once its key is,
 * and may reach other keys (Note [Weak pointers] in Weak.c).  The weak
 * pointers are looked at by thread 0 alone between parallel scans. */
/* One round of the weak pointers (thread 0): a weak's value is not a
 * root of a non-moving snapshot (Note [The snapshot] in NonMoving.c). */
static bool traverse_weaks(void)
{
    bool push = gct->nm_push;
    gct->nm_push = false;
    bool more = weak_gc_traverse();
    gct->nm_push = push;
    return more;
}

static void collect_reachable(unsigned N)
{
    list_root_items(N);
    gc_work_begin();
    gc_run_threads(gc_n_threads, gc_thread_roots_and_scan);
    while (traverse_weaks()) {
        gc_work_begin();
        gc_run_threads(gc_n_threads, gc_thread_scan);
    }
    weak_gc_end();
    for (unsigned i = 0; i < gc_n_threads; i++)
        if (gc_threads[i]->worked)
            gc_observe_thread_phase(i, GC_PHASE_DONE);
}

/* Fills the used part of every nursery block with the poison pattern
 * before the nursery is reset: the blocks are reused, not freed, so
 * without this a pointer kept across the GC would read the moved object's
 * old contents, and later whatever is allocated there.  Debug builds only
 * (Note [Poisoning free blocks] in BlockAlloc.c). */
static void poison_nursery(void)
{
#if STRATA_DEBUG >= 2
    for (unsigned i = 0; i < capabilities_n; i++)
        for (BlockDesc *bd = capabilities[i].nursery.blocks; bd != NULL; bd = bd->link)
            memset(bd->start, HEAP_POISON_BYTE, (size_t)(bd->free - bd->start) * sizeof(StgWord));
#endif
}

/* Frees from-space and the dead large objects; clears the GC flag of
 * the collected generations' to-space blocks; recounts the collected
 * generations.  The live large groups' flags were cleared as they were
 * merged (Note [A minor GC costs what is young]). */
static void free_from_space(unsigned N)
{
    for (unsigned i = 0; i < storage_n_gens; i++) {
        Generation *g = &storage_gens[i];
        mut_list_free(g->old_mut_list);
        g->old_mut_list = NULL;
        if (i > N)
            continue;
        gc_bookkeeping_steps += g->n_old_blocks;
        block_free_chain(g->old_blocks);
        g->old_blocks = NULL;
        g->n_old_blocks = 0;
        for (BlockDesc *bd = g->old_large, *next; bd != NULL; bd = next) {
            gc_bookkeeping_steps++;
            next = bd->link;
            block_free_group(bd);
        }
        g->old_large = NULL;
        for (BlockDesc *bd = g->blocks; bd != NULL; bd = bd->link) {
            gc_bookkeeping_steps++;
            bd->flags &= (uint16_t)~BF_EVACUATED;
        }
        g->collections++;
    }
}

static StgWord live_words_total(void)
{
    StgWord w = 0;
    for (unsigned i = 0; i < storage_n_gens; i++)
        w += storage_gens[i].n_words + storage_gens[i].n_large_words;
    return w;
}

/* ----------------------------------------------------------------------
 * The driver
 * ---------------------------------------------------------------------- */

/* Starts the collection's bookkeeping in every GC thread that will run:
 * the tally if one is due (thread 0 counts into the one asked for, the
 * others into their own, merged at the end). */
static void begin_collection(unsigned N, bool is_major, bool snapshot, unsigned n_threads)
{
    gc_set_n_threads(n_threads);
    note_collector_cap();
    LiveTally *wanted = is_major ? tally_wanted : NULL;
    if (wanted != NULL) {
        tally_wanted = NULL;
        live_tally_reset(wanted);
    }
    bool unique = n_threads > 1 && gc_copies_unique(wanted != NULL);
    for (unsigned i = 0; i < gc_threads_max; i++) {
        GCThread *t = gc_threads[i];
        t->parallel = n_threads > 1;
        t->claim = t->parallel;
        t->unique_copies = unique;
        t->collected_gen = N;
        t->young_map = N == 0 && !snapshot ? block_young_map_biased : 0;
        t->era_finger.bd = NULL;
        t->copied_words = 0;
        t->aged_promoted_words = 0;
        t->todo_large = NULL;
        t->scan_queue_len = 0;
        t->scanning = NULL;
        t->steals = 0;
        t->worked = false;
        ws_deque_reset(&t->deque);
        t->tally = NULL;
        if (wanted != NULL && i < n_threads) {
            if (i == 0) {
                t->tally = wanted;
            } else {
                t->own_tally.eras = wanted->eras;
                t->own_tally.by_era = wanted->by_era;
                live_tally_reset(&t->own_tally);
                t->tally = &t->own_tally;
            }
        }
    }
    gct = gc_threads[0];
}

/* Adds the other GC threads' counts to thread 0's tally; returns it (NULL
 * when no census is due). */
static LiveTally *finish_tally(void)
{
    LiveTally *main = gc_threads[0]->tally;
    if (main == NULL)
        return NULL;
    live_tally_flush(main);
    for (unsigned i = 1; i < gc_n_threads; i++) {
        GCThread *t = gc_threads[i];
        if (t->tally == NULL)
            continue;
        live_tally_flush(t->tally);
        live_tally_merge(main, t->tally);
        t->tally = NULL;
    }
    main->filled = true;
    gc_threads[0]->tally = NULL;
    return main;
}

/* Note [A minor GC costs what is young]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A collection of generations 0..N costs what they hold and what the
 * remembered sets of the older generations hold, never what the older
 * generations hold: else a minor GC slows as the heap grows, which a
 * latency-bound program with a large old heap cannot afford.  The scan
 * keeps to that by construction (the roots and the remembered sets); the
 * bookkeeping around it must too.  Each live large or pinned group this
 * collection kept was flagged BF_EVACUATED by evacuate_large and put on a
 * workspace's list by scavenge_large, and no other group is flagged
 * (.inv.tospace in docs/design/gc.md), so merge_workspaces clears the flag
 * as it gives each to its generation.  Until it did, free_from_space
 * cleared it by walking every generation's large-object list at every
 * GC: msgbuf with a window of a million pinned 1 KiB messages paid a
 * cache miss per old pinned block at every minor GC, whose time grew with
 * the heap (bench/optimisations.md, row 4201c10).
 *
 * gc_bookkeeping_steps counts the entries of every list the bookkeeping
 * walks (remembered-set blocks listed as roots, workspace lists merged,
 * from-space and dead large groups freed, the collected generations'
 * to-space flags cleared, the collected generations' weak pointers and
 * the remembered ones passed over: Note [Old weaks that point young] in
 * Weak.c), and reaches the observer as GCDetails.bookkeeping_steps;
 * test_minor_gc checks that the same young work costs the same count over
 * an old generation ten times larger.  Until the weak pass kept to the
 * collected generations' lists it passed over every weak at every GC. */

/* Gives each generation what the GC threads added to it (.inv.gc-owner):
 * blocks, words, remembered objects and live large groups, whose
 * BF_EVACUATED is cleared on the way: these are every group this
 * collection kept, and no other has the flag (Note [A minor GC costs what
 * is young]). */
static void merge_workspaces(void)
{
    gc_return_spare_blocks();
    for (unsigned i = 0; i < gc_threads_max; i++) {
        for (unsigned gno = 0; gno < storage_n_gens; gno++) {
            Generation *g = &storage_gens[gno];
            GenWorkspace *ws = &gc_threads[i]->ws[gno];
            if (ws->blocks != NULL) {
                ws->blocks_tail->link = g->blocks;
                g->blocks = ws->blocks;
                g->n_blocks += ws->n_blocks;
            }
            g->n_words += ws->n_words;
            gc_threads[i]->copied_words += ws->n_words;   /* Note [A copy without a call] */
            if (ws->mut_list != NULL) {
                BlockDesc *tail = ws->mut_list;
                while (tail->link != NULL) {
                    gc_bookkeeping_steps++;
                    tail = tail->link;
                }
                tail->link = g->mut_list;
                g->mut_list = ws->mut_list;
            }
            for (BlockDesc *bd = ws->large_objects, *next; bd != NULL; bd = next) {
                gc_bookkeeping_steps++;
                next = bd->link;
                bd->flags &= (uint16_t)~BF_EVACUATED;
                dbl_link_onto(bd, &g->large_objects);
            }
            g->n_large_blocks += ws->n_large_blocks;
            g->n_large_words += ws->n_large_words;
            ws->blocks = ws->blocks_tail = NULL;
            ws->n_blocks = ws->n_words = 0;
            ws->mut_list = NULL;
            ws->large_objects = NULL;
            ws->n_large_blocks = ws->n_large_words = 0;
        }
    }
}

/* Each GC thread's copied bytes, and GHC's work-balance figures: the
 * balanced figure sums, over threads, the bytes each copied up to an even
 * share, rescaled so that a perfect split gives the total and a serial
 * one zero. */
static StgWord thread_copied_bytes[GC_THREADS_MAX];

static void fill_thread_details(GCDetails *d)
{
    unsigned n = gc_n_threads;
    StgWord total = 0, max = 0;
    for (unsigned i = 0; i < n; i++) {
        thread_copied_bytes[i] = gc_threads[i]->copied_words * WORD_SIZE;
        total += thread_copied_bytes[i];
        if (thread_copied_bytes[i] > max)
            max = thread_copied_bytes[i];
    }
    d->gc_threads = n;
    d->copied_bytes = total;
    d->par_max_copied_bytes = max;
    d->thread_copied_bytes = thread_copied_bytes;
    if (n == 1) {
        d->par_balanced_copied_bytes = 0;
        return;
    }
    /* sum of min(n * c_i, total): total when one thread did it all, n *
     * total when each did a share. */
    double acc = 0;
    for (unsigned i = 0; i < n; i++) {
        double share = (double)n * (double)thread_copied_bytes[i];
        acc += share < (double)total ? share : (double)total;
    }
    d->par_balanced_copied_bytes = (StgWord)((acc - (double)total) / (double)(n - 1) + 0.5);
}

/* The figures of the collection just done, for the observer. */
static void fill_details(GCDetails *d, unsigned N, bool is_major, StgWord returned)
{
    d->gen = N;
    d->major = is_major;
    d->live_bytes = live_words_total() * WORD_SIZE;
    StgWord large_words = 0;
    for (unsigned i = 0; i < storage_n_gens; i++)
        large_words += storage_gens[i].n_large_words;
    d->large_live_bytes = large_words * WORD_SIZE;
    d->heap_blocks = storage_heap_blocks();
    StgWord old_blocks = d->heap_blocks - storage_nursery_blocks();
    d->slop_bytes = old_blocks * BLOCK_SIZE > d->live_bytes
                        ? old_blocks * BLOCK_SIZE - d->live_bytes : 0;
    d->mem_in_use_bytes = mblock_n_hw() * MBLOCK_SIZE;   /* GHC: peak megablocks */
    d->returned_mblocks = returned;
    d->kept_mblocks = mblock_n_in_use();
}

/* Per-capability nursery allocation since the last GC, added to each
 * capability's total (the world stopped). */
static StgWord account_allocation(void)
{
    StgWord total = 0;
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        StgWord bytes = storage_nursery_allocated_bytes_of(cap);
        cap->allocated_words_total += bytes / WORD_SIZE;
        total += bytes;
    }
    return total;
}

static void collect_with_world_stopped(bool major);

/* A non-moving snapshot's collection promotes every survivor of
 * generations 0..N into the oldest (Note [The snapshot] in NonMoving.c):
 * every from-space group and the nursery send their survivors there.
 * Returns the nursery's destination before, to put back afterwards. */
static uint16_t send_young_to_oldest(unsigned N)
{
    uint16_t oldest = (uint16_t)(storage_n_gens - 1);
    for (unsigned i = 0; i <= N; i++) {
        for (BlockDesc *bd = storage_gens[i].old_blocks; bd != NULL; bd = bd->link)
            bd->dest_no = oldest;
        for (BlockDesc *bd = storage_gens[i].old_large; bd != NULL; bd = bd->link)
            bd->dest_no = oldest;
    }
    uint16_t dest = storage_nursery_dest();
    storage_nursery_set_dest(oldest);
    return dest;
}

/* What the GC threads copied out of generation 0's aging blocks into the
 * non-moving generation (Note [A probe that ages a sample] in Tenure.c). */
static StgWord aged_promoted_words(void)
{
    StgWord words = 0;
    for (unsigned i = 0; i < gc_threads_max; i++)
        words += gc_threads[i]->aged_promoted_words;
    return words;
}

/* The collection proper: from-space traced and copied.  snapshot: it
 * starts a cycle of the non-moving generation. */
static LiveTally *collect_by_copying(unsigned N, bool is_major, bool snapshot,
                                     unsigned n_threads, GCDetails *details)
{
    begin_collection(N, is_major, snapshot, n_threads);
    if (!snapshot)
        tenure_before_gc(N);   /* the snapshot ages nothing */
    bool direct = !tenure_aging_enabled();
    if (snapshot)
        nonmoving_snapshot_begin(n_threads);
    prepare_generations(N);
    uint16_t nursery_dest = snapshot ? send_young_to_oldest(N) : 0;
    weak_gc_begin();
    collect_reachable(N);
    update_weak_roots();
    LiveTally *tally = finish_tally();
    merge_workspaces();
    if (nonmoving_on())
        nonmoving_gc_done();
    fill_thread_details(details);
    free_from_space(N);
    if (snapshot) {
        storage_nursery_set_dest(nursery_dest);
        return tally;
    }
    tenure_after_gc(N, aged_promoted_words());
    promote_in_place_measure(N, direct, details->allocated_bytes, details->copied_bytes);
    return tally;
}

/* A promotion in place copies nothing; GHC's figures read as one GC thread
 * that copied nothing. */
static void fill_in_place_details(GCDetails *d, StgWord promoted_words)
{
    thread_copied_bytes[0] = 0;
    d->gc_threads = 1;
    d->copied_bytes = 0;
    d->par_max_copied_bytes = 0;
    d->par_balanced_copied_bytes = 0;
    d->thread_copied_bytes = thread_copied_bytes;
    d->in_place = true;
    d->promoted_in_place_bytes = promoted_words * WORD_SIZE;
}

/* Note [Who collects]
 * ~~~~~~~~~~~~~~~~~~~
 * The capability that finds the nursery exhausted (or is asked to collect)
 * stops the world and collects alone; the others are parked at safe
 * points (Note [Stopping the world] in Capability.c).  When two ask at
 * once, the second parks for the first's GC and returns without one: its
 * nursery has been emptied, which is what it wanted.  A forced collection
 * (strata_perform_gc, a heap census) tries again until it runs its own. */
volatile sig_atomic_t gc_collecting;

void gc_collect(bool major)
{
    if (!capability_stop_world())
        return;
    collect_with_world_stopped(major);
    capability_resume_world();
}

static void collect_with_world_stopped(bool major)
{
    gc_collecting = 1;
    gc_bookkeeping_steps = 0;
    uint64_t start_ns = clock_elapsed_ns();
    /* The pause is the collection's from here: the non-moving cycle's
     * step below is part of it (Note [Asking before the cycle's step] in
     * GCPlan.c). */
    if (observer != NULL && observer->start != NULL)
        observer->start(gc_plan_threads_asked(major));
    /* The collecting thread's own state (its root stack pointer) becomes
     * visible as a parked thread's is: any GC thread may visit its roots. */
    if (capability_before_park_hook != NULL)
        capability_before_park_hook();
    mut_list_gather();
    /* The non-moving generation's cycle first: a sync it waits for, a
     * sweep it finished, or all of it when this collection must be exact
     * (Note [The non-moving collector] in NonMoving.c). */
    bool exact = major || policy_exact_wanted();
    bool cycle_done = nonmoving_on() && nonmoving_gc_begin(exact);
    if (nonmoving_on() && !cycle_done)   /* Note [A collection helps a lagging cycle] */
        cycle_done = nonmoving_help_cycle(policy_cycle_lag());
    if (cycle_done)
        policy_set_budgets();   /* the ended cycle's, before the plan reads them */
    GCPlan plan = gc_plan(major);
    if (plan.major_deferred && tally_wanted != NULL)
        gc_request_major();   /* a census: the snapshot after this cycle */
    unsigned N = plan.N, copied_gen = plan.copied_gen, n_threads = plan.n_threads;
    bool is_major = plan.is_major, snapshot = plan.snapshot, in_place = plan.in_place;
    debug_trace(DEBUG_GC, "gc: collecting generations 0..%u%s with %u thread%s", N,
                is_major ? " (major)" : "", n_threads, n_threads == 1 ? "" : "s");
    GCDetails details = {0};
    details.allocated_bytes = account_allocation() + storage_large_alloc_bytes;
    storage_large_alloc_bytes = 0;
    policy_prefault_before_gc(N);
    if (debug_enabled(DEBUG_SANITY))
        sanity_check_heap("before GC");

    StgWord promoted_words;
    if (in_place && promote_in_place(&promoted_words)) {
        fill_in_place_details(&details, promoted_words);
        note_collector_cap();
        /* One GC thread's phases, as a sequential copying GC reports them. */
        gc_observe_thread_phase(0, GC_PHASE_WORK);
        gc_observe_thread_phase(0, GC_PHASE_IDLE);
        gc_observe_thread_phase(0, GC_PHASE_DONE);
    } else {
        /* Also when no fresh nursery blocks could be had for an in-place GC. */
        LiveTally *tally = collect_by_copying(copied_gen, is_major, snapshot, n_threads, &details);
        if (snapshot)
            cycle_done |= nonmoving_snapshot_end(tally, exact);
    }
    poison_nursery();
    storage_reset_nursery();
    /* A concurrent cycle's budget and memory are settled when it ends. */
    unsigned settled_gen = cycle_done ? storage_n_gens - 1 : snapshot ? copied_gen : N;
    StgWord returned = policy_resize_after_gc(settled_gen);
    fill_details(&details, N, is_major, returned);
    policy_prefault_after_gc();
    details.elapsed_ns = clock_elapsed_ns() - start_ns;
    details.bookkeeping_steps = gc_bookkeeping_steps;
    last_details = details;

    if (debug_enabled(DEBUG_SANITY))
        sanity_check_heap("after GC");
    if (observer != NULL && observer->end != NULL)
        observer->end(&details);
    policy_check_heap_limit(settled_gen);
    gc_collecting = 0;   /* the hooks (census, finalizers) are not the collector */
    for (unsigned i = 0; i < n_gc_hooks; i++)
        gc_hooks[i](N, is_major);
    storage_era_after_gc(is_major);   /* after the census hook: GHC's order */
}

void gc_collect_forced(bool major)
{
    capability_stop_world_own();
    collect_with_world_stopped(major);
    capability_resume_world();
}

void gc_add_post_hook(GCHook hook)
{
    if (n_gc_hooks == MAX_GC_HOOKS)
        rts_panic("too many GC hooks (max=%d)", MAX_GC_HOOKS);
    gc_hooks[n_gc_hooks++] = hook;
}

void gc_set_observer(const GCObserver *o)
{
    __atomic_store_n(&observer, o, __ATOMIC_RELEASE);   /* the mark thread reads it */
}

void gc_exit(void)
{
    n_gc_hooks = 0;
    n_root_sources = 0;
    n_weak_root_sources = 0;
    observer = NULL;
    memset(&last_details, 0, sizeof last_details);
    tally_wanted = NULL;
    policy_reset();
    tenure_reset();
    promote_in_place_reset();
    weak_exit();
    free(root_items);
    root_items = NULL;
    n_root_items = cap_root_items = 0;
}
