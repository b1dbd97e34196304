/*
 * testsuite/unit/test_census.c -- the heap census: labels per breakdown
 * (GHC's for -hT, addresses for -hi, eras for -he, provenance for
 * -hd/-hy/-hm), era selection, the census total equal to the live
 * bytes the collector reports after the same major GC, and the census a
 * major GC counts as it scavenges (sm/LiveTally.c) equal to a heap walk.
 */
#include "harness.h"

#include "Census.h"
#include "GC.h"
#include "NonMoving.h"
#include "ProfHeap.h"
#include "Storage.h"

static const StgInfoProv leaf_prov = {"Leaf_con_info", "Leaf", "Tree", "mkLeaf", "Tree",
                                      "tree.c", "10:1-20"};
STRATA_CONSTR_INFO_PROV(Leaf_info, "Leaf", 0, 1, &leaf_prov);
STRATA_CONSTR_INFO(Cell_info, "Cell", 2, 0);

static StgClosure *id_entry(StgClosure **self)
{
    return STRATA_THUNK_FIELD(*self, 0);
}
STRATA_THUNK_INFO(id_thunk_info, "id_thunk", 1, 0, id_entry);

static StgClosure *pair_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    (void)args;
    return strata_alloc_constr(&Leaf_info);
}
STRATA_FUN_INFO(pair_fun_info, "pair_fun", 0, 0, 2, pair_entry);

static int teardown(void **state)
{
    (void)state;
    hs_exit();
    return 0;
}

static const CensusBucket *find(const Census *c, const char *label)
{
    for (size_t i = 0; i < c->n_buckets; i++)
        if (strcmp(c->buckets[i].label, label) == 0)
            return &c->buckets[i];
    return NULL;
}

/* 100 leaves (2 words), 50 cells (3 words), 10 thunks (3 words), one
 * 1000-byte array (2 + 125 words), all reachable from one array root. */
static void build_heap(StgClosure **root)
{
    *root = strata_alloc_mut_array(161);
    for (StgWord i = 0; i < 100; i++)
        strata_mut_array_write(*root, i, strata_alloc_constr(&Leaf_info));
    for (StgWord i = 100; i < 150; i++)
        strata_mut_array_write(*root, i, strata_alloc_constr(&Cell_info));
    for (StgWord i = 150; i < 160; i++)
        strata_mut_array_write(*root, i, strata_alloc_thunk(&id_thunk_info));
    strata_mut_array_write(*root, 160, strata_alloc_bytes(1000));
}

static void test_census_by_closure_type(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    build_heap(&r[0]);
    strata_perform_gc(1);
    Census c;
    census_init(&c);
    census_take(&c, HEAP_BY_CLOSURE_TYPE, ERA_RANGE_ALL);
    assert_non_null(find(&c, "Leaf"));
    assert_int_equal(find(&c, "Leaf")->bytes, 100 * 2 * 8);
    assert_int_equal(find(&c, "Cell")->bytes, 50 * 3 * 8);
    assert_int_equal(find(&c, "THUNK_1_0")->bytes, 10 * 3 * 8);
    assert_int_equal(find(&c, "ARR_WORDS")->bytes, (2 + 125) * 8);
    assert_non_null(find(&c, "MUT_ARR_PTRS_CLEAN"));
    assert_non_null(find(&c, "STACK"));
    assert_non_null(find(&c, "TSO"));
    census_free(&c);
    STRATA_ROOTS_POP(r);
}

