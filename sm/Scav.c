/*
 * sm/Scav.c -- scavenging: scanning copied objects and evacuating what
 * they point at, Cheney-style over to-space blocks, so the collector never
 * recurses on the C stack however deep the data.
 *
 * An object scanned on behalf of generation g evacuates its children into
 * g or older (eager promotion, gct->evac_gen).  If a child is already
 * somewhere younger, the object "failed to evacuate" and goes on g's
 * mutable list, which keeps .inv.remembered (MutList.h).
 */
#include <string.h>

#include "ClosureSize.h"
#include "EraRuns.h"
#include "Evac.h"
#include "GCPrivate.h"
#include "Messages.h"
#include "MutList.h"
#include "NonMoving.h"
#include "os/Thread.h"

/* ----------------------------------------------------------------------
 * Remembered objects
 * ---------------------------------------------------------------------- */

/* c, in generation gen, may point into a younger one: it goes on this GC
 * thread's list for gen, merged into the generation's at the end. */
void gc_remember(unsigned gen, StgClosure *c)
{
    ASSERT_INTERNAL(gen > 0 && heap_alloced(c) && Bdescr(c)->gen_no == gen);
    mut_chain_append(&gct->ws[gen].mut_list, c, gc_alloc_pointer_block);
}

/* ----------------------------------------------------------------------
 * One object
 * ---------------------------------------------------------------------- */

static inline __attribute__((always_inline)) void scavenge_ptrs(StgClosure **ptrs, StgWord n)
{
    HeapRange h = heap_range(gct);
    for (StgWord i = 0; i < n; i++)
        evacuate_in(h, &ptrs[i]);
}

/* Note [Scanning an array's cards]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A minor GC scans the marked cards of every old array on a remembered
 * set (Note [Card marking] in MutList.c).  Random writes mark every card
 * of a large array between two minor GCs, so the scan reads all of it,
 * and most elements point at objects older than the collected
 * generations, which evacuate would only test and leave.  The card loop
 * makes that test itself -- first by the target's megablock (Note [Old
 * objects by their megablock] in Evac.h) -- with the heap's range, the
 * collected generation and evac_gen in registers and the card's "stays
 * younger" flag in a local, and calls into Evac.c only for an object in
 * from-space (evacuate_from_space, which skips the test).  A major GC
 * has no older generation, so it scans with the plain evacuate; so does
 * a non-moving snapshot's collection as it scans an array it promotes,
 * which must queue every object of the generation it meets (Note [The
 * snapshot] in NonMoving.c): the copy is allocated black, and an element
 * in the generation that it did not queue would go unmarked and be swept
 * while the array still holds it (msgbuf's window array, young at the
 * snapshot).  An array on the remembered set was in the generation
 * before the snapshot, unmarked, and the mark traces it (its old
 * elements, or what the barrier logs as the program overwrites them), so
 * the snapshot's collection scans its cards as a minor GC does: queueing
 * each old element as well had cost mutarray's snapshots a mark test and
 * a queue entry for each of its 2,000,000 elements.  Clean
 * cards are skipped eight at a time: the card table is whole words,
 * padded with zeros (Storage.c).  bench/optimisations.md, row 6476f83. */

/* Note [Prefetching an array's elements]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An array's elements point anywhere (mutarray: boxes written in random
 * order), so the card scan's cost is a cache miss on each target's
 * header.  The scan reads the element CARD_PREFETCH_AHEAD slots further
 * on -- the same array, read in order anyway -- and prefetches its
 * target, past the card's end but not the array's (the next card may be
 * clean: a wasted prefetch, which is harmless, as one of NULL or a static
 * closure is). */
#define CARD_PREFETCH_AHEAD 64

static inline void prefetch_element(StgClosure **p, StgClosure **array_end)
{
    if (p + CARD_PREFETCH_AHEAD < array_end)
        __builtin_prefetch(slot_load(p + CARD_PREFETCH_AHEAD));
}

