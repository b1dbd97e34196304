/*
 * testsuite/unit/test_gc.c -- the collector keeps everything reachable and
 * nothing else: identity through stable pointers, cycles, deep lists,
 * large and pinned objects, remembered sets, thunks and indirections,
 * static closures, the heap limit.  Every test runs with a tiny nursery
 * (-A8k: a GC every few allocations) and the sanity checker on (-DS),
 * except the 10-million-element list, which checks sanity once at the end.
 */
#include "harness.h"
#include "lists.h"
#include "require.h"

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "MBlock.h"
#include "MutList.h"
#include "Nursery.h"
#include "Policy.h"
#include "Sanity.h"
#include "Segment.h"
#include "Stats.h"
#include "Storage.h"
#include "Tenure.h"

static StgWord heap_live_words(void)
{
    StgWord w = 0;
    for (unsigned g = 0; g < storage_n_gens; g++)
        w += storage_gens[g].n_words + storage_gens[g].n_large_words;
    return w;
}

/* .inv.gen-counts: after a GC that collected every generation, each
 * generation's counters equal a recount of its two lists. */
static void check_gen_counts(void)
{
    for (unsigned g = 0; g < storage_n_gens; g++) {
        const Generation *gen = &storage_gens[g];
        StgWord blocks = 0, words = 0, large_blocks = 0, large_words = 0;
        for (const BlockDesc *bd = gen->blocks; bd != NULL; bd = bd->link) {
            blocks += bd->blocks;
            words += (StgWord)(bd->free - bd->start);
        }
        /* --nonmoving-gc: the objects in the segments' allocated slots. */
        for (const BlockDesc *bd = gen->segments; bd != NULL; bd = bd->link) {
            const Segment *seg = (const Segment *)bd->start;
            blocks += bd->blocks;
            for (unsigned i = 0; i < seg->n_slots; i++)
                if (seg->marks[i] != 0)
                    words += closure_sizeW((const StgClosure *)segment_slot(seg, i));
        }
        for (const BlockDesc *bd = gen->large_objects; bd != NULL; bd = bd->link) {
            large_blocks += bd->blocks;
            large_words += (StgWord)(bd->free - bd->start);
        }
        assert_int_equal(gen->n_blocks, blocks);
        assert_int_equal(gen->n_words, words);
        assert_int_equal(gen->n_large_blocks, large_blocks);
        assert_int_equal(gen->n_large_words, large_words);
    }
}

static int teardown(void **state)
{
    (void)state;
    hs_exit();
    return 0;
}

/* ----------------------------------------------------------------------
 * Reachability
 * ---------------------------------------------------------------------- */

static void test_gc_keeps_reachable_through_stable_ptrs(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    StgStablePtr sp[10];
    for (int k = 0; k < 10; k++)
        sp[k] = getStablePtr(mk_list((StgWord)k * 100, (StgWord)k * 100 + 100));
    for (int round = 0; round < 3; round++) {
        strata_perform_gc(round == 2);
        for (int k = 0; k < 10; k++)
            check_list(deRefStablePtr(sp[k]), (StgWord)k * 100, (StgWord)k * 100 + 100);
    }
    for (int k = 0; k < 10; k++)
        freeStablePtr(sp[k]);
}

static void test_gc_frees_unreachable(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    StgStablePtr keep = getStablePtr(mk_list(0, 1000));
    for (int i = 0; i < 50; i++)
        (void)mk_list(0, 1000);   /* garbage */
    strata_perform_gc(1);
    strata_perform_gc(1);
    check_gen_counts();
    /* Exactly the kept list survives (plus the TSO and the root stack). */
    StgWord list_words = 1000 * (4 + 2);
    StgWord runtime_words = sizeof(StgTSO) / WORD_SIZE;
    StgWord live = heap_live_words();
    StgWord stack_words = 0;
    for (BlockDesc *bd = oldest_gen->large_objects; bd != NULL; bd = bd->link)
        stack_words += (StgWord)(bd->free - bd->start);
    assert_int_equal(live, list_words + runtime_words + stack_words);
    check_list(deRefStablePtr(keep), 0, 1000);
    freeStablePtr(keep);
    strata_perform_gc(1);
    assert_int_equal(heap_live_words(), runtime_words + stack_words);
    check_gen_counts();
}

static void test_gc_cycles(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    /* A ring of 1000 mutable variables, each holding the next. */
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_var();    /* first */
    r[1] = r[0];                      /* previous */
    for (int i = 1; i < 1000; i++) {
        StgClosure *v = strata_alloc_mut_var();
        strata_mut_var_write(r[1], v);
        r[1] = v;
    }
    strata_mut_var_write(r[1], r[0]);
    strata_perform_gc(1);
    strata_perform_gc(0);
    StgClosure *p = r[0];
    for (int i = 0; i < 1000; i++)
        p = STRATA_MUT_VAR_READ(p);
    assert_ptr_equal(p, r[0]);
    STRATA_ROOTS_POP(r);
    /* Unreachable now: a major GC frees the whole ring. */
    StgWord before = heap_live_words();
    strata_perform_gc(1);
    assert_int_equal(heap_live_words(), before - 1000 * 2);
}

