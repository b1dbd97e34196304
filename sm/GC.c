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
#include "Evac.h"
#include "GCPrivate.h"
#include "GrowArray.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "Policy.h"
#include "Sanity.h"
#include "Tenure.h"
#include "Weak.h"
#include "os/Clock.h"
#include "strata/Alloc.h"

GCThread gct;

#define MAX_GC_HOOKS 8
static GCHook gc_hooks[MAX_GC_HOOKS];
static unsigned n_gc_hooks = 0;

#define MAX_ROOT_SOURCES 8
static RootSource root_sources[MAX_ROOT_SOURCES];
static unsigned n_root_sources = 0;

static RootSource weak_root_sources[MAX_ROOT_SOURCES];
static unsigned n_weak_root_sources = 0;

static const GCObserver *observer = NULL;
static GCDetails last_details;

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
    if (gct.scan_queue_len == gct.scan_queue_cap) {
        size_t cap = gct.scan_queue_cap;
        if (GROW_ARRAY_RESERVE_MIN(gct.scan_queue, cap, gct.scan_queue_len + 1, 256) != 0)
            rts_panic("out of C heap growing the GC scan queue (entries=%lu)",
                      (unsigned long)gct.scan_queue_len);
        gct.scan_queue_cap = cap;
    }
    bd->flags |= BF_SCANQ;
    gct.scan_queue[gct.scan_queue_len++] = bd;
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
        g->gc_last_dest = NULL;
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
            era_map_clear(&g->dests);
            g->gc_shared_dest = NULL;
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

void gc_add_weak_root_source(RootSource source)
{
    if (n_weak_root_sources == MAX_ROOT_SOURCES)
        rts_panic("too many weak root sources (max=%d)", MAX_ROOT_SOURCES);
    weak_root_sources[n_weak_root_sources++] = source;
}

static void update_weak_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    *slot = weak_gc_is_alive(*slot);
}

/* Points each weak root at its object's new address, or NULL if the
 * object died: after everything reachable has been found. */
static void update_weak_roots(void)
{
    for (unsigned i = 0; i < n_weak_root_sources; i++)
        weak_root_sources[i](update_weak_root, NULL);
}

/* Scavenges until nothing more is reachable, weak pointers included: a
 * weak's value becomes reachable once its key is, and may reach other
 * keys (Note [Weak pointers] in Weak.c). */
static void scavenge_to_fixed_point(void)
{
    do
        scavenge_loop();
    while (weak_gc_traverse());
    weak_gc_end();
}

/* A root is reachable from nothing older: it is evacuated as if from
 * generation 0, so its object stays where the policy puts it. */
static void evacuate_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    gct.evac_gen = 0;
    evacuate(slot);
}

static void evacuate_roots(unsigned N)
{
    gc_visit_roots(evacuate_root, NULL);
    gct.evac_gen = 0;
    for (StgWord i = 0; i < static_roots_count; i++) {
        gct.failed_to_evac = false;
        scavenge_object(static_roots[i]);
    }
    for (unsigned i = N + 1; i < storage_n_gens; i++)
        scavenge_mut_list(&storage_gens[i]);
}

/* Frees from-space and the dead large objects; clears the GC flags on
 * what survived; recounts the collected generations. */