/* Evacuates the elements [p, end) of a card (of an array ending at
 * array_end) when generations older than the collected ones exist; true
 * if one stays younger than evac_gen. */
static bool scavenge_card_filtered(GCThread *t, StgClosure **p, StgClosure **end,
                                   StgClosure **array_end)
{
    HeapRange h = heap_range(t);
    unsigned collected = t->collected_gen;
    uint16_t evac_gen = t->evac_gen;
    bool failed = false;
    t->failed_to_evac = false;
    for (; p < end; p++) {
        prefetch_element(p, array_end);
        StgClosure *q = slot_load(p);
        if ((StgWord)((const char *)q - h.base) >= h.span)
            continue;   /* NULL or static (HeapRange) */
        if (heap_range_surely_old(h, q))
            continue;   /* Note [Old objects by their megablock] in Evac.h */
        const BlockDesc *bd = Bdescr(q);
        uint16_t gen = bd_gen_no(bd);
        if (gen > collected || (bd_flags(bd) & BF_EVACUATED)) {
            failed |= gen < evac_gen;
            continue;
        }
        evacuate_from_space(p, q, bd);
    }
    return failed || t->failed_to_evac;
}

/* The same in a major GC. */
static bool scavenge_card_all(GCThread *t, StgClosure **p, StgClosure **end,
                              StgClosure **array_end)
{
    HeapRange h = heap_range(t);
    t->failed_to_evac = false;
    for (; p < end; p++) {
        prefetch_element(p, array_end);
        evacuate_in(h, p);
    }
    return t->failed_to_evac;
}

/* The first card at or after c that is set (or last), skipping whole
 * words of clean cards. */
static inline StgWord next_marked_card(const uint8_t *cards, StgWord c, StgWord last)
{
    while (c < last) {
        if ((c & (WORD_SIZE - 1)) == 0 && c + WORD_SIZE <= last) {
            StgWord w;
            memcpy(&w, cards + c, sizeof w);
            if (w == 0) {
                c += WORD_SIZE;
                continue;
            }
        }
        if (cards[c] != 0)
            return c;
        c++;
    }
    return last;
}

/* Scans the cards of an array (only the marked ones, or all), clearing
 * each card whose elements all ended up at least as old as the array.
 * Returns true if any card stays set (Note [Scanning an array's cards]). */
static bool scavenge_array_cards(StgMutArrPtrs *a, bool only_marked)
{
    GCThread *t = gct;
    uint8_t *cards = mut_arr_ptrs_card_table(a);
    StgWord last = mut_arr_ptrs_cards(a->ptrs);
    bool filter = t->collected_gen + 1 < storage_n_gens && (only_marked || !t->nm_push);
    bool saved = t->failed_to_evac;
    bool any = false;
    StgClosure **end = &a->payload[a->ptrs];   /* the prefetch's bound */
    for (StgWord c = 0; c < last; c++) {
        if (only_marked && (c = next_marked_card(cards, c, last)) == last)
            break;
        StgWord lo = c << MUT_ARR_PTRS_CARD_BITS;
        StgWord hi = lo + ((StgWord)1 << MUT_ARR_PTRS_CARD_BITS);
        if (hi > a->ptrs)
            hi = a->ptrs;
        bool young = filter ? scavenge_card_filtered(t, &a->payload[lo], &a->payload[hi], end)
                            : scavenge_card_all(t, &a->payload[lo], &a->payload[hi], end);
        cards[c] = young;
        any |= young;
    }
    t->failed_to_evac = saved;
    return any;
}

static void scavenge_array(StgMutArrPtrs *a, bool only_marked)
{
    bool dirty = scavenge_array_cards(a, only_marked);
    /* Released: a duplicate remembered-set entry may be claiming it
     * (scavenge_mut_list_block). */
    __atomic_store_n(&a->info, dirty ? &stg_MUT_ARR_PTRS_DIRTY_info : &stg_MUT_ARR_PTRS_CLEAN_info,
                     __ATOMIC_RELEASE);
    gct->failed_to_evac |= dirty;
}