/* A constructor table written out by hand has fixed_words 0: its objects
 * are copied by the slow path, which works the size out from the type
 * (Note [A copy's size from its info table] in sm/Evac.c).  A list of them
 * mixed with macro-made Ints keeps every field through minor and major
 * GCs, under -DS. */
static const StgInfoTable Hand_cons_info = {CONSTR, 2, 1, 0, "HandCons", NULL, NULL, 0};

static void test_gc_copies_hand_written_tables(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    assert_int_equal(Hand_cons_info.fixed_words, 0);
    STRATA_ROOTS(r, 2);
    for (StgWord i = 0; i < 20000; i++) {
        r[1] = mk_int(i);
        StgClosure *cell = strata_alloc_constr(&Hand_cons_info);
        STRATA_FIELD(cell, 0) = r[1];
        STRATA_FIELD(cell, 1) = r[0];
        STRATA_WORD(cell, 2) = i * 3;
        r[0] = cell;
        if (i % 5000 == 0)
            strata_perform_gc(1);
    }
    strata_perform_gc(0);
    strata_perform_gc(1);
    StgWord n = 20000;
    for (StgClosure *c = r[0]; c != NULL; c = STRATA_FIELD(c, 1)) {
        n--;
        assert_ptr_equal(c->info, &Hand_cons_info);
        assert_int_equal(STRATA_WORD(STRATA_FIELD(c, 0), 0), n);
        assert_int_equal(STRATA_WORD(c, 2), n * 3);
    }
    assert_int_equal(n, 0);
    STRATA_ROOTS_POP(r);
}

/* The deep list's length: ten million cells, but a million under
 * ThreadSanitizer (build-tsan/'s -N2 rerun), where the copy of the one
 * chain races the same way at either length and ten million took about
 * 30 s of that rerun's CPU.  A recursive copy overflows its stack at
 * either length; every other build and rerun copies ten million. */
#if defined(__SANITIZE_THREAD__)
#define DEEP_LIST_CELLS (1000 * 1000)
#else
#define DEEP_LIST_CELLS (10 * 1000 * 1000)
#endif

static void test_gc_deep_list_ten_million(void **state)
{
    (void)state;
    harness_start("-A1m", NULL);
    const StgWord n = DEEP_LIST_CELLS;
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    for (StgWord i = n; i > 0; i--) {
        StgClosure *c = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(c, 0) = &Nil_closure;
        STRATA_FIELD(c, 1) = r[0];
        STRATA_WORD(c, 2) = i - 1;
        r[0] = c;
    }
    strata_perform_gc(1);   /* copies the cells without recursing */
    sanity_check_heap("deep list");
    StgWord count = 0;
    for (StgClosure *l = r[0]; l != &Nil_closure; l = STRATA_FIELD(l, 1)) {
        assert_int_equal(STRATA_WORD(l, 2), count);
        count++;
    }
    assert_int_equal(count, n);
    STRATA_ROOTS_POP(r);
}

static void test_gc_aging_copies_once_within_gen0(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = mk_int(1);
    assert_true(Bdescr(r[0])->flags & BF_NURSERY);
    strata_perform_gc(0);
    if (storage_config.nonmoving) {
        /* The first GCs promote directly (Note [Adaptive aging]). */
        assert_int_equal(Bdescr(r[0])->gen_no, 1);
        STRATA_ROOTS_POP(r);
        return;
    }
    /* Survived once: aged within generation 0. */
    assert_int_equal(Bdescr(r[0])->gen_no, 0);
    assert_false(Bdescr(r[0])->flags & BF_NURSERY);
    strata_perform_gc(0);   /* survives twice: promoted */
    assert_int_equal(Bdescr(r[0])->gen_no, 1);
    STRATA_ROOTS_POP(r);
}

/* Grows a list in *slot (rooted by the caller) until adaptive aging stops:
 * every aged cell survives.  Fails the test if it never stops. */
static void grow_until_aging_stops(StgClosure **slot)
{
    *slot = &Nil_closure;
    for (StgWord i = 0; i < 200000 && tenure_aging_enabled(); i++)
        *slot = cons_int(i, slot);
    assert_false(tenure_aging_enabled());
}

/* Note [Adaptive aging] (sm/Tenure.h): a workload whose aged objects all
 * survive stops aging; one whose aged objects die keeps it. */
static void test_gc_aging_stops_when_everything_survives(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", NULL);
    /* Under --nonmoving-gc it starts promoting directly (Note [Adaptive
     * aging]). */
    assert_true(tenure_aging_enabled() == !storage_config.nonmoving);
    STRATA_ROOTS(r, 1);
    grow_until_aging_stops(&r[0]);
    /* Survivors of the next GC skip the aging blocks. */
    r[0] = cons_int(7, &r[0]);
    strata_perform_gc(0);
    assert_int_equal(Bdescr(r[0])->gen_no, 1);
    STRATA_ROOTS_POP(r);
}

/* Allocates n short lists that each live for WINDOW allocations: about half
 * a 64k nursery is live at any GC, and all of it is dead by the next. */
#define WINDOW 64
static void churn_short_lived(StgClosure **window, StgWord n)
{
    for (StgWord i = 0; i < n; i++)
        window[i % WINDOW] = mk_list(0, 10);
}

/* Under ThreadSanitizer (build-tsan/'s -N2 rerun) without -DS: the
 * checker, single-threaded, walked the 4.8 MB list before and after
 * every collection: 29.2 s of CPU there, 0.6 s without it.  The
 * collections, parallel and raced, and the budgets are the same.  Every
 * other build and rerun checks the heap at each. */
