/*
 * testsuite/unit/test_roots.c -- local-root frames (nesting, chunk
 * overflow and return, survival across GCs, misuse), stable pointers, and
 * the runtime's start-up and shutdown rules.
 */
#include "harness.h"

#include "Roots.h"
#include "Storage.h"

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

static int teardown(void **state)
{
    (void)state;
    hs_exit();
    return 0;
}

/* Recursion that keeps 3 rooted values per level and allocates at every
 * level, far deeper than one 16 KiB stack chunk. */
static StgWord recurse(StgWord depth)
{
    STRATA_ROOTS(r, 3);
    r[0] = mk_int(depth);
    r[1] = mk_int(depth * 2);
    StgWord below = depth == 0 ? 0 : recurse(depth - 1);
    r[2] = mk_int(depth * 3);
    StgWord sum = STRATA_WORD(r[0], 0) + STRATA_WORD(r[1], 0) + STRATA_WORD(r[2], 0);
    STRATA_ROOTS_POP(r);
    return below + sum;
}

static void test_roots_deep_frames_span_chunks(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    StgPtr sp_before = strata_regs.sp;
    StgWord n = 3000;   /* 3000 frames x 5 words: several chunks */
    StgWord want = 6 * (n * (n + 1) / 2);
    for (int round = 0; round < 3; round++)   /* the spare chunk is reused */
        assert_int_equal(recurse(n), want);
    assert_ptr_equal(strata_regs.sp, sp_before);
    assert_ptr_equal(roots_current_stack()->prev, NULL);
}

static void test_roots_frames_record_their_site(void **state)
{
    (void)state;
    harness_start(NULL);
    STRATA_ROOTS(mine, 2);
    StgPtr frame = (StgPtr)mine - ROOT_FRAME_HEADER_WORDS;
    const StgRootSite *site = (const StgRootSite *)frame[0];
    assert_string_equal(site->func, "test_roots_frames_record_their_site");
    assert_non_null(strstr(site->file, "test_roots.c"));
    assert_int_equal(frame[1], 2);
    assert_null(mine[0]);
    assert_null(mine[1]);
    STRATA_ROOTS_POP(mine);
}

static void pop_out_of_order(void)
{
    harness_start(NULL);
    STRATA_ROOTS(outer, 1);
    STRATA_ROOTS(inner, 1);
    (void)inner;
    STRATA_ROOTS_POP(outer);
}

static void test_roots_pop_out_of_order_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(pop_out_of_order, 0, SIGABRT,
                           "local roots popped out of order: the frame pushed in pop_out_of_order");
}

/* A helper that forgets its pop: the error must name the helper's frame
 * (the one at fault) as well as the caller's. */
static void forgetful_helper(void)
{
    STRATA_ROOTS(tmp, 1);
    (void)tmp;
}

static void pop_after_forgetful_helper(void)
{
    harness_start(NULL);
    STRATA_ROOTS(outer, 1);
    forgetful_helper();
    STRATA_ROOTS_POP(outer);
}

static void test_roots_pop_out_of_order_names_the_newest_frame(void **state)
{
    (void)state;
    harness_expect_failure(pop_after_forgetful_helper, 0, SIGABRT,
                           "the frame pushed in pop_after_forgetful_helper");
    harness_expect_failure(pop_after_forgetful_helper, 0, SIGABRT,
                           "is not the newest frame; the newest, pushed in forgetful_helper (");
}

/* hs_exit with frames still pushed says which, newest first, and still
 * shuts down cleanly. */
static void exit_with_frames_pushed(void)
{
    harness_start(NULL);
    STRATA_ROOTS(outer, 1);
    (void)outer;
    forgetful_helper();
    hs_exit();
    fprintf(stderr, "exited cleanly\n");
}