static void test_census_by_info_table_and_provenance(void **state)
{
    (void)state;
    harness_start("-A8k", NULL);
    STRATA_ROOTS(r, 1);
    build_heap(&r[0]);
    strata_perform_gc(1);
    Census c;
    char label[32];
    snprintf(label, sizeof label, "0x%lx", (unsigned long)(uintptr_t)&Leaf_info);
    census_init(&c);
    census_take(&c, HEAP_BY_INFO_TABLE, ERA_RANGE_ALL);
    assert_non_null(find(&c, label));
    assert_ptr_equal(find(&c, label)->info, &Leaf_info);
    assert_int_equal(find(&c, label)->bytes, 100 * 2 * 8);
    census_free(&c);

    census_init(&c);
    census_take(&c, HEAP_BY_TYPE, ERA_RANGE_ALL);
    assert_int_equal(find(&c, "Tree")->bytes, 100 * 2 * 8);
    assert_non_null(find(&c, "<unknown>"));   /* tables without provenance */
    census_free(&c);
    census_init(&c);
    census_take(&c, HEAP_BY_MOD, ERA_RANGE_ALL);
    assert_int_equal(find(&c, "Tree")->bytes, 100 * 2 * 8);
    census_free(&c);
    census_init(&c);
    census_take(&c, HEAP_BY_DESCR, ERA_RANGE_ALL);
    assert_int_equal(find(&c, "Leaf")->bytes, 100 * 2 * 8);
    assert_int_equal(find(&c, "Cell")->bytes, 50 * 3 * 8);
    census_free(&c);
    STRATA_ROOTS_POP(r);
}

static void test_census_by_era_and_selection(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(40);
    for (StgWord i = 0; i < 40; i++) {
        setUserEra(i / 10);           /* eras 0, 1, 2, 3: ten leaves each */
        strata_mut_array_write(r[0], i, strata_alloc_constr(&Leaf_info));
    }
    setUserEra(1);
    strata_perform_gc(1);
    strata_perform_gc(1);
    Census c;
    census_init(&c);
    census_take(&c, HEAP_BY_ERA, ERA_RANGE_ALL);
    assert_null(find(&c, "0"));                  /* era 0 is not counted */
    assert_int_equal(find(&c, "2")->bytes, 10 * 2 * 8);
    assert_int_equal(find(&c, "3")->bytes, 10 * 2 * 8);
    assert_true(find(&c, "1")->bytes >= 10 * 2 * 8);   /* + TSO, stack, array */
    census_free(&c);

    census_init(&c);   /* -hT -he2-3 */
    census_take(&c, HEAP_BY_CLOSURE_TYPE, (EraRange){2, 3});
    assert_int_equal(c.total_bytes, 20 * 2 * 8);
    assert_int_equal(find(&c, "Leaf")->bytes, 20 * 2 * 8);
    census_free(&c);
    STRATA_ROOTS_POP(r);
}

/* Each census's total equals the live bytes the collector counted.  With
 * --nonmoving-gc (the scripts' rerun), only after a collection that ran
 * its cycle in its pause: a census of a cycle that marks beside the
 * program is of its snapshot, and posted when its mark ends
 * (test_nonmoving_census checks those). */
static uint64_t census_live_mismatches, census_checks, stw_cycles_seen;

static void compare_with_collector(unsigned gen, bool major)
{
    (void)gen;
    if (!major)
        return;
    if (nonmoving_on()) {
        uint64_t stw = nonmoving_stats()->stw_cycles;
        bool whole = stw != stw_cycles_seen;
        stw_cycles_seen = stw;
        if (!whole)
            return;
    }
    StgWord live = 0;
    for (unsigned g = 0; g < storage_n_gens; g++)
        live += (storage_gens[g].n_words + storage_gens[g].n_large_words) * WORD_SIZE;
    census_checks++;
    if (prof_heap_last_total_bytes() != live)
        census_live_mismatches++;
}

/* .inv.census-total */
static void test_census_total_equals_live_bytes(void **state)
{
    (void)state;
    char dir[] = "/tmp/strata-census-XXXXXX";   /* the .hp file goes here */
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chdir(dir), 0);
    harness_start("-hT", "-i0", "-A16k", "-DS", NULL);
    census_live_mismatches = census_checks = stw_cycles_seen = 0;
    gc_add_post_hook(compare_with_collector);   /* runs after the census hook */
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(500);
    for (StgWord i = 0; i < 20000; i++) {
        StgClosure *x = i % 7 == 0 ? strata_alloc_pinned_bytes(i % 300)
                        : i % 5 == 0 ? strata_alloc_bytes(i % 5000)
                                     : strata_alloc_constr(&Cell_info);
        strata_mut_array_write(r[0], i % 500, x);
        if (i % 2000 == 0)
            strata_perform_gc(1);
    }
    STRATA_ROOTS_POP(r);
    assert_true(census_checks >= 10);
    assert_int_equal(census_live_mismatches, 0);
    assert_true(prof_heap_census_count() >= census_checks);
}