#if defined(__SANITIZE_THREAD__)
#define BUDGET_TEST_SANITY NULL
#else
#define BUDGET_TEST_SANITY "-DS"
#endif

/* Note [Generation budgets] in sm/Policy.c: at -G3, after a major GC the
 * middle generation's budget is the oldest's, -F times what is live there,
 * so what is promoted into it afterwards (less than that) is not collected
 * again; a budget taken from the middle generation's own live data (about
 * nothing) collected it after every megabyte. */
static void test_gc_middle_generation_takes_the_oldest_budget(void **state)
{
    (void)state;
    harness_start("-A64k", "-G3", "-F2", BUDGET_TEST_SANITY, NULL);
    STRATA_ROOTS(r, 2);
    r[0] = mk_list(0, 100000);   /* 4.8 MB, 48 bytes a cell */
    strata_perform_gc(1);
    /* What the policy calls the generation's size: its blocks, or with
     * --nonmoving-gc the words of its objects (Note [Generation budgets]). */
    const Generation *g2 = &storage_gens[2];
    StgWord live = storage_config.nonmoving
                       ? (g2->n_words + g2->n_large_words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W
                       : g2->n_blocks + g2->n_large_blocks;
    assert_true(live * BLOCK_SIZE > (StgWord)4 << 20);
    assert_int_equal(storage_gens[2].max_blocks, 2 * live);
    assert_int_equal(storage_gens[1].max_blocks, 2 * live);
    StgWord gen1_collections = storage_gens[1].collections;
    StgWord gen2_collections = storage_gens[2].collections;
    /* About 2.9 MB promoted into generation 1, then dropped. */
    for (int k = 0; k < 5; k++) {
        r[1] = mk_list(0, 12000);
        for (int i = 0; i < 4 && Bdescr(r[1])->gen_no == 0; i++)
            strata_perform_gc(0);
        assert_int_equal(Bdescr(r[1])->gen_no, 1);
        r[1] = NULL;
    }
    assert_true(storage_gens[1].n_blocks * BLOCK_SIZE > (StgWord)2 << 20);
    assert_int_equal(storage_gens[1].collections, gen1_collections);
    assert_int_equal(storage_gens[2].collections, gen2_collections);
    assert_int_equal(storage_gens[1].max_blocks, 2 * live);
    check_list(r[0], 0, 100000);
    STRATA_ROOTS_POP(r);
}

static void test_gc_aging_stays_when_aged_objects_die(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", NULL);
    STRATA_ROOTS(r, WINDOW);
    churn_short_lived(r, 20000);
    assert_true(storage_gens[0].collections > 20);
    assert_true(tenure_aging_enabled());
    STRATA_ROOTS_POP(r);
}

static void test_gc_aging_returns_after_a_probe(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    grow_until_aging_stops(&r[0]);
    /* Now everything dies young: a probe GC ages again, the next one
     * finds almost nothing of it promoted, and aging stays on. */
    r[0] = &Nil_closure;
    STRATA_ROOTS(w, WINDOW);
    churn_short_lived(w, 40000);
    STRATA_ROOTS_POP(w);
    assert_true(tenure_aging_enabled());
    STRATA_ROOTS_POP(r);
}

/* Note [Counting the nursery] (sm/heap/Nursery.c): the count of what the
 * nursery holds follows allocation across blocks, whose ends a 48-byte
 * cell and its box do not fill exactly, and is 0 again after a GC. */
static void test_gc_nursery_counts_what_it_holds(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    strata_perform_gc(0);
    assert_int_equal(storage_nursery_allocated_bytes(), 0);
    StgWord gcs = storage_gens[0].collections;
    r[0] = mk_list(0, 1000);   /* 48,000 bytes: 12 of the 16 blocks */
    assert_int_equal(storage_gens[0].collections, gcs);   /* no GC in between */
    assert_int_equal(storage_nursery_allocated_bytes(), 1000 * 6 * sizeof(StgWord));
    strata_perform_gc(0);
    assert_int_equal(storage_nursery_allocated_bytes(), 0);
    check_list(r[0], 0, 1000);
    STRATA_ROOTS_POP(r);
}

/* .inv.nursery-dest across a restart: a run that ends promoting directly
 * (nursery blocks sent to generation 1) must not hand that destination to
 * the next run, whose one generation has nowhere to send them. */
static void test_gc_restart_with_one_generation_keeps_survivors_in_gen0(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    grow_until_aging_stops(&r[0]);
    strata_perform_gc(0);   /* the nursery's survivors go to generation 1 */
    STRATA_ROOTS_POP(r);
    hs_exit();

    harness_start("-A64k", "-G1", "-DS", NULL);
    STRATA_ROOTS(s, 1);
    s[0] = mk_list(0, 1000);
    strata_perform_gc(0);
    assert_int_equal(Bdescr(s[0])->gen_no, 0);
    check_list(s[0], 0, 1000);
    STRATA_ROOTS_POP(s);
}

static void test_gc_free_megablocks_return_to_os(void **state)
{
    (void)state;
    harness_start(NULL);
    StgStablePtr big = getStablePtr(mk_list(0, 2000000));   /* ~96 MB */
    strata_perform_gc(1);
    strata_perform_gc(1);
    StgWord in_use = mblock_n_in_use();
    freeStablePtr(big);
    strata_perform_gc(1);
    assert_true(mblock_n_in_use() < in_use / 4);
    if (storage_config.nonmoving) {
        /* Nothing was copied, so no cycle held twice the list: the
         * memory goes back within the decay's cycles, and is counted. */
        for (int i = 0; i < RETURN_DECAY_CYCLES; i++)
            strata_perform_gc(1);
        RtsStats st;
        stats_get(&st);
        assert_true(st.returned_mblocks > 50);
        assert_int_equal(st.returned_mblocks, mblock_n_returned());
        return;
    }
    /* The busiest of the last RETURN_DECAY_CYCLES major cycles is kept
     * committed (Policy.c).  The busiest was the second GC above, which
     * copied the list (about twice its megablocks): counting it and the
     * GC that dropped the list, RETURN_DECAY_CYCLES - 2 more major GCs
     * keep that memory, and the next gives back what only the copy
     * needed. */
    RtsStats before;
    stats_get(&before);
    for (int i = 0; i < RETURN_DECAY_CYCLES - 2; i++)
        strata_perform_gc(1);
    RtsStats st;
    stats_get(&st);
    assert_int_equal(st.returned_mblocks, before.returned_mblocks);
    strata_perform_gc(1);
    stats_get(&st);
    assert_true(st.returned_mblocks > before.returned_mblocks + 50);   /* visible in +RTS -s */
    assert_int_equal(st.returned_mblocks, mblock_n_returned());
}

/* ----------------------------------------------------------------------
 * Large and pinned objects
 * ---------------------------------------------------------------------- */

static void test_gc_large_objects_are_not_copied(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_bytes(100000);
    r[1] = strata_alloc_mut_array(200000);   /* a megablock group */
    memset(STRATA_BYTES_PTR(r[0]), 0x5a, 100000);
    StgClosure *bytes_at = r[0], *arr_at = r[1];
    assert_true(Bdescr(r[0])->flags & BF_LARGE);
    for (int i = 0; i < 100; i++)
        strata_mut_array_write(r[1], (StgWord)i * 997, mk_int((StgWord)i));
    for (int i = 0; i < 200; i++)
        (void)strata_alloc_bytes(10000);    /* large garbage */
    strata_perform_gc(0);
    strata_perform_gc(1);
    assert_ptr_equal(r[0], bytes_at);
    assert_ptr_equal(r[1], arr_at);
    assert_int_equal(((unsigned char *)STRATA_BYTES_PTR(r[0]))[99999], 0x5a);
    for (int i = 0; i < 100; i++)
        assert_int_equal(STRATA_WORD(strata_mut_array_read(r[1], (StgWord)i * 997), 0), i);
    STRATA_ROOTS_POP(r);
    StgWord blocks_before = block_n_allocated();
    strata_perform_gc(1);
    assert_true(block_n_allocated() < blocks_before);   /* both freed */
}

static void test_gc_pinned_block_stays_while_one_object_lives(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_pinned_bytes(64);
    void *payload = STRATA_BYTES_PTR(r[0]);
    BlockDesc *bd = Bdescr(r[0]);
    for (int i = 0; i < 40; i++)
        (void)strata_alloc_pinned_bytes(64);   /* dead neighbours in the block */
    strata_perform_gc(0);
    strata_perform_gc(1);
    assert_ptr_equal(STRATA_BYTES_PTR(r[0]), payload);   /* never moved */
    assert_ptr_equal(Bdescr(r[0]), bd);
    assert_true(bd->flags & BF_PINNED);
    assert_int_equal(bd->gen_no, storage_n_gens - 1);
    /* The whole block is kept: the fragmentation users must see. */
    assert_true(oldest_gen->n_large_words >= 40 * (2 + 8));
    STRATA_ROOTS_POP(r);
}

/* ----------------------------------------------------------------------
 * Remembered sets
 * ---------------------------------------------------------------------- */

static void test_gc_mut_var_old_to_young(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_var();
    strata_perform_gc(1);
    strata_perform_gc(1);
    assert_int_equal(Bdescr(r[0])->gen_no, storage_n_gens - 1);
    for (StgWord i = 0; i < 2000; i++) {
        StgClosure *v = mk_int(i);
        strata_mut_var_write(r[0], v);     /* old -> young, every time */
        if (i % 100 == 0)
            strata_perform_gc(0);
        assert_int_equal(STRATA_WORD(STRATA_MUT_VAR_READ(r[0]), 0), i);
    }
    STRATA_ROOTS_POP(r);
}

static void test_gc_mut_array_cards(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    const StgWord n = 5000;
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(n);
    strata_perform_gc(1);
    strata_perform_gc(1);
    for (StgWord round = 0; round < 5; round++) {
        for (StgWord i = round; i < n; i += 37)
            strata_mut_array_write(r[0], i, mk_int(i * 10 + round));
        strata_perform_gc(0);
        for (StgWord i = round; i < n; i += 37)
            assert_int_equal(STRATA_WORD(strata_mut_array_read(r[0], i), 0), i * 10 + round);
    }
    /* Once everything is promoted, the cards are clean again. */
    strata_perform_gc(1);
    assert_ptr_equal(r[0]->info, &stg_MUT_ARR_PTRS_CLEAN_info);
    STRATA_ROOTS_POP(r);
}

/* A few marked cards of a long array, the rest clean (the scan skips clean
 * cards a word at a time): an element left in a younger generation keeps
 * its card set, one promoted to the array's generation clears it. */
static void test_gc_mut_array_sparse_cards(void **state)
{
    (void)state;
    harness_start("-A1m", "-G3", "-DS", NULL);
    const StgWord n = 100000, cards = mut_arr_ptrs_cards(n);
    const StgWord stays[] = {5, 128 * 9 + 3, 128 * 64, n - 1};
    const StgWord promoted[] = {128 * 20 + 1, 128 * 71 + 127};
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array(n);
    for (int i = 0; i < 4 && Bdescr(r[0])->gen_no < 2; i++)
        strata_perform_gc(2);
    assert_int_equal(Bdescr(r[0])->gen_no, 2);
    r[1] = mk_int(7);
    for (int i = 0; i < 3 && Bdescr(r[1])->gen_no == 0; i++)
        strata_perform_gc(0);
    assert_int_equal(Bdescr(r[1])->gen_no, 1);
    for (size_t k = 0; k < sizeof stays / sizeof stays[0]; k++)
        strata_mut_array_write(r[0], stays[k], r[1]);
    for (size_t k = 0; k < sizeof promoted / sizeof promoted[0]; k++)
        strata_mut_array_write(r[0], promoted[k], mk_int(promoted[k]));
    strata_perform_gc(0);
    const uint8_t *table = mut_arr_ptrs_card_table((StgMutArrPtrs *)r[0]);
    StgWord set = 0;
    for (StgWord c = 0; c < cards; c++)
        set += table[c] != 0;
    assert_int_equal(set, sizeof stays / sizeof stays[0]);
    for (size_t k = 0; k < sizeof stays / sizeof stays[0]; k++) {
        assert_int_not_equal(table[stays[k] >> MUT_ARR_PTRS_CARD_BITS], 0);
        assert_ptr_equal(strata_mut_array_read(r[0], stays[k]), r[1]);
    }
    for (size_t k = 0; k < sizeof promoted / sizeof promoted[0]; k++)
        assert_int_equal(STRATA_WORD(strata_mut_array_read(r[0], promoted[k]), 0), promoted[k]);
    assert_ptr_equal(r[0]->info, &stg_MUT_ARR_PTRS_DIRTY_info);
    /* Once the value is as old as the array, every card is clean. */
    strata_perform_gc(1);
    table = mut_arr_ptrs_card_table((StgMutArrPtrs *)r[0]);
    for (StgWord c = 0; c < cards; c++)
        assert_int_equal(table[c], 0);
    assert_ptr_equal(r[0]->info, &stg_MUT_ARR_PTRS_CLEAN_info);
    STRATA_ROOTS_POP(r);
}

static void test_gc_mut_array_bad_index(void)
{
    harness_start(NULL);
    StgClosure *a = strata_alloc_mut_array(3);
    strata_mut_array_write(a, 3, NULL);
}

/* The same on an array already dirty, whose writes take the inline fast
 * path (Note [Inline barriers] in strata/Barrier.h), and on a read. */
static void dirty_array_bad_index(void)
{
    harness_start(NULL);
    StgClosure *a = strata_alloc_mut_array(3);
    strata_mut_array_write(a, 0, NULL);
    assert_ptr_equal(a->info, &stg_MUT_ARR_PTRS_DIRTY_info);
    strata_mut_array_write(a, 3, NULL);
}

static void array_bad_read(void)
{
    harness_start(NULL);
    StgClosure *a = strata_alloc_mut_array(3);
    (void)strata_mut_array_read(a, (StgWord)-1);
}

static void test_gc_mut_array_index_is_checked(void **state)
{
    (void)state;
    harness_expect_failure(test_gc_mut_array_bad_index, 0, SIGABRT,
                           "index out of range (index=3, length=3)");
    harness_expect_failure(dirty_array_bad_index, 0, SIGABRT,
                           "strata_mut_array_write: index out of range (index=3, length=3)");
    harness_expect_failure(array_bad_read, 0, SIGABRT,
                           "strata_mut_array_read: index out of range (index=18446744073709551615, "
                           "length=3)");
}

/* ----------------------------------------------------------------------
 * Thunks and indirections
 * ---------------------------------------------------------------------- */

static int sum_entries = 0;

/* Sum of a list of Ints: the thunk's one free variable. */
static StgClosure *sum_entry(StgClosure **self)
{
    sum_entries++;
    StgWord total = 0;
    for (StgClosure *l = STRATA_THUNK_FIELD(*self, 0); l != &Nil_closure; l = STRATA_FIELD(l, 1))
        total += STRATA_WORD(STRATA_FIELD(l, 0), 0);
    /* Allocate a lot so that the blackhole moves during evaluation. */
    for (int i = 0; i < 500; i++)
        (void)mk_list(0, 10);
    return mk_int(total);
}
STRATA_THUNK_INFO(sum_thunk_info, "sum_thunk", 1, 0, sum_entry);
STRATA_CONSTR_INFO(Box_info, "Box", 1, 0);

static void test_gc_thunk_update_and_short_circuit(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    sum_entries = 0;
    STRATA_ROOTS(r, 2);
    r[0] = mk_list(0, 100);
    StgClosure *t = strata_alloc_thunk(&sum_thunk_info);
    STRATA_THUNK_FIELD(t, 0) = r[0];
    r[0] = t;
    StgClosure *box = strata_alloc_constr(&Box_info);
    STRATA_FIELD(box, 0) = r[0];
    r[1] = box;
    StgClosure *v = strata_eval(r[0]);
    assert_int_equal(STRATA_WORD(v, 0), 4950);
    assert_int_equal(sum_entries, 1);
    /* The thunk is now an indirection; evaluating again does not rerun it. */
    assert_int_equal(r[0]->info->type, IND);
    assert_int_equal(STRATA_WORD(strata_eval(STRATA_FIELD(r[1], 0)), 0), 4950);
    assert_int_equal(sum_entries, 1);
    /* The collector short-circuits the indirection in the box (a major GC:
     * the box and the thunk were promoted while the thunk ran). */
    strata_perform_gc(1);
    assert_ptr_equal(STRATA_FIELD(r[1], 0)->info, &Int_info);
    assert_int_equal(STRATA_WORD(STRATA_FIELD(r[1], 0), 0), 4950);
    STRATA_ROOTS_POP(r);
}

static StgClosure *self_entry(StgClosure **self)
{
    return strata_eval(*self);
}
STRATA_THUNK_INFO(self_thunk_info, "self_thunk", 0, 0, self_entry);

static void run_loop_thunk(void)
{
    harness_start(NULL);
    (void)strata_eval(strata_alloc_thunk(&self_thunk_info));
}

static void test_gc_thunk_loop_detected(void **state)
{
    (void)state;
    harness_expect_failure(run_loop_thunk, 1, 0, "<<loop>>");
}

/* An old thunk updated with a young value must be remembered. */
static StgClosure *young_entry(StgClosure **self)
{
    return mk_int(77);
}
STRATA_THUNK_INFO(young_thunk_info, "young_thunk", 0, 1, young_entry);

static void test_gc_old_thunk_update_is_remembered(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_thunk(&young_thunk_info);
    strata_perform_gc(1);
    strata_perform_gc(1);
    (void)strata_eval(r[0]);
    strata_perform_gc(0);   /* -DS checks the remembered set */
    assert_int_equal(STRATA_WORD(strata_eval(r[0]), 0), 77);
    STRATA_ROOTS_POP(r);
}

/* add_n: a function closure with one free variable (n) and arity 1. */
static StgClosure *add_n_entry(StgClosure **self, StgClosure **args)
{
    StgWord n = STRATA_WORD(*self, 0);
    for (int i = 0; i < 300; i++)
        (void)mk_int(0);   /* let the collector move the function and the argument */
    StgWord x = STRATA_WORD(strata_eval(args[0]), 0);
    return mk_int(n + x);
}
STRATA_FUN_INFO(add_n_info, "add_n", 0, 1, 1, add_n_entry);

static void test_gc_apply_function_closure(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_fun(&add_n_info);
    STRATA_WORD(r[0], 0) = 40;
    r[1] = mk_int(2);
    StgClosure *v = strata_apply(r[0], &r[1], 1);
    assert_int_equal(STRATA_WORD(v, 0), 42);
    STRATA_ROOTS_POP(r);
}

static void apply_wrong_arity(void)
{
    harness_start(NULL);
    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_fun(&add_n_info);
    r[1] = mk_int(2);
    r[2] = mk_int(3);
    (void)strata_apply(r[0], &r[1], 2);
}

/* add_n takes one argument: the second goes to its result, an Int, which
 * is no function (test_apply.c covers partial and over-saturated calls). */
static void test_gc_apply_wrong_arity_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(apply_wrong_arity, 0, SIGABRT,
                           "strata_apply: not a function (closure type CONSTR_0_1, table Int, "
                           "applied to 1 arguments)");
}