/* Evacuates the fields of c; sets gct->failed_to_evac if one of them stays
 * younger than gct->evac_gen.  Returns c's size in words. */
static StgWord scavenge_fields(StgClosure *c)
{
    const StgInfoTable *info = c->info;
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC:
        scavenge_ptrs(c->payload, info->ptrs);
        return 1 + (StgWord)info->ptrs + info->nptrs;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC:
        scavenge_ptrs(((StgThunk *)c)->payload, info->ptrs);
        return THUNK_HEADER_WORDS + (StgWord)info->ptrs + info->nptrs;
    case BLACKHOLE: {
        const StgInfoTable *t = ((StgBlackhole *)c)->thunk_info;
        scavenge_ptrs(((StgBlackhole *)c)->payload, t->ptrs);
        return THUNK_HEADER_WORDS + (StgWord)t->ptrs + t->nptrs;
    }
    case IND: case IND_STATIC:
        evacuate(&((StgInd *)c)->indirectee);
        return 2;
    case ARR_WORDS:
        return closure_sizeW_info(c, info);
    case MUT_VAR_CLEAN: case MUT_VAR_DIRTY: {
        StgMutVar *m = (StgMutVar *)c;
        bool saved = gct->failed_to_evac;
        gct->failed_to_evac = false;
        evacuate(&m->var);
        __atomic_store_n(&m->info,
                         gct->failed_to_evac ? &stg_MUT_VAR_DIRTY_info : &stg_MUT_VAR_CLEAN_info,
                         __ATOMIC_RELEASE);
        gct->failed_to_evac |= saved;
        return 2;
    }
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
        scavenge_array((StgMutArrPtrs *)c, false);
        return closure_sizeW_info(c, info);
    case PAP: {
        StgPAP *pap = (StgPAP *)c;
        evacuate(&pap->fun);
        scavenge_ptrs(pap->payload, pap->n_args);
        return pap_sizeW(pap);
    }
    case AP: {
        StgAP *ap = (StgAP *)c;
        evacuate(&ap->fun);
        scavenge_ptrs(ap->payload, ap->n_args);
        return ap_sizeW(ap);
    }
    case WEAK:
        /* Key and value are not ordinary fields: the weak-pointer pass
         * decides whether they live (Note [Weak pointers] in Weak.c). */
        return sizeof(StgWeak) / WORD_SIZE;
    case TSO: {
        StgTSO *t = (StgTSO *)c;
        evacuate((StgClosure **)&t->stack);
        evacuate((StgClosure **)&t->spare_stack);
        return closure_sizeW_info(c, info);
    }
    case STACK:
        /* The frames are roots, visited every GC by their root source
         * (rts/Roots.c) whatever the chunk's age; here only the link to
         * older chunks. */
        evacuate((StgClosure **)&((StgStack *)c)->prev);
        return closure_sizeW_info(c, info);
    default:
        rts_panic("scavenge: object of unexpected closure type (object=%p, type=%u %s)",
                  (void *)c, (unsigned)info->type, strata_closure_type_name(info->type));
    }
}

/* Note [Fixed layouts in the scan loop]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Nearly every object a collection scans is a constructor, function or
 * thunk (CONSTR .. THUNK_0_2: pointers first, size from the info table).
 * The block scan handles those inline, without the call to
 * scavenge_fields and its jump table; now that an evacuation that copies
 * nothing is cheap (Note [A copy without a call] in Evac.c), that call and
 * its saved registers were a large share of what scanning an object cost.
 * They are recognised, as in the copy, by a nonzero fixed_words (Note [A
 * copy's size from its info table] in Evac.c): the size comes from the
 * table, and the pointers are the words before the non-pointers at the
 * end.  Replacing the type-range test and the size sum cut GC time far
 * more than it cut instructions (bench/optimisations.md, row 41b8782).
 * The likely reason: the scan (and a prefetch
 * walk it had then) steps from one object to the next by its size, so the
 * size is on the loop's carried dependency, and it is now one load
 * instead of three loads, a compare and two adds.
 * Everything else goes to scavenge_fields, which keeps every rule. */
