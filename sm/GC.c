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
#include "EventLog.h"
#include "Evac.h"
#include "GCPrivate.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "Roots.h"
#include "RtsFlags.h"
#include "Sanity.h"
#include "StablePtr.h"
#include "Stats.h"
#include "Tenure.h"
#include "strata/Alloc.h"

GCThread gct;

#define MAX_GC_HOOKS 8
static GCHook gc_hooks[MAX_GC_HOOKS];
static unsigned n_gc_hooks = 0;

/* Set when a minor GC leaves the heap above -M, or when a heap census is
 * due: the next GC is major. */
static bool major_gc_wanted = false;

void gc_request_major(void)
{
    major_gc_wanted = true;
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
        StgWord cap = gct.scan_queue_cap ? 2 * gct.scan_queue_cap : 256;
        BlockDesc **q = realloc(gct.scan_queue, cap * sizeof *q);
        if (q == NULL)
            rts_panic("out of C heap growing the GC scan queue (entries=%lu)", (unsigned long)cap);
        gct.scan_queue = q;
        gct.scan_queue_cap = cap;
    }
    gct.scan_queue[gct.scan_queue_len++] = bd;
}

/* ----------------------------------------------------------------------
 * Phases
 * ---------------------------------------------------------------------- */

static StgWord gen_blocks(const Generation *g)
{
    return g->n_blocks + g->n_large_blocks;
}

/* The oldest generation that has outgrown its budget, or the oldest of
 * all for a major collection. */
static unsigned choose_collected_gen(bool major)
{
    if (major || major_gc_wanted)
        return storage_n_gens - 1;
    unsigned n = 0;
    for (unsigned g = 1; g < storage_n_gens; g++)
        if (gen_blocks(&storage_gens[g]) > storage_gens[g].max_blocks)
            n = g;
    return n;
}

/* Turns generations 0..N into from-space and detaches the remembered sets
 * of the older ones for scanning. */
static void prepare_generations(unsigned N)
{
    storage_sync_nursery();
    storage_retire_pinned_block();
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
            word_map_clear(&g->dests);
        } else {
            /* Keep filling the partly used blocks; scan only what is new. */
            for (StgWord j = 0; j < g->dests.capacity; j++)
                if (g->dests.used[j]) {
                    BlockDesc *bd = (BlockDesc *)g->dests.vals[j];
                    bd->u.scan = bd->free;
                }
        }
    }
}

