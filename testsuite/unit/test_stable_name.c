/*
 * testsuite/unit/test_stable_name.c -- stable names (rts/StableName.c):
 * the same number for the same object across 1,000 collections, different
 * numbers for different live objects, indirections followed, and the
 * table shrinking as named objects die.  Runs under -A8k -DS.
 */
#include "harness.h"
#include "in_place_rerun.h"

#include "StableName.h"
#include "Storage.h"

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

static void test_stable_name_same_object_same_name_across_1000_gcs(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", "-G2", NULL);
    enum { N = 20 };
    STRATA_ROOTS(r, N);
    StgWord names[N];
    for (int i = 0; i < N; i++) {
        r[i] = mk_int((StgWord)i);
        names[i] = strata_make_stable_name(r[i]);
        assert_true(names[i] >= 1);
        for (int j = 0; j < i; j++)
            assert_true(names[j] != names[i]);
    }
    for (int gc = 0; gc < 1000; gc++) {
        for (int k = 0; k < 50; k++)
            (void)mk_int(0);   /* some garbage, so objects move */
        strata_perform_gc(gc % 100 == 99);
        /* Before any lookup: one that found no name would make a new one
         * (the lowest free, which a table forgotten and refilled in the
         * same order would give back unchanged). */
        assert_int_equal(stable_name_count(), N);
        int i = gc % N;
        assert_int_equal(strata_make_stable_name(r[i]), names[i]);
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(strata_make_stable_name(r[i]), names[i]);
    assert_int_equal(stable_name_count(), N);
    STRATA_ROOTS_POP(r);
}

static void test_stable_name_table_shrinks_when_objects_die(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    enum { N = 500 };
    STRATA_ROOTS(r, N);
    for (int i = 0; i < N; i++) {
        r[i] = mk_int((StgWord)i);
        (void)strata_make_stable_name(r[i]);
    }
    assert_int_equal(stable_name_count(), N);
    assert_int_equal(stable_name_table_size(), N);
    StgWord keep = strata_make_stable_name(r[3]);
    for (int i = 0; i < N; i++)
        if (i != 3)
            r[i] = NULL;
    strata_perform_gc(1);
    assert_int_equal(stable_name_count(), 1);
    assert_int_equal(stable_name_table_size(), keep);   /* cut after the live name */
    assert_int_equal(strata_make_stable_name(r[3]), keep);
    /* A new object gets a freed, small name, different from the live one. */
    r[0] = mk_int(1000);
    StgWord fresh = strata_make_stable_name(r[0]);
    assert_true(fresh != keep && fresh <= keep + 1);
    STRATA_ROOTS_POP(r);
}

/* A thunk named before and after evaluation: after, it names its value
 * (indirections are followed). */
static StgClosure *seven_entry(StgClosure **self)
{
    (void)self;
    return mk_int(7);
}
STRATA_THUNK_INFO(seven_info, "seven", 0, 0, seven_entry);

static void test_stable_name_follows_indirections(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_thunk(&seven_info);
    StgWord before = strata_make_stable_name(r[0]);
    r[1] = strata_eval(r[0]);
    StgWord value_name = strata_make_stable_name(r[1]);
    assert_int_equal(strata_make_stable_name(r[0]), value_name);   /* IND followed */
    (void)before;   /* the blackholed thunk's name is freed at the next GC */
    strata_perform_gc(0);
    assert_int_equal(strata_make_stable_name(r[0]), value_name);
    assert_int_equal(strata_make_stable_name(r[1]), value_name);
    STRATA_ROOTS_POP(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_stable_name_same_object_same_name_across_1000_gcs,
                                  in_place_teardown),
        cmocka_unit_test_teardown(test_stable_name_table_shrinks_when_objects_die,
                                  in_place_teardown),
        cmocka_unit_test_teardown(test_stable_name_follows_indirections, in_place_teardown),
    };
    return IN_PLACE_RERUN(tests);
}