/* The same heap censused two ways: from the counts a major GC made while
 * scavenging, and by walking the heap after it.  Every breakdown that
 * counts objects, with and without an era range; the heap holds small
 * objects in several eras and generations, thunks, large and pinned byte
 * arrays, and a dirty array the GC cleans. */
static void expect_tally_equals_walk(HeapBreakdown by, EraRange eras)
{
    LiveTally t;
    live_tally_init(&t, eras);
    gc_request_tally(&t);
    strata_perform_gc(0);   /* a minor GC leaves the request in place */
    assert_false(t.filled);
    strata_perform_gc(1);
    assert_true(t.filled);
    Census counted, walked;
    census_init(&counted);
    census_init(&walked);
    census_from_tally(&counted, by, &t);
    census_take(&walked, by, eras);
    assert_true(walked.objects > 0);
    assert_null(census_first_difference(&counted, &walked));
    assert_null(census_first_difference(&walked, &counted));
    assert_int_equal(counted.n_buckets, walked.n_buckets);
    census_free(&counted);
    census_free(&walked);
    live_tally_free(&t);
}

/* .inv.tally-equals-walk */
static void test_census_counted_during_gc_equals_walk(void **state)
{
    (void)state;
    harness_start("-A8k", "-G3", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(3000);
    for (StgWord i = 0; i < 3000; i++) {
        setUserEra(i / 1000 + 1);
        StgClosure *x = i % 11 == 0   ? strata_alloc_pinned_bytes(i % 200)
                        : i % 13 == 0 ? strata_alloc_bytes(i % 2 ? 40 : 9000)
                        : i % 5 == 0  ? strata_alloc_thunk(&id_thunk_info)
                        : i % 2 == 0  ? strata_alloc_constr(&Leaf_info)
                                      : strata_alloc_constr(&Cell_info);
        strata_mut_array_write(r[0], i, x);
        if (i % 700 == 0)
            strata_perform_gc(0);
    }
    strata_perform_gc(1);
    strata_mut_array_write(r[0], 7, strata_alloc_constr(&Cell_info));   /* dirty again */
    static const HeapBreakdown per_object[] = {HEAP_BY_CLOSURE_TYPE, HEAP_BY_INFO_TABLE,
                                               HEAP_BY_DESCR, HEAP_BY_TYPE, HEAP_BY_MOD};
    for (size_t i = 0; i < sizeof per_object / sizeof per_object[0]; i++) {
        expect_tally_equals_walk(per_object[i], ERA_RANGE_ALL);
        expect_tally_equals_walk(per_object[i], (EraRange){2, 3});
    }
    /* A withdrawn request leaves the tally alone. */
    LiveTally t;
    live_tally_init(&t, ERA_RANGE_ALL);
    gc_request_tally(&t);
    gc_request_tally(NULL);
    strata_perform_gc(1);
    assert_false(t.filled);
    assert_int_equal(t.n_entries, 0);
    live_tally_free(&t);
    STRATA_ROOTS_POP(r);
}

/* The -he census of a heap of thousands of small eras, most of them in
 * shared blocks, equals the truth kept here in C: the bytes allocated in
 * each era (everything stays live).  Eras 1 holds the test's own
 * objects; the counted ones start at 2. */
STRATA_CONSTR_INFO(EraCell_info, "EraCell", 1, 1);
STRATA_CONSTR_INFO(EraHolder_info, "EraHolder", 2, 0);   /* next, a large object */

static void test_census_by_era_equals_per_object_truth(void **state)
{
    (void)state;
    harness_start("-A16k", "-G2", "-DS", NULL);
    enum { N_ERAS = 3000, N_OBJECTS = 20000 };
    static uint64_t truth[N_ERAS + 2];
    memset(truth, 0, sizeof truth);
    STRATA_ROOTS(r, 2);
    srand(99);
    for (int i = 0; i < N_OBJECTS; i++) {
        StgWord era = 2 + (StgWord)rand() % N_ERAS;
        setUserEra(era);
        StgClosure *c;
        if (i % 500 == 0) {   /* a large object, counted by its descriptor */
            r[1] = strata_alloc_bytes(LARGE_OBJECT_THRESHOLD);
            c = strata_alloc_constr(&EraHolder_info);
            STRATA_FIELD(c, 0) = r[0];
            STRATA_FIELD(c, 1) = r[1];
            r[0] = c;
            r[1] = NULL;
            truth[era] += (2 + ROUND_UP_WORDS(LARGE_OBJECT_THRESHOLD)) * 8 + 3 * 8;
            continue;
        }
        c = strata_alloc_constr(&EraCell_info);
        STRATA_FIELD(c, 0) = r[0];
        r[0] = c;
        truth[era] += 3 * 8;
        if (i % 7000 == 0)
            strata_perform_gc(0);
    }
    setUserEra(1);
    strata_perform_gc(1);
    Census c;
    census_init(&c);
    census_take(&c, HEAP_BY_ERA, ERA_RANGE_ALL);
    for (StgWord era = 2; era < N_ERAS + 2; era++) {
        char label[24];
        snprintf(label, sizeof label, "%lu", (unsigned long)era);
        const CensusBucket *b = find(&c, label);
        uint64_t got = b != NULL ? b->bytes : 0;
        if (got != truth[era])
            fail_msg("era %lu: census says %lu bytes, the program allocated %lu live",
                     (unsigned long)era, (unsigned long)got, (unsigned long)truth[era]);
    }
    census_free(&c);
    STRATA_ROOTS_POP(r);
}

/* The object model's own closures get GHC's -hT labels: a weak pointer
 * (alive, its key rooted) is WEAK, a partial application PAP, an
 * unevaluated application AP, each at its size. */
static void test_census_labels_weak_pap_ap(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 4);
    r[0] = strata_alloc_constr(&Leaf_info);
    r[1] = strata_mk_weak(r[0], r[0], NULL, NULL);
    r[2] = strata_alloc_fun(&pair_fun_info);
    r[3] = strata_apply(r[2], &r[0], 1);             /* PAP, one argument */
    r[2] = strata_make_ap(r[2], &r[0], 2);           /* AP of two (r[0], r[1]) */
    strata_perform_gc(1);
    Census c;
    census_init(&c);
    census_take(&c, HEAP_BY_CLOSURE_TYPE, ERA_RANGE_ALL);
    assert_non_null(find(&c, "WEAK"));
    assert_int_equal(find(&c, "WEAK")->bytes, sizeof(StgWeak));
    assert_int_equal(find(&c, "PAP")->bytes, sizeof(StgPAP) + 1 * 8);
    assert_int_equal(find(&c, "AP")->bytes, sizeof(StgAP) + 2 * 8);
    census_free(&c);
    STRATA_ROOTS_POP(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_census_by_closure_type, teardown),
        cmocka_unit_test_teardown(test_census_labels_weak_pap_ap, teardown),
        cmocka_unit_test_teardown(test_census_by_info_table_and_provenance, teardown),
        cmocka_unit_test_teardown(test_census_by_era_and_selection, teardown),
        cmocka_unit_test_teardown(test_census_by_era_equals_per_object_truth, teardown),
        cmocka_unit_test_teardown(test_census_total_equals_live_bytes, teardown),
        cmocka_unit_test_teardown(test_census_counted_during_gc_equals_walk, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