static void evacuate_roots(unsigned N)
{
    gct.evac_gen = 0;
    /* The TSO and its stack chunks are written without a barrier, so they
     * are scanned at every GC whatever their generation. */
    evacuate((StgClosure **)&storage_main_tso);
    if (storage_main_tso != NULL)
        scavenge_object((StgClosure *)storage_main_tso);
    scavenge_root_stack(roots_current_stack());
    gct.evac_gen = 0;
    stable_ptr_evacuate_all();
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

#define RETURN_DECAY_CYCLES 4
static StgWord recent_peaks[RETURN_DECAY_CYCLES];
static unsigned recent_peak_next = 0;

/* After collecting generation N: new budgets (-F), and megablocks the
 * next cycle will not need go back to the OS. */
static StgWord resize_generations(unsigned N)
{
    StgWord min_blocks = (1u << 20) / BLOCK_SIZE;   /* GHC's -O: 1 MiB */
    for (unsigned i = 1; i <= N && i < storage_n_gens; i++) {
        Generation *g = &storage_gens[i];
        StgWord live_blocks = gen_blocks(g);
        StgWord budget = (StgWord)((double)live_blocks * rts_flags.oldgen_factor);
        g->max_blocks = budget > min_blocks ? budget : min_blocks;
    }
    if (N != storage_n_gens - 1)
        return 0;
    /* Keep enough free megablocks for the oldest generation to grow to its
     * budget (and be copied once), and at least as many as the busiest of
     * the last RETURN_DECAY_CYCLES major cycles used: a heap that swings
     * between GCs would otherwise hand the same memory back and fault it
     * in again every cycle (lists 1M: 570 MB returned for a 212 MB peak,
     * 184,000 page faults).  Return the rest. */
    StgWord heap = storage_heap_blocks();
    StgWord needed_blocks = heap + oldest_gen->max_blocks;
    StgWord needed_mblocks = (needed_blocks + BLOCKS_PER_MBLOCK - 1) / BLOCKS_PER_MBLOCK;
    recent_peaks[recent_peak_next++ % RETURN_DECAY_CYCLES] = mblock_take_cycle_peak();
    for (unsigned i = 0; i < RETURN_DECAY_CYCLES; i++)
        if (recent_peaks[i] > needed_mblocks)
            needed_mblocks = recent_peaks[i];
    StgWord in_use = mblock_n_in_use();
    StgWord keep = needed_mblocks > in_use ? needed_mblocks - in_use : 0;
    return mblock_return_free(keep);
}

static void check_heap_limit(unsigned N)
{
    if (rts_flags.max_heap_bytes == 0)
        return;
    StgWord heap_bytes = storage_heap_blocks() * BLOCK_SIZE;
    if (heap_bytes <= rts_flags.max_heap_bytes)
        return;
    if (N == storage_n_gens - 1)
        storage_heap_overflow(heap_bytes);
    major_gc_wanted = true;
}

/* ----------------------------------------------------------------------
 * Eventlog
 * ---------------------------------------------------------------------- */

/* The events that close a GC, in GHC's order (docs/design/eventlog.md):
 * GC_END, then the heap figures, then for a major GC the live data and
 * what was returned to the OS.  HEAP_SIZE is megablocks held, as in GHC;
 * BLOCKS_SIZE is the heap's blocks. */
static void trace_gc_end(const GCDetails *d, StgWord returned_mblocks)
{
    if (!eventlog_enabled())
        return;
    RtsStats totals;
    stats_get(&totals);
    uint64_t heap_bytes = (uint64_t)mblock_n_in_use() * MBLOCK_SIZE;
    uint64_t blocks_bytes = (uint64_t)storage_heap_blocks() * BLOCK_SIZE;
    eventlog_post_gc_end();
    eventlog_post_heap_allocated(totals.allocated_bytes);
    eventlog_post_heap_size(heap_bytes);
    eventlog_post_blocks_size(blocks_bytes);
    /* One GC thread: it copied everything, so max = total = balanced. */
    eventlog_post_gc_stats_ghc((uint16_t)d->gen, d->copied_bytes, d->slop_bytes,
                               heap_bytes > blocks_bytes ? heap_bytes - blocks_bytes : 0, 1,
                               d->copied_bytes, d->copied_bytes, d->copied_bytes);
    if (d->major) {
        StgWord kept = mblock_n_in_use();
        eventlog_post_heap_live(d->live_bytes);
        eventlog_post_mem_return((uint32_t)(kept + returned_mblocks), (uint32_t)kept,
                                 (uint32_t)returned_mblocks);
    }
}

/* ----------------------------------------------------------------------
 * The driver
 * ---------------------------------------------------------------------- */

void gc_collect(bool major)
{
    stats_gc_begin();
    eventlog_post_request_seq_gc();
    eventlog_post_gc_global_sync();
    eventlog_post_gc_start();
    unsigned N = choose_collected_gen(major);
    bool is_major = N == storage_n_gens - 1;
    if (is_major)
        major_gc_wanted = false;
    debug_trace(DEBUG_GC, "gc: collecting generations 0..%u%s", N, is_major ? " (major)" : "");

    GCDetails details = {0};
    details.allocated_bytes = storage_nursery_allocated_bytes() + storage_large_alloc_bytes;
    storage_large_alloc_bytes = 0;
    roots_sync_stack();

    if (debug_enabled(DEBUG_SANITY))
        sanity_check_heap("before GC");

    gct.collected_gen = N;
    gct.copied_words = 0;
    gct.todo_large = NULL;
    gct.scan_queue_len = 0;
    gct.tally = is_major ? tally_wanted : NULL;
    if (gct.tally != NULL) {
        tally_wanted = NULL;
        live_tally_reset(gct.tally);
    }

    tenure_before_gc(N);
    prepare_generations(N);
    eventlog_post_gc_work();
    evacuate_roots(N);
    scavenge_loop();
    if (gct.tally != NULL) {
        live_tally_flush(gct.tally);
        gct.tally->filled = true;
        gct.tally = NULL;
    }
    eventlog_post_gc_idle();
    eventlog_post_gc_done();
    free_from_space(N);
    tenure_after_gc(N);
    storage_reset_nursery();
    StgWord returned = resize_generations(N);

    details.gen = N;
    details.major = is_major;
    details.copied_bytes = gct.copied_words * WORD_SIZE;
    details.live_bytes = live_words_total() * WORD_SIZE;
    StgWord large_words = 0;
    for (unsigned i = 0; i < storage_n_gens; i++)
        large_words += storage_gens[i].n_large_words;
    details.large_live_bytes = large_words * WORD_SIZE;
    StgWord heap_blocks = storage_heap_blocks() - storage_nursery.n_blocks;
    details.slop_bytes = heap_blocks * BLOCK_SIZE > details.live_bytes
                             ? heap_blocks * BLOCK_SIZE - details.live_bytes : 0;
    details.mem_in_use_bytes = mblock_n_hw() * MBLOCK_SIZE;   /* GHC: peak megablocks */
    details.returned_mblocks = returned;

    if (debug_enabled(DEBUG_SANITY))
        sanity_check_heap("after GC");

    stats_gc_end(&details);
    trace_gc_end(&details, returned);
    check_heap_limit(N);
    for (unsigned i = 0; i < n_gc_hooks; i++)
        gc_hooks[i](N, is_major);
}

void strata_perform_gc(int major)
{
    gc_collect(major != 0);
}

void gc_add_post_hook(GCHook hook)
{
    if (n_gc_hooks == MAX_GC_HOOKS)
        rts_panic("too many GC hooks (max=%d)", MAX_GC_HOOKS);
    gc_hooks[n_gc_hooks++] = hook;
}

void gc_exit(void)
{
    n_gc_hooks = 0;
    major_gc_wanted = false;
    tally_wanted = NULL;
    tenure_reset();
    memset(recent_peaks, 0, sizeof recent_peaks);
    recent_peak_next = 0;
    for (unsigned i = 0; i < storage_n_gens; i++)
        word_map_free(&storage_gens[i].dests);
    free(gct.scan_queue);
    memset(&gct, 0, sizeof gct);
}
