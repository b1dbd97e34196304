/*
 * testsuite/unit/test_apply.c -- generic application (rts/Eval.c,
 * Note [Partial applications]): partial application builds a PAP,
 * applying a PAP adds to it or completes it, over-saturated calls apply
 * the result to the rest, APs are thunks of an application; PAPs and APs
 * survive collections (scavenged, checked by -DS) and go through thunks.
 * Every test runs under -A8k -DS.
 */
#include "harness.h"

#include "ClosureSize.h"
#include "Storage.h"

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* add3 x y z = x*100 + y*10 + z, allocating enough to collect on the way
 * so that its arguments must be rooted by the caller. */
static StgClosure *add3_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    for (int i = 0; i < 300; i++)
        (void)mk_int(0);
    StgWord v = STRATA_WORD(args[0], 0) * 100 + STRATA_WORD(args[1], 0) * 10 +
                STRATA_WORD(args[2], 0);
    return mk_int(v);
}
STRATA_FUN_INFO(add3_info, "add3", 0, 0, 3, add3_entry);

/* adder n = a function of arity 1 adding n (a closure with one word). */
static StgClosure *add_n_entry(StgClosure **self, StgClosure **args)
{
    StgWord n = STRATA_WORD(*self, 0);
    return mk_int(n + STRATA_WORD(args[0], 0));
}
STRATA_FUN_INFO(add_n_info, "add_n", 0, 1, 1, add_n_entry);

/* make_adder n = adder n: arity 1, returns a function. */
static StgClosure *make_adder_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    StgWord n = STRATA_WORD(args[0], 0);
    StgClosure *f = strata_alloc_fun(&add_n_info);
    STRATA_WORD(f, 0) = n;
    return f;
}
STRATA_FUN_INFO(make_adder_info, "make_adder", 0, 0, 1, make_adder_entry);

/* sum_adder x y = adder (x + y): arity 2, returns a function. */
static StgClosure *sum_adder_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    StgWord n = STRATA_WORD(args[0], 0) + STRATA_WORD(args[1], 0);
    StgClosure *f = strata_alloc_fun(&add_n_info);
    STRATA_WORD(f, 0) = n;
    return f;
}
STRATA_FUN_INFO(sum_adder_info, "sum_adder", 0, 0, 2, sum_adder_entry);

static int teardown(void **state)
{
    (void)state;
    hs_exit();
    return 0;
}

static void test_apply_partial_makes_pap_and_completes(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 5);
    r[0] = strata_alloc_fun(&add3_info);
    r[1] = mk_int(1);
    r[2] = mk_int(2);
    r[3] = mk_int(3);
    r[4] = strata_apply(r[0], &r[1], 1);            /* add3 1 */
    assert_int_equal(r[4]->info->type, PAP);
    assert_int_equal(((StgPAP *)r[4])->arity, 2);
    assert_int_equal(((StgPAP *)r[4])->n_args, 1);
    strata_perform_gc(0);                             /* the PAP moves */
    r[4] = strata_apply(r[4], &r[2], 1);            /* (add3 1) 2 */
    assert_int_equal(r[4]->info->type, PAP);
    assert_int_equal(((StgPAP *)r[4])->n_args, 2);
    assert_ptr_equal(((StgPAP *)r[4])->fun->info, &add3_info);   /* flat, no PAP of PAP */
    strata_perform_gc(1);
    StgClosure *v = strata_apply(r[4], &r[3], 1);   /* ((add3 1) 2) 3 */
    assert_int_equal(STRATA_WORD(v, 0), 123);
    /* The same PAP applied again: a PAP is a value, not consumed. */
    r[3] = mk_int(9);
    v = strata_apply(r[4], &r[3], 1);
    assert_int_equal(STRATA_WORD(v, 0), 129);
    STRATA_ROOTS_POP(r);
}

/* make_adder 5 6: arity 1 applied to two arguments, the result to the
 * second; and a PAP given more arguments than it misses. */