/* ----------------------------------------------------------------------
 * Static closures
 * ---------------------------------------------------------------------- */

static StgMutVar static_var = {&stg_MUT_VAR_CLEAN_info, NULL};

static StgClosure *caf_entry(StgClosure **self)
{
    return mk_list(0, 50);
}
static const StgInfoTable caf_static_info = {THUNK_STATIC, 0, 0, 0, "caf_static",
                                             (const void *)caf_entry, NULL, 0};
static StgThunk caf_closure = {&caf_static_info, 0};

static void test_gc_static_closures_are_roots(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    strata_mut_var_write((StgClosure *)&static_var, mk_list(0, 30));
    StgClosure *v = strata_eval((StgClosure *)&caf_closure);
    check_list(v, 0, 50);
    for (int i = 0; i < 3; i++)
        strata_perform_gc(i == 2);
    check_list(STRATA_MUT_VAR_READ((StgClosure *)&static_var), 0, 30);
    assert_ptr_equal(caf_closure.info, &stg_IND_STATIC_info);
    check_list(strata_eval((StgClosure *)&caf_closure), 0, 50);
}

/* A static mutable variable written between minor GCs is cleaned by each
 * GC and dirtied by the next write: it stays one root, not one per write
 * (each duplicate made every later GC scan it again). */