static inline __attribute__((always_inline)) StgWord scavenge_fixed_or_fields(HeapRange h,
                                                                             StgClosure *c)
{
    const StgInfoTable *info = c->info;
    StgWord size = info->fixed_words;   /* Note [A copy's size from its info table] */
    if (STRATA_LIKELY(size != 0)) {
        StgWord n_ptrs = info->ptrs;
        /* Pointers first, then the non-pointers, at the end. */
        StgClosure **ptrs = (StgClosure **)((StgPtr)c + size - info->nptrs - n_ptrs);
        for (StgWord i = 0; i < n_ptrs; i++)
            evacuate_in(h, &ptrs[i]);
        return size;
    }
    return scavenge_fields(c);
}

void scavenge_object(StgClosure *c)
{
    (void)scavenge_fields(c);
}

StgWord scavenge_heap_object(StgClosure *c)
{
    return scavenge_fixed_or_fields(heap_range(gct), c);
}

/* ----------------------------------------------------------------------
 * Blocks and large objects
 * ---------------------------------------------------------------------- */

/* With a tally (a census is due: Note [Counting during the GC] in
 * LiveTally.c) each object is also counted; the two uses of this body get
 * their own loops, so the scan without a census tests nothing per object. */
static inline __attribute__((always_inline)) void
scavenge_block_counting(BlockDesc *bd, LiveTally *tally)
{
    Generation *g = &storage_gens[bd->gen_no];
    GCThread *t = gct;   /* once: the calls below could change a thread-local */
    /* Only to-space is scanned: a block the GC is filling. */
    ASSERT_INTERNAL(bd->u.scan >= bd->start && bd->u.scan <= bd->free);
    ASSERT_INTERNAL((bd->flags & BF_EVACUATED) || bd->gen_no > t->collected_gen);
    t->evac_gen = bd->gen_no;
    StgPtr p = bd->u.scan;
    HeapRange h = heap_range(t);
    /* bd->free may grow while we scan: copies can land in this block.
     * Their children were prefetched when they were copied (Note
     * [Prefetching at the copy] in Evac.c). */
    while (p < bd->free) {
        StgClosure *c = (StgClosure *)p;
        ASSERT_EXPENSIVE(!closure_is_forwarded(c) && closure_sizeW(c) > 0);
        t->failed_to_evac = false;
        StgWord size = scavenge_fixed_or_fields(h, c);
        if (tally != NULL)
            live_tally_add(tally, c->info, size);
        p += size;
        bd->u.scan = p;
        if (t->failed_to_evac)
            gc_remember(g->no, c);
    }
}

/* A census's count in a block of several eras (a shared to-space block,
 * which may gain era runs while it is scanned), or by era: each object's
 * era is looked up.  Only census GCs come here. */
static void scavenge_block_counting_by_object(BlockDesc *bd, LiveTally *tally)
{
    Generation *g = &storage_gens[bd->gen_no];
    gct->evac_gen = bd->gen_no;
    while (bd->u.scan < bd->free) {
        StgClosure *c = (StgClosure *)bd->u.scan;
        gct->failed_to_evac = false;
        StgWord size = scavenge_fields(c);
        uint64_t era = block_era_at(bd, c);
        if (live_tally_counts_era(tally, era))
            live_tally_count(tally, c->info, era, size);
        bd->u.scan += size;
        if (gct->failed_to_evac)
            gc_remember(g->no, c);
    }
}