static void test_apply_over_saturated(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 4);
    r[0] = strata_alloc_fun(&make_adder_info);
    r[1] = mk_int(5);
    r[2] = mk_int(6);
    StgClosure *v = strata_apply(r[0], &r[1], 2);
    assert_int_equal(STRATA_WORD(v, 0), 11);
    r[3] = strata_apply(r[0], &r[1], 0);            /* no arguments: the function */
    assert_ptr_equal(r[3], r[0]);
    /* A PAP given more than it misses: (sum_adder 5) 6 1, where
     * sum_adder x y = adder (x + y). */
    r[0] = strata_alloc_fun(&sum_adder_info);
    r[3] = strata_apply(r[0], &r[1], 1);
    assert_int_equal(r[3]->info->type, PAP);
    r[1] = mk_int(6);
    r[2] = mk_int(1);
    v = strata_apply(r[3], &r[1], 2);
    assert_int_equal(STRATA_WORD(v, 0), 12);
    STRATA_ROOTS_POP(r);
}

/* An AP (a thunk of an application) that evaluates to a PAP, survives
 * collections before and after, and an AP of that PAP. */
static void test_apply_pap_in_a_thunk(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 5);
    r[0] = strata_alloc_fun(&add3_info);
    r[1] = mk_int(4);
    r[2] = mk_int(5);
    r[3] = strata_make_ap(r[0], &r[1], 2);          /* thunk: add3 4 5 */
    assert_int_equal(r[3]->info->type, AP);
    for (int i = 0; i < 3; i++)
        strata_perform_gc(i == 2);                    /* the AP survives collections */
    r[4] = strata_eval(r[3]);                         /* a PAP, through the thunk */
    assert_int_equal(r[4]->info->type, PAP);
    assert_int_equal(r[3]->info->type, IND);          /* the AP was updated */
    r[1] = mk_int(6);
    StgClosure *v = strata_apply(r[3], &r[1], 1);   /* via the IND */
    assert_int_equal(STRATA_WORD(v, 0), 456);
    /* An AP of a PAP, evaluated after a major GC, saturates it. */
    r[3] = strata_make_ap(r[4], &r[1], 1);
    strata_perform_gc(1);
    v = strata_eval(r[3]);
    assert_int_equal(STRATA_WORD(v, 0), 456);
    STRATA_ROOTS_POP(r);
}

/* Many PAPs kept across many GCs, scavenged each time: -DS checks every
 * field, the values check that nothing was lost. */
static void test_apply_paps_across_gcs(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", "-G2", NULL);
    enum { N = 50 };
    STRATA_ROOTS(paps, N);
    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_fun(&add3_info);
    for (int i = 0; i < N; i++) {
        r[1] = mk_int((StgWord)i % 10);
        r[2] = mk_int(((StgWord)i + 1) % 10);
        paps[i] = strata_apply(r[0], &r[1], 2);
    }
    for (int i = 0; i < N; i++) {
        r[1] = mk_int(7);
        StgClosure *v = strata_apply(paps[i], &r[1], 1);
        assert_int_equal(STRATA_WORD(v, 0),
                         ((StgWord)i % 10) * 100 + (((StgWord)i + 1) % 10) * 10 + 7);
    }
    STRATA_ROOTS_POP(r);
    STRATA_ROOTS_POP(paps);
}

static void apply_an_int(void)
{
    harness_start(NULL);
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(1);
    r[1] = mk_int(2);
    (void)strata_apply(r[0], &r[1], 1);
}

static void test_apply_non_function_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(apply_an_int, 0, SIGABRT,
                           "strata_apply: not a function (closure type CONSTR_0_1, table Int");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_apply_partial_makes_pap_and_completes, teardown),
        cmocka_unit_test_teardown(test_apply_over_saturated, teardown),
        cmocka_unit_test_teardown(test_apply_pap_in_a_thunk, teardown),
        cmocka_unit_test_teardown(test_apply_paps_across_gcs, teardown),
        cmocka_unit_test(test_apply_non_function_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