static void test_roots_hs_exit_names_frames_left_pushed(void **state)
{
    (void)state;
    harness_expect_failure(exit_with_frames_pushed, 0, 0,
                           "hs_exit: 2 local-root frames are still pushed (each STRATA_ROOTS "
                           "needs its STRATA_ROOTS_POP), newest first:\n"
                           "unit-test: hs_exit:   pushed in forgetful_helper (");
    harness_expect_failure(exit_with_frames_pushed, 0, 0,
                           "unit-test: hs_exit:   pushed in exit_with_frames_pushed (");
    harness_expect_failure(exit_with_frames_pushed, 0, 0, "exited cleanly");
}

static void roots_before_init(void)
{
    STRATA_ROOTS(r, 1);
    (void)r;
}

static void test_roots_before_hs_init_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(roots_before_init, 0, SIGABRT,
                           "STRATA_ROOTS used before hs_init");
}

static void alloc_before_init(void)
{
    (void)mk_int(1);
}

static void test_roots_alloc_before_hs_init_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(alloc_before_init, 0, SIGABRT, "heap allocation before hs_init");
}

/* ----------------------------------------------------------------------
 * Stable pointers
 * ---------------------------------------------------------------------- */

static void test_roots_stable_ptrs_reuse_and_survive(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    StgStablePtr sps[300];
    for (StgWord i = 0; i < 300; i++)
        sps[i] = getStablePtr(mk_int(i));
    for (StgWord i = 0; i < 300; i += 2)
        freeStablePtr(sps[i]);
    strata_perform_gc(1);
    for (StgWord i = 1; i < 300; i += 2)
        assert_int_equal(STRATA_WORD(deRefStablePtr(sps[i]), 0), i);
    /* Freed entries are reused. */
    StgStablePtr again = getStablePtr(mk_int(999));
    bool reused = false;
    for (StgWord i = 0; i < 300; i += 2)
        reused |= again == sps[i];
    assert_true(reused);
    freeStablePtr(again);
    for (StgWord i = 1; i < 300; i += 2)
        freeStablePtr(sps[i]);
}

static void deref_freed(void)
{
    harness_start(NULL);
    StgStablePtr sp = getStablePtr(mk_int(1));
    freeStablePtr(sp);
    (void)deRefStablePtr(sp);
}

static void test_roots_freed_stable_ptr_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(deref_freed, 0, SIGABRT, "deRefStablePtr: invalid stable pointer");
}

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

static void test_roots_hs_init_nests(void **state)
{
    (void)state;
    harness_start(NULL);
    harness_start(NULL);   /* counted: the first hs_exit keeps it running */
    hs_exit();
    StgClosure *c = mk_int(5);
    assert_int_equal(STRATA_WORD(c, 0), 5);
}

static void exit_without_init(void)
{
    hs_exit();
    exit(3);
}

static void test_roots_hs_exit_without_init_is_reported(void **state)
{
    (void)state;
    harness_expect_failure(exit_without_init, 3, 0, "hs_exit: the runtime is not running");
}

static void test_roots_hs_init_accepts_null_argv(void **state)
{
    (void)state;
    hs_init(NULL, NULL);
    assert_int_equal(STRATA_WORD(mk_int(4), 0), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_roots_deep_frames_span_chunks, teardown),
        cmocka_unit_test_teardown(test_roots_frames_record_their_site, teardown),
        cmocka_unit_test(test_roots_pop_out_of_order_is_reported),
        cmocka_unit_test(test_roots_pop_out_of_order_names_the_newest_frame),
        cmocka_unit_test(test_roots_hs_exit_names_frames_left_pushed),
        cmocka_unit_test(test_roots_before_hs_init_is_reported),
        cmocka_unit_test(test_roots_alloc_before_hs_init_is_reported),
        cmocka_unit_test_teardown(test_roots_stable_ptrs_reuse_and_survive, teardown),
        cmocka_unit_test(test_roots_freed_stable_ptr_is_reported),
        cmocka_unit_test_teardown(test_roots_hs_init_nests, teardown),
        cmocka_unit_test(test_roots_hs_exit_without_init_is_reported),
        cmocka_unit_test_teardown(test_roots_hs_init_accepts_null_argv, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