/* Note [Scanning what was copied]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every to-space block that receives a copy while it holds no unscanned
 * words goes on the scan queue (BF_SCANQ says it is there, or being
 * scanned); the scan pops a block, scans it to its free pointer -- which
 * may grow meanwhile, copies landing in the block being scanned -- and
 * clears the flag.  So a collection's scanning is proportional to what it
 * copied and to the blocks it filled.  (It used to poll the current block
 * of every (generation, era) on every pass: with many live eras that
 * polling was most of a major GC; bench/optimisations.md, row 3c0ca2f.)
 * When the scan ends, every to-space
 * block has u.scan == free (.inv.scanned). */
static void scavenge_block(BlockDesc *bd)
{
    GCThread *t = gct;
    LiveTally *tally = t->tally;
    t->scanning = bd;
    if (STRATA_LIKELY(tally == NULL))
        scavenge_block_counting(bd, NULL);
    else if (bd->n_era_runs != 0 || bd == t->ws[bd->gen_no].shared_dest || tally->by_era)
        scavenge_block_counting_by_object(bd, tally);
    else if (live_tally_counts_era(tally, bd->era))
        scavenge_block_counting(bd, tally);
    else
        scavenge_block_counting(bd, NULL);
    t->scanning = NULL;
}

static void scavenge_large(BlockDesc *bd)
{
    GenWorkspace *ws = &gct->ws[bd->gen_no];
    if (!(bd->flags & BF_PINNED)) {   /* pinned blocks hold byte arrays only */
        StgClosure *c = (StgClosure *)bd->start;
        gct->evac_gen = bd->gen_no;
        gct->failed_to_evac = false;
        scavenge_fields(c);
        if (gct->failed_to_evac)
            gc_remember(bd->gen_no, c);
    }
    /* Counted after scavenging, which may clean a dirty array's header. */
    if (gct->tally != NULL)
        live_tally_add_group(gct->tally, bd);
    dbl_link_onto(bd, &ws->large_objects);
    ws->n_large_blocks += bd->blocks;
    ws->n_large_words += (StgWord)(bd->free - bd->start);
}

/* Each block scanned in a parallel GC looks again whether its copies
 * need claims (Note [Copying alone] in GCThread.c). */
static inline void look_for_company(GCThread *t)
{
    if (t->parallel)
        t->claim = !gc_copying_alone();
}

/* A block from a deque: a to-space block its filler gave up, or a live
 * large or pinned group. */
static void scavenge_given_up(BlockDesc *bd)
{
    look_for_company(gct);
    if (bd_flags(bd) & BF_NM_TODO)
        nonmoving_scavenge_todo_block(bd);
    else if (bd_flags(bd) & (BF_LARGE | BF_PINNED))
        scavenge_large(bd);
    else
        scavenge_block(bd);
}

/* One piece of this thread's own work: a block it fills, a block it gave
 * up and nobody took, a live large object.  False when it has none. */
/* Note [The cursor is on the scan queue]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A copy into the block its generation's cursor points at (ws->last_dest)
 * needs that block on the scan queue (Note [Scanning what was copied]).
 * Rather than test BF_SCANQ on every copy, the cursor's limit is cleared
 * when its block leaves the queue, fully scanned, so the next copy takes
 * the slow path, which queues the block again (gc_note_copy_into).  A
 * block given up onto the deque stops being a cursor at the same time
 * (Evac.c).  bench/optimisations.md, row ee3eda7. */
static void scan_queue_done(GCThread *t, BlockDesc *bd)
{
    bd_flags_clear(bd, BF_SCANQ);
    GenWorkspace *ws = &t->ws[bd->gen_no];
    if (ws->last_dest == bd)
        ws->last_limit = NULL;
}