static StgMutVar rewritten_static_var = {&stg_MUT_VAR_CLEAN_info, NULL};

static void test_gc_static_root_is_listed_once(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    StgClosure *var = (StgClosure *)&rewritten_static_var;
    for (int i = 0; i < 3000; i++) {
        strata_mut_var_write(var, mk_int((StgWord)i));
        strata_perform_gc(0);
    }
    StgWord listed = 0;
    for (StgWord i = 0; i < static_roots_count; i++)
        listed += static_roots[i] == var;
    assert_int_equal(listed, 1);
    assert_int_equal(STRATA_WORD(STRATA_MUT_VAR_READ(var), 0), 2999);
}

/* ----------------------------------------------------------------------
 * The heap limit
 * ---------------------------------------------------------------------- */

static void run_until_overflow(void)
{
    harness_start("-M2m", "-A64k", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    for (;;)
        r[0] = cons_int(1, &r[0]);
}

static void test_gc_heap_overflow_exits_251(void **state)
{
    (void)state;
    harness_expect_failure(run_until_overflow, 251, 0, "heap overflow");
}

/* Sizes near 2^64 (a negative int passed as a length) must not wrap to a
 * small object: each is a heap overflow naming the size asked for. */
static int huge_case;

static void alloc_huge(void)
{
    harness_start("-A64k", NULL);
    switch (huge_case) {
    case 0: (void)strata_alloc_bytes(SIZE_MAX); break;
    case 1: (void)strata_alloc_pinned_bytes(SIZE_MAX); break;
    case 2: (void)strata_alloc_bytes(SIZE_MAX - 7); break;
    case 3: (void)strata_alloc_mut_array(SIZE_MAX); break;
    case 4: (void)strata_alloc_mut_array((StgWord)1 << 61); break;
    case 5: (void)strata_alloc_words(SIZE_MAX / 4); break;
    }
    fprintf(stderr, "allocated\n");
    _exit(0);
}

static void test_gc_huge_sizes_are_heap_overflows(void **state)
{
    (void)state;
    static const char *const want[] = {
        "heap overflow: a byte array of 18446744073709551615 bytes was asked for",
        "heap overflow: a pinned byte array of 18446744073709551615 bytes was asked for",
        "heap overflow: a byte array of 18446744073709551608 bytes was asked for",
        "heap overflow: a mutable array of 18446744073709551615 elements was asked for",
        "heap overflow: a mutable array of 2305843009213693952 elements was asked for",
        "heap overflow: an object of 4611686018427387903 words was asked for",
    };
    for (huge_case = 0; huge_case < 6; huge_case++)
        harness_expect_failure(alloc_huge, 251, 0, want[huge_case]);
}

/* The barriered writes check what they write to: a constructor passed as
 * a mutable variable or array is named, not recorded or misread. */
static void mut_var_write_to_constructor(void)
{
    harness_start(NULL);
    StgClosure *not_a_var = mk_int(1);
    strata_mut_var_write(not_a_var, NULL);
}

static void mut_array_write_to_constructor(void)
{
    harness_start(NULL);
    StgClosure *not_an_array = mk_int(1);
    strata_mut_array_write(not_an_array, 0, NULL);
}

static void mut_array_read_of_mut_var(void)
{
    harness_start(NULL);
    (void)strata_mut_array_read(strata_alloc_mut_var(), 0);
}

/* NULL, which the inline fast paths test before they read a header. */
static void mut_var_write_to_null(void)
{
    harness_start(NULL);
    strata_mut_var_write(NULL, NULL);
}

static void mut_array_write_to_null(void)
{
    harness_start(NULL);
    strata_mut_array_write(NULL, 0, NULL);
}

static void mut_array_read_of_null(void)
{
    harness_start(NULL);
    (void)strata_mut_array_read(NULL, 0);
}

static void test_gc_barriers_check_the_closure_type(void **state)
{
    (void)state;
    harness_expect_failure(mut_var_write_to_null, 0, SIGABRT,
                           "strata_mut_var_write: the closure given is NULL, not a mutable variable");
    harness_expect_failure(mut_array_write_to_null, 0, SIGABRT,
                           "strata_mut_array_write: the closure given is NULL, not a mutable array");
    harness_expect_failure(mut_array_read_of_null, 0, SIGABRT,
                           "strata_mut_array_read: the closure given is NULL, not a mutable array");
    harness_expect_failure(mut_var_write_to_constructor, 0, SIGABRT,
                           "strata_mut_var_write: the closure given is not a mutable variable "
                           "(closure=");
    harness_expect_failure(mut_var_write_to_constructor, 0, SIGABRT,
                           "type=CONSTR_0_1, info table=Int)");
    harness_expect_failure(mut_array_write_to_constructor, 0, SIGABRT,
                           "strata_mut_array_write: the closure given is not a mutable array");
    harness_expect_failure(mut_array_read_of_mut_var, 0, SIGABRT,
                           "strata_mut_array_read: the closure given is not a mutable array");
}

/* Debug level 2 checks the collector's internal invariants: recording a
 * young object on an old generation's remembered set is caught at once
 * (.inv.remembered), not by a later sanity check or a crash. */
static void remember_young_object_as_old(void)
{
    harness_start("-G2", NULL);
    mut_list_record(&storage_gens[1], mk_int(7));
}

static void test_gc_internal_assertions_check_at_level_2(void **state)
{
    (void)state;
    if (STRATA_DEBUG < 2)
        skip_in_build("internal assertions (build-debug2/ or build-san/, --enable-debug>=2)");
    harness_expect_failure(remember_young_object_as_old, 0, SIGABRT,
                           "assertion failed: g->no > 0 && heap_alloced(p) && "
                           "Bdescr(p)->gen_no == g->no");
}

/* Note [A crash says what to do next] in support/os/Crash.c: a write one
 * word past a small object overwrites the next object's info pointer; the
 * collector, copying that object, faults.  The fatal-signal handler names
 * the collector and +RTS -DS, and the process still dies of SIGSEGV. */
#if STRATA_DEBUG == 0 && !defined(STRATA_ASAN)
STRATA_CONSTR_INFO(Small_info, "Small", 0, 1);

/* cmocka catches SIGSEGV itself; the runtime's handler passes the signal
 * on to the action it replaced, which here must be the default. */
static void default_fatal_signal_action(void)
{
    signal(SIGSEGV, SIG_DFL);
}

static void overrun_then_collect(void)
{
    default_fatal_signal_action();
    harness_start(NULL);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_constr(&Small_info);
    r[1] = strata_alloc_constr(&Small_info);
    if ((StgWord *)r[1] != (StgWord *)r[0] + 2)
        fail_msg("the two objects are not adjacent");
    STRATA_WORD(r[0], 1) = 0x10;   /* past r[0]'s one word: r[1]'s info pointer */
    strata_perform_gc(0);
    STRATA_ROOTS_POP(r);
}

static void fault_in_program(void)
{
    default_fatal_signal_action();
    harness_start(NULL);
    static volatile uintptr_t bad = 0x10;   /* hidden from the compiler's bounds checks */
    *(volatile StgWord *)bad = 1;
}

#endif

static void test_gc_crash_names_collector_and_sanity_flag(void **state)
{
    (void)state;
    /* Assertions (debug >= 1) stop the overrun before it faults, and ASan
     * reports the fault itself. */
#if STRATA_DEBUG == 0 && !defined(STRATA_ASAN)
    harness_expect_failure(overrun_then_collect, 0, SIGSEGV,
                           "fatal signal SIGSEGV in the garbage collector; the heap may be "
                           "damaged: rerun with +RTS -DS to find the damaged object");
    harness_expect_failure(fault_in_program, 0, SIGSEGV,
                           "fatal signal SIGSEGV in the program; the heap may be damaged: "
                           "rerun with +RTS -DS");
#else
    skip_in_build("a release build's crash (build/, no assertions or sanitizers)");
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_gc_keeps_reachable_through_stable_ptrs, teardown),
        cmocka_unit_test_teardown(test_gc_frees_unreachable, teardown),
        cmocka_unit_test_teardown(test_gc_cycles, teardown),
        cmocka_unit_test_teardown(test_gc_copies_hand_written_tables, teardown),
        cmocka_unit_test_teardown(test_gc_deep_list_ten_million, teardown),
        cmocka_unit_test_teardown(test_gc_aging_copies_once_within_gen0, teardown),
        cmocka_unit_test_teardown(test_gc_aging_stops_when_everything_survives, teardown),
        cmocka_unit_test_teardown(test_gc_middle_generation_takes_the_oldest_budget, teardown),
        cmocka_unit_test_teardown(test_gc_aging_stays_when_aged_objects_die, teardown),
        cmocka_unit_test_teardown(test_gc_aging_returns_after_a_probe, teardown),
        cmocka_unit_test_teardown(test_gc_nursery_counts_what_it_holds, teardown),
        cmocka_unit_test_teardown(test_gc_restart_with_one_generation_keeps_survivors_in_gen0,
                                  teardown),
        cmocka_unit_test_teardown(test_gc_free_megablocks_return_to_os, teardown),
        cmocka_unit_test_teardown(test_gc_large_objects_are_not_copied, teardown),
        cmocka_unit_test_teardown(test_gc_pinned_block_stays_while_one_object_lives, teardown),
        cmocka_unit_test_teardown(test_gc_mut_var_old_to_young, teardown),
        cmocka_unit_test_teardown(test_gc_mut_array_cards, teardown),
        cmocka_unit_test_teardown(test_gc_mut_array_sparse_cards, teardown),
        cmocka_unit_test(test_gc_mut_array_index_is_checked),
        cmocka_unit_test(test_gc_barriers_check_the_closure_type),
        cmocka_unit_test_teardown(test_gc_thunk_update_and_short_circuit, teardown),
        cmocka_unit_test(test_gc_thunk_loop_detected),
        cmocka_unit_test(test_gc_crash_names_collector_and_sanity_flag),
        cmocka_unit_test_teardown(test_gc_old_thunk_update_is_remembered, teardown),
        cmocka_unit_test_teardown(test_gc_apply_function_closure, teardown),
        cmocka_unit_test(test_gc_apply_wrong_arity_is_reported),
        cmocka_unit_test_teardown(test_gc_static_closures_are_roots, teardown),
        cmocka_unit_test_teardown(test_gc_static_root_is_listed_once, teardown),
        cmocka_unit_test(test_gc_heap_overflow_exits_251),
        cmocka_unit_test(test_gc_huge_sizes_are_heap_overflows),
        cmocka_unit_test(test_gc_internal_assertions_check_at_level_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