static void free_from_space(unsigned N)
{
    for (unsigned i = 0; i < storage_n_gens; i++) {
        Generation *g = &storage_gens[i];
        mut_list_free(g->old_mut_list);
        g->old_mut_list = NULL;
        if (i > N) {
            for (BlockDesc *bd = g->large_objects; bd != NULL; bd = bd->link)
                bd->flags &= (uint16_t)~BF_EVACUATED;
            continue;
        }
        block_free_chain(g->old_blocks);
        g->old_blocks = NULL;
        g->n_old_blocks = 0;
        for (BlockDesc *bd = g->old_large, *next; bd != NULL; bd = next) {
            next = bd->link;
            block_free_group(bd);
        }
        g->old_large = NULL;
        for (BlockDesc *bd = g->blocks; bd != NULL; bd = bd->link)
            bd->flags &= (uint16_t)~BF_EVACUATED;
        for (BlockDesc *bd = g->large_objects; bd != NULL; bd = bd->link)
            bd->flags &= (uint16_t)~BF_EVACUATED;
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

static void observe_phase(GCPhase phase)
{
    if (observer != NULL && observer->phase != NULL)
        observer->phase(phase);
}

/* Starts the collection's bookkeeping: the tally if one is due. */
static void begin_collection(unsigned N, bool is_major)
{
    gct.collected_gen = N;
    gct.copied_words = 0;
    gct.todo_large = NULL;
    gct.scan_queue_len = 0;
    gct.tally = is_major ? tally_wanted : NULL;
    if (gct.tally != NULL) {
        tally_wanted = NULL;
        live_tally_reset(gct.tally);
    }
}

static void finish_tally(void)
{
    if (gct.tally == NULL)
        return;
    live_tally_flush(gct.tally);
    gct.tally->filled = true;
    gct.tally = NULL;
}

/* The figures of the collection just done, for the observer. */
static void fill_details(GCDetails *d, unsigned N, bool is_major, StgWord returned)
{
    d->gen = N;
    d->major = is_major;
    d->copied_bytes = gct.copied_words * WORD_SIZE;
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

/* Note [Who collects]
 * ~~~~~~~~~~~~~~~~~~~
 * The capability that finds the nursery exhausted (or is asked to collect)
 * stops the world and collects alone; the others are parked at safe
 * points (Note [Stopping the world] in Capability.c).  When two ask at
 * once, the second parks for the first's GC and returns without one: its
 * nursery has been emptied, which is what it wanted.  A forced collection
 * (strata_perform_gc, a heap census) tries again until it runs its own. */
void gc_collect(bool major)
{
    if (!capability_stop_world())
        return;
    collect_with_world_stopped(major);
    capability_resume_world();
}

static void collect_with_world_stopped(bool major)
{
    uint64_t start_ns = clock_elapsed_ns();
    mut_list_gather();
    observe_phase(GC_PHASE_START);
    unsigned N = policy_collected_gen(major);
    bool is_major = N == storage_n_gens - 1;
    debug_trace(DEBUG_GC, "gc: collecting generations 0..%u%s", N, is_major ? " (major)" : "");
    GCDetails details = {0};
    details.allocated_bytes = account_allocation() + storage_large_alloc_bytes;
    storage_large_alloc_bytes = 0;
    if (debug_enabled(DEBUG_SANITY))
        sanity_check_heap("before GC");

    begin_collection(N, is_major);
    tenure_before_gc(N);
    prepare_generations(N);
    weak_gc_begin();
    observe_phase(GC_PHASE_WORK);
    evacuate_roots(N);
    scavenge_to_fixed_point();
    update_weak_roots();
    finish_tally();
    observe_phase(GC_PHASE_IDLE);
    observe_phase(GC_PHASE_DONE);
    free_from_space(N);
    tenure_after_gc(N);
    storage_reset_nursery();
    StgWord returned = policy_resize_after_gc(N);
    fill_details(&details, N, is_major, returned);
    details.elapsed_ns = clock_elapsed_ns() - start_ns;
    last_details = details;

    if (debug_enabled(DEBUG_SANITY))
        sanity_check_heap("after GC");
    if (observer != NULL && observer->end != NULL)
        observer->end(&details);
    policy_check_heap_limit(N);
    for (unsigned i = 0; i < n_gc_hooks; i++)
        gc_hooks[i](N, is_major);
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
    observer = o;
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
    for (unsigned i = 0; i < storage_n_gens; i++)
        era_map_free(&storage_gens[i].dests);
    weak_exit();
    free(gct.scan_queue);
    memset(&gct, 0, sizeof gct);
}