static bool scavenge_own_work(void)
{
    GCThread *t = gct;
    while (t->scan_queue_len > 0) {
        BlockDesc *bd = t->scan_queue[--t->scan_queue_len];
        /* A block given up onto the deque left a stale entry here (Note
         * [Sharing work] in Evac.c); it is scanned from there. */
        if (!(bd->flags & BF_SCANQ))
            continue;
        look_for_company(t);
        scavenge_block(bd);
        scan_queue_done(t, bd);
        return true;
    }
    /* Copies into the non-moving generation (Note [Promoting into
     * segments] in NonMovingAlloc.c). */
    if (t->nm != NULL && nonmoving_scavenge_own())
        return true;
    if (t->parallel) {
        BlockDesc *bd = ws_deque_pop(&t->deque);
        if (bd != NULL) {
            scavenge_given_up(bd);
            return true;
        }
    }
    if (t->todo_large != NULL) {
        BlockDesc *bd = t->todo_large;
        t->todo_large = bd->link;
        scavenge_large(bd);
        return true;
    }
    return false;
}

/* Runs until no to-space block has unscanned words and no live large
 * object is unscanned, on every GC thread (Note [Scanning what was
 * copied]; Note [Ending a parallel scan] in GCThread.c). */
void scavenge_loop(void)
{
    for (;;) {
        while (scavenge_own_work())
            ;
        if (!gct->parallel) {
            gc_observe_thread_phase(0, GC_PHASE_IDLE);
            return;
        }
        BlockDesc *bd = gc_steal_block();
        if (bd != NULL) {
            scavenge_given_up(bd);
            continue;
        }
        for (;;) {
            if (!gc_work_idle_wait())
                return;
            bd = gc_steal_block();
            if (bd != NULL) {
                scavenge_given_up(bd);
                break;
            }
        }
    }
}

/* ----------------------------------------------------------------------
 * Roots that are scanned in place
 * ---------------------------------------------------------------------- */

/* Note [Remembered objects in parallel]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A mutable variable or array can be on a remembered set twice (two
 * threads' write barriers both saw it clean), and the blocks of a
 * remembered set are handed to different GC threads.  So that one object
 * is never scanned by two threads at once, a dirty one is claimed by
 * turning it clean with a compare-and-swap before it is scanned; a clean
 * one holds no pointer into a younger generation (the barrier dirties it
 * before writing one) and is skipped.  Scanning sets the state it ends in
 * with a release store. */
static bool claim_dirty(StgClosure *c, const StgInfoTable *dirty, const StgInfoTable *clean)
{
    if (!gct->parallel)
        return true;
    return __atomic_compare_exchange_n(&c->info, &dirty, clean, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* The objects of one block of generation gen's old remembered set: the
 * collection hands the blocks out to its GC threads one at a time. */
void scavenge_mut_list_block(unsigned gen, BlockDesc *mut_block)
{
    for (StgPtr mp = mut_block->start; mp < mut_block->free; mp++) {
        StgClosure *c = (StgClosure *)*mp;
        gct->evac_gen = (uint16_t)gen;
        gct->failed_to_evac = false;
        const StgInfoTable *info = __atomic_load_n(&c->info, __ATOMIC_ACQUIRE);
        switch (info->type) {
        case MUT_ARR_PTRS_DIRTY:
            if (!claim_dirty(c, &stg_MUT_ARR_PTRS_DIRTY_info, &stg_MUT_ARR_PTRS_CLEAN_info))
                continue;
            scavenge_array((StgMutArrPtrs *)c, true);
            break;
        case MUT_VAR_DIRTY:
            if (!claim_dirty(c, &stg_MUT_VAR_DIRTY_info, &stg_MUT_VAR_CLEAN_info))
                continue;
            scavenge_fields(c);
            break;
        case MUT_ARR_PTRS_CLEAN:
        case MUT_VAR_CLEAN:
            continue;   /* scanned for an earlier entry, or nothing young */
        default:
            scavenge_fields(c);
            break;
        }
        if (gct->failed_to_evac)
            gc_remember(gen, c);
    }
}
