/*
 * sm/Policy.c -- the collector's policy (see Policy.h): generations to
 * collect, budgets, the heap limit, megablock return.  Reads the storage
 * manager's configuration (storage_config) and counters; changes only
 * generation budgets and its own state.  See docs/design/gc.md.
 */
#include "Policy.h"

#include <string.h>

#include "BlockAlloc.h"
#include "MBlock.h"
#include "Heap.h"
#include "Messages.h"
#include "NonMoving.h"
#include "Nursery.h"

/* Set when a minor GC leaves the heap above -M, or when a heap census is
 * due: the next GC is major; with exact_gc_wanted (-M only), it has the
 * non-moving cycle's results at once. */
static bool major_gc_wanted = false;
static bool exact_gc_wanted = false;

void gc_request_major(void)
{
    major_gc_wanted = true;
}

bool policy_exact_wanted(void)
{
    return exact_gc_wanted;
}

static StgWord words_to_blocks(StgWord words)
{
    return (words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W;
}

/* What a generation holds, in blocks.  The non-moving generation reuses
 * the slots its sweeps free, so what it holds is the words of its
 * allocated slots and groups, not its blocks (Note [Generation budgets]). */
static StgWord gen_blocks(const Generation *g)
{
    if (storage_config.nonmoving && g == oldest_gen)
        return words_to_blocks(nonmoving_generation_words());
    return g->n_blocks + g->n_large_blocks;
}

/* Note [A cycle's budget from what its mark found live]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With --nonmoving-gc the oldest generation is never copied, so it needs
 * no room for a copy, and what a cycle leaves in it is not what is live:
 * every object promoted while the cycle ran was allocated marked
 * (Note [Mark epochs] in NonMoving.c) and survives it, dead or not.  A
 * budget of -F times what the cycle left (as after a copy) counted that
 * allocation as live, and the next cycle began only after the generation
 * had grown -F times past it: msgbuf at 200 MB live held 650-880 MiB
 * (bench/optimisations.md).
 * So the budget is reckoned from what the mark found live, L: the
 * generation's words once the snapshot promoted into it, less what the
 * sweep freed (NonMovingStats.last_live_words); and -F bounds the
 * generation's peak, not its size when a cycle starts: the program goes
 * on promoting while the next cycle runs, about as much as it promoted
 * while the last one ran, A (last_allocated_words), so the cycle starts
 * at F x L - A, at least L.  A cycle ends with the generation at L + A,
 * so when 2A > (F - 1) x L the cycles run back to back and the peak is
 * about L + 2A: only making the program wait for the mark would bound it
 * further (not done).  A cycle ends in a collection's step
 * (nonmoving_gc_begin), before that collection decides whether to start
 * the next: the budget it decides on must be the ended cycle's
 * (policy_set_budgets, called from sm/GC.c), not the one before.  While
 * the live data grew, that older budget was below the generation, and a
 * cycle started at once that found the same live data: 6 of msgbuf's 14
 * cycles at 1 GB of pinned messages (bench/optimisations.md).  GHC sizes
 * its non-moving generation from the mark's live estimate too, but
 * starts at -F times it. */
static StgWord oldest_budget_blocks(void)
{
    double factor = storage_config.oldgen_factor;
    if (!storage_config.nonmoving)
        return (StgWord)((double)gen_blocks(oldest_gen) * factor);
    const NonMovingStats *st = nonmoving_stats();
    StgWord live = words_to_blocks(st->last_live_words);
    StgWord during = words_to_blocks(st->last_allocated_words);
    StgWord goal = (StgWord)((double)live * factor);
    return goal > live + during ? goal - during : live;
}

unsigned policy_gen_due(bool major)
{
    unsigned N = 0;
    if (major || major_gc_wanted) {
        N = storage_n_gens - 1;
    } else {
        for (unsigned g = 1; g < storage_n_gens; g++)
            if (gen_blocks(&storage_gens[g]) > storage_gens[g].max_blocks)
                N = g;
    }
    return N;
}

unsigned policy_collected_gen(bool major)
{
    unsigned N = policy_gen_due(major);
    if (N == storage_n_gens - 1)
        major_gc_wanted = exact_gc_wanted = false;
    return N;
}

/* Note [Generation budgets]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A generation above the nursery is collected when its blocks pass its
 * budget (policy_collected_gen).  After each major GC every such
 * generation's budget becomes the oldest's: -F times the blocks the major
 * GC left live there (at least 1 MiB, GHC's -O).  A collection of a middle
 * generation (-G3 and up) leaves the budgets alone, as GHC's does.  The
 * budgets used to be set per generation from its own live blocks after its
 * own collection: a middle generation that kept little (its survivors move
 * on to the next) got a budget near 1 MiB, so binary-trees 20 at -G3
 * collected generation 1 ten times as often as with the oldest's budget,
 * and GHC 9.10.3 (bench/optimisations.md, row 381324f).  The non-moving
 * generation's budget is reckoned from what its last cycle's mark found
 * live instead (Note [A cycle's budget from what its mark found live]). */

/* How far the heap may grow before the next major collection ends: the
 * oldest generation to its budget, and a copy of it; or, non-moving, to
 * its budget and what the program promotes while the cycle runs (Note [A
 * cycle's budget from what its mark found live]). */
/* The non-moving generation's peak as the budget plans it: the budget,
 * and what the program promoted while the last cycle ran. */
static StgWord nonmoving_planned_peak_blocks(void)
{
    return oldest_gen->max_blocks + words_to_blocks(nonmoving_stats()->last_allocated_words);
}

static StgWord oldest_growth_blocks(void)
{
    if (!storage_config.nonmoving)
        return oldest_gen->max_blocks;
    StgWord peak = nonmoving_planned_peak_blocks();
    StgWord now = gen_blocks(oldest_gen);
    return peak > now ? peak - now : 0;
}

/* How far past its planned peak the generation may grow while a cycle
 * runs before the cycle counts as behind its plan: an eighth of the peak
 * (far behind: a half), and twice what a collection can promote (the
 * nurseries), which the snapshot itself promotes past the budget. */
#define LAG_BEHIND_DIVISOR 8
#define LAG_FAR_BEHIND_DIVISOR 2
#define LAG_SLACK_NURSERIES 2

NonMovingLag policy_cycle_lag(void)
{
    if (!storage_config.nonmoving || nonmoving_can_start_cycle())
        return NONMOVING_ON_PLAN;
    StgWord peak = nonmoving_planned_peak_blocks();
    StgWord past = peak + LAG_SLACK_NURSERIES * storage_nursery_blocks();
    StgWord now = gen_blocks(oldest_gen);
    if (now > past + peak / LAG_FAR_BEHIND_DIVISOR)
        return NONMOVING_FAR_BEHIND_PLAN;
    return now > past + peak / LAG_BEHIND_DIVISOR ? NONMOVING_BEHIND_PLAN : NONMOVING_ON_PLAN;
}

void policy_set_budgets(void)
{
    /* Note [Generation budgets]: every generation above the nursery gets
     * the oldest's budget, -F times what the major GC found live. */
    StgWord min_blocks = (1u << 20) / BLOCK_SIZE;   /* GHC's -O: 1 MiB */
    StgWord budget = oldest_budget_blocks();
    if (budget < min_blocks)
        budget = min_blocks;
    for (unsigned i = 1; i < storage_n_gens; i++)
        storage_gens[i].max_blocks = budget;
}

static StgWord recent_peaks[RETURN_DECAY_CYCLES];
static unsigned recent_peak_next = 0;

StgWord policy_resize_after_gc(unsigned N)
{
    if (N != storage_n_gens - 1)
        return 0;
    policy_set_budgets();
    StgWord budget = oldest_gen->max_blocks;
    /* Keep enough free megablocks for the oldest generation to grow to its
     * budget (and be copied once), and at least as many as the busiest of
     * the last RETURN_DECAY_CYCLES major cycles used: a heap that swings
     * between GCs would otherwise hand the same memory back and fault it
     * in again every cycle (bench/optimisations.md, row fa6a1e5).  Return
     * the rest.  Eight cycles, not four: promotion in place brings major
     * GCs sooner, and lists' phases of six or seven of them outran a
     * window of four (row 564e5ed).  A heap that
     * shrinks for good still gives its memory back within eight major
     * GCs, which a small heap makes often. */
    StgWord heap = storage_heap_blocks();
    StgWord needed_blocks = heap + oldest_growth_blocks();
    StgWord needed_mblocks = (needed_blocks + BLOCKS_PER_MBLOCK - 1) / BLOCKS_PER_MBLOCK;
    recent_peaks[recent_peak_next++ % RETURN_DECAY_CYCLES] = mblock_take_cycle_peak();
    for (unsigned i = 0; i < RETURN_DECAY_CYCLES; i++)
        if (recent_peaks[i] > needed_mblocks)
            needed_mblocks = recent_peaks[i];
    StgWord in_use = mblock_n_in_use();
    StgWord keep = needed_mblocks > in_use ? needed_mblocks - in_use : 0;
    debug_trace(DEBUG_GC, "gc: budget %lu blocks; heap %lu blocks (oldest: %lu + %lu large, "
                "%lu words, %lu unfreed); megablocks %lu in use, %lu free, keep %lu; peak %lu",
                (unsigned long)budget, (unsigned long)heap,
                (unsigned long)oldest_gen->n_blocks, (unsigned long)oldest_gen->n_large_blocks,
                (unsigned long)gen_blocks(oldest_gen) * BLOCK_SIZE_W,
                (unsigned long)(storage_config.nonmoving ? nonmoving_unfreed_blocks() : 0),
                (unsigned long)in_use,
                (unsigned long)mblock_n_free(), (unsigned long)keep, (unsigned long)mblock_n_hw());
    return mblock_return_free(keep);
}

void policy_check_heap_limit(unsigned N)
{
    if (storage_config.max_heap_bytes == 0)
        return;
    StgWord heap_bytes = storage_heap_blocks() * BLOCK_SIZE;
    if (heap_bytes <= storage_config.max_heap_bytes)
        return;
    if (N == storage_n_gens - 1)
        storage_heap_overflow(heap_bytes);
    major_gc_wanted = exact_gc_wanted = true;
}

bool policy_large_alloc_wants_gc(void)
{
    return storage_large_alloc_bytes >= storage_config.nursery_bytes;
}

bool policy_heap_would_pass_limit(StgWord extra_blocks)
{
    return storage_config.max_heap_bytes != 0 &&
           (storage_heap_blocks() + extra_blocks) * BLOCK_SIZE > storage_config.max_heap_bytes;
}

/* Note [Sizing the prefault window]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The prefault helper faults in the megablocks the heap will grow into
 * next (Note [Faulting in ahead of the heap] in sm/block/Prefault.c); the
 * policy says how many.  Every megablock faulted in and never used stays
 * resident, so the window holds only growth that is sure to come, plus a
 * short lead that moves up with the heap:
 *   - after each GC: the oldest generation will grow to its budget before
 *     the next major GC, so whatever that needs beyond the megablocks
 *     below the bump index (in use, free, or returned and taken again
 *     first), with a lead of up to PREFAULT_LEAD_MBLOCKS, enough for a
 *     minor GC that promotes a nursery's worth;
 *   - during a major GC, a lead of up to PREFAULT_MAJOR_LEAD_MBLOCKS above
 *     the highest megablock handed out, so the helper faults in to-space
 *     a little ahead of the copy.
 * A lead is at most a sixteenth of the megablocks in use, so a small
 * heap pays for it in proportion (none below 16 MiB: a program that
 * never grows its heap keeps its resident size; the eras bench's leak row
 * runs 100,000 major GCs of a 3 MB heap against a 22 MB limit).
 * Under --nonmoving-gc the lead is at least what the next two minor GCs
 * can promote, two nurseries' worth, whatever the heap's size: every
 * survivor goes into the generation, which takes fresh memory until its
 * first sweeps free some, so the first collections took a page fault
 * for every page they promoted into (msgbuf, -A4m: 1,061 and 1,478 in
 * the first two, about 3.5 ms of a 4-7 ms pause; bench/optimisations.md).
 * How much a major GC will copy is not sure: sizing the window for the
 * share the last major GCs kept measured well on binary-trees 20 but left
 * map-churn 4000000 with much memory faulted in and never used, its build
 * phase keeping everything (bench/optimisations.md, row be05244).  A heap
 * at its peak holds enough memory for its collections (policy_resize_
 * after_gc keeps it), so the bump index stops moving and the helper
 * waits: it works only while the heap grows, and then leaves at most the
 * lead unused. */
#define PREFAULT_LEAD_MBLOCKS 4
#define PREFAULT_MAJOR_LEAD_MBLOCKS 8

static StgWord prefault_lead(StgWord most)
{
    StgWord share = mblock_n_in_use() / 16;
    StgWord lead = share < most ? share : most;
    if (storage_config.nonmoving) {
        /* From the configuration: the first call comes before the
         * capabilities exist. */
        unsigned caps = storage_config.capabilities > 0 ? storage_config.capabilities : 1;
        StgWord nurseries = (StgWord)caps * storage_config.nursery_bytes;
        StgWord promoted = (2 * nurseries + MBLOCK_SIZE - 1) / MBLOCK_SIZE;
        if (lead < promoted)
            lead = promoted;
    }
    return lead;
}

void policy_prefault_start(void)
{
    int err = mblock_prefault_start();
    if (err != 0) {
        rts_error("storage: warning: no prefault helper thread (errno=%d); the heap faults "
                  "in its own memory", err);
        return;
    }
    mblock_prefault_window(0, prefault_lead(PREFAULT_LEAD_MBLOCKS));
}

void policy_prefault_before_gc(unsigned N)
{
    if (N == storage_n_gens - 1)
        mblock_prefault_window(0, prefault_lead(PREFAULT_MAJOR_LEAD_MBLOCKS));
}

void policy_prefault_after_gc(void)
{
    StgWord need = storage_heap_blocks() - gen_blocks(oldest_gen) + oldest_gen->max_blocks;
    StgWord held = (mblock_n_in_use() + mblock_n_free() + mblock_n_returned_free()) *
                   BLOCKS_PER_MBLOCK;
    StgWord grow = need > held ? (need - held + BLOCKS_PER_MBLOCK - 1) / BLOCKS_PER_MBLOCK : 0;
    mblock_prefault_window(grow, prefault_lead(PREFAULT_LEAD_MBLOCKS));
}

void policy_reset(void)
{
    major_gc_wanted = exact_gc_wanted = false;
    memset(recent_peaks, 0, sizeof recent_peaks);
    recent_peak_next = 0;
}
