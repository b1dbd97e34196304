/*
 * testsuite/unit/test_nonmoving_budget.c -- when the non-moving
 * generation's cycles start (+RTS --nonmoving-gc -F, sm/Policy.c, Note
 * [A cycle's budget from what its mark found live]): a cycle's budget is
 * -F times what the last mark found live, less what the program promoted
 * while that cycle ran, so the generation peaks near -F times its live
 * data instead of growing -F times past everything the cycle left.
 *
 * The program is msgbuf's in small: a window of byte arrays in an old
 * array, each push replacing the oldest.  A cycle starts with its mark
 * held, the program promotes a quarter of the window meanwhile
 * (allocated marked: it survives the cycle), then the cycle runs out with
 * the program idle, so that its figures are counts, not timings.  Every
 * test runs under -DS.
 */
#include "harness.h"

#include <unistd.h>

#include "GC.h"
#include "NonMoving.h"
#include "Policy.h"
#include "Storage.h"

enum {
    WINDOW = 16384,        /* messages live */
    MESSAGE_BYTES = 256,   /* 34 words each */
    DURING = WINDOW / 4,   /* messages promoted while a cycle marks */
    NURSERY_WORDS = 64 * 1024 / 8,
    /* Budgets are in blocks: a few blocks of rounding. */
    SLACK_WORDS = 4 * BLOCK_SIZE_W,
};

static StgWord pushes;

static void push(StgClosure **window)
{
    StgClosure *m = strata_alloc_bytes(MESSAGE_BYTES);
    strata_mut_array_write(*window, pushes++ % WINDOW, m);
}

/* The runtime as the pacer's tests run it: msgbuf's window in small
 * under -A64k -F2 -DS, no message pushed yet. */
static void start_msgbuf_runtime(void)
{
    pushes = 0;
    harness_start("--nonmoving-gc", "-A64k", "-F2", "-DS", NULL);
}

/* A full window in *window, and an exact cycle: the window, live. */
static void fill_window(StgClosure **window)
{
    *window = strata_alloc_mut_array(WINDOW);
    for (long i = 0; i < WINDOW; i++)
        push(window);
    strata_perform_gc(1);
}

/* Until the phase is no longer phase, the program idle (no collection). */
static void idle_while_phase(NonMovingPhase phase)
{
    for (long i = 0; nonmoving_phase_now() == phase; i++) {
        assert_true(i < 120000);   /* two minutes */
        usleep(1000);
    }
}

/* Lets the held mark go and the cycle run out with the program idle but
 * for the sync, run by small allocations, and the collection that ends
 * the cycle. */
static void finish_cycle_idle(void)
{
    uint64_t cycles = nonmoving_stats()->cycles;
    nonmoving_hold(NONMOVING_IDLE);
    idle_while_phase(NONMOVING_MARKING);
    for (long i = 0; nonmoving_phase_now() == NONMOVING_SYNC_WANTED; i++) {
        assert_true(i < 1000);
        usleep(1000);
        (void)strata_alloc_bytes(8);   /* the slow path runs the sync */
    }
    idle_while_phase(NONMOVING_SWEEPING);
    strata_perform_gc(0);   /* a minor collection: it ends the cycle */
    assert_int_equal(nonmoving_stats()->cycles, cycles + 1);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_IDLE);
}

/* With -F<factor>: a cycle marks while the program promotes a quarter of
 * the window; the next cycle must start once the generation holds factor
 * x what that mark found live, less what was promoted meanwhile (plus
 * what one collection promotes).  Before, the budget was factor x
 * everything the cycle left (its live data and the quarter window), so
 * the next cycle started at about factor x 1.25 x live. */
static void next_cycle_starts_by_the_live_data(const char *factor_flag, double factor)
{
    pushes = 0;
    harness_start("--nonmoving-gc", "-A64k", factor_flag, "-DS", NULL);
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 1);
    fill_window(&r[0]);
    StgWord live0 = st->last_live_words;
    assert_true(live0 >= (StgWord)WINDOW * (2 + MESSAGE_BYTES / 8));
    assert_int_equal(st->last_allocated_words, 0);

    /* The next cycle, its mark held, then a quarter of a window pushed. */
    nonmoving_hold(NONMOVING_MARKING);
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE; i++) {
        assert_true(i < 100L * WINDOW);
        push(&r[0]);
    }
    /* It started by factor x live0 (nothing was promoted during the
     * exact cycle) and one collection's promotion. */
    assert_true(st->last_start_words <=
                (StgWord)(factor * (double)live0) + SLACK_WORDS + NURSERY_WORDS);
    StgWord before = nonmoving_generation_words();
    for (long i = 0; i < DURING; i++)
        push(&r[0]);
    strata_perform_gc(0);   /* the last of them promoted, the mark still held */
    StgWord promoted = nonmoving_generation_words() - before;
    assert_true(promoted >= (StgWord)DURING * (2 + MESSAGE_BYTES / 8));
    finish_cycle_idle();

    /* The mark found the window live (the messages overwritten after the
     * snapshot were live at it), and the quarter window allocated marked. */
    StgWord live = st->last_live_words, during = st->last_allocated_words;
    assert_true(live >= live0 && live <= live0 + 2 * NURSERY_WORDS);
    assert_true(during >= promoted);
    StgWord goal = (StgWord)(factor * (double)live);
    assert_true(goal > live + during);   /* the cycle need not start at once */
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE; i++) {
        assert_true(i < 100L * WINDOW);
        push(&r[0]);
    }
    /* One collection promotes at most a nursery. */
    assert_true(st->last_start_words <= goal - during + SLACK_WORDS + NURSERY_WORDS);
    assert_true(st->last_start_words + SLACK_WORDS >= goal - during);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Pushes into fresh slots (nothing dies) until the phase is not phase. */
static void grow_while_phase(StgClosure **window, NonMovingPhase phase)
{
    while (nonmoving_phase_now() == phase) {
        assert_true(pushes < WINDOW);
        push(window);
    }
}

/* While the live data grows, the budget the last cycle left is below
 * what the running cycle will find live, and the generation passes it
 * before that cycle ends.  The collection that ends the cycle must
 * decide on the ended cycle's budget: on the old one it started the
 * next cycle at once, and that cycle found the same live data (msgbuf's
 * growth: 6 of 14 cycles at 1 GB). */
static void test_nonmoving_cycle_end_sets_the_budget_first(void **state)
{
    (void)state;
    start_msgbuf_runtime();
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(WINDOW);
    for (long i = 0; i < WINDOW / 4; i++)
        push(&r[0]);
    strata_perform_gc(1);   /* an exact cycle: a quarter window live */
    StgWord live0 = st->last_live_words;

    /* The next cycle starts near 2 x live0, all of it live; its mark is
     * held while an eighth of the window more is promoted. */
    nonmoving_hold(NONMOVING_MARKING);
    grow_while_phase(&r[0], NONMOVING_IDLE);
    StgWord start = st->last_start_words;
    for (long i = 0; i < WINDOW / 8; i++)
        push(&r[0]);
    strata_perform_gc(0);
    assert_true(nonmoving_generation_words() > 2 * live0 + SLACK_WORDS);   /* the old budget */
    finish_cycle_idle();   /* ends with the cycle ended and none started */

    StgWord live = st->last_live_words, during = st->last_allocated_words;
    assert_true(live + SLACK_WORDS >= start);   /* all of it was live */
    /* The next cycle starts at the new budget, not at once. */
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE; i++) {
        assert_true(i < 100L * WINDOW);
        push(&r[0]);
    }
    assert_true(st->last_start_words + SLACK_WORDS >= 2 * live - during);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

static void test_nonmoving_cycle_starts_by_what_the_mark_found_live(void **state)
{
    (void)state;
    next_cycle_starts_by_the_live_data("-F2", 2.0);
}

static void test_nonmoving_cycle_budget_follows_the_factor(void **state)
{
    (void)state;
    next_cycle_starts_by_the_live_data("-F3", 3.0);
}

static unsigned long collections;

static void count_collection(unsigned collected_gen, bool major)
{
    (void)collected_gen, (void)major;
    collections++;
}

/* Collections from a cycle's start to its end when its mark thread never
 * runs.  The cycle starts at its budget, 2L - A and at least L (-F2; L
 * the window, about 575,000 words), and lags from 2.25L (an eighth past
 * the planned peak, 2L): at most 1.25L of promotion, 8,192 words a
 * collection, about 90 collections; the helps' doubling slices then end
 * the mark and the sweep within 10 (27-53 in all, 10 helps, measured).
 * Without the help the cycle never ends. */
#define STARVED_CYCLE_COLLECTIONS 120

/* A cycle ends, and within a bounded number of collections, however
 * seldom its mark thread runs: the collections that find it lagging
 * mark and sweep slices of it themselves (Note [A collection helps a
 * lagging cycle] in sm/NonMoving.c).  Counted, with the thread starved
 * for three cycles of msgbuf's steady state (each push kills the oldest
 * message). */
static void test_nonmoving_a_starved_cycle_ends_by_the_collections_help(void **state)
{
    (void)state;
    start_msgbuf_runtime();
    gc_add_post_hook(count_collection);
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 1);
    fill_window(&r[0]);
    StgWord live = st->last_live_words;
    nonmoving_starve_mark_thread(true);
    for (int k = 0; k < 3; k++) {
        while (nonmoving_phase_now() == NONMOVING_IDLE)
            push(&r[0]);
        uint64_t cycles = st->cycles, helps = st->helps;
        collections = 0;
        while (st->cycles == cycles) {
            assert_true(collections <= STARVED_CYCLE_COLLECTIONS);
            push(&r[0]);
        }
        assert_true(st->helps > helps);
        /* The program promoted less than the live data meanwhile. */
        assert_true(st->last_allocated_words < live);
    }
    nonmoving_starve_mark_thread(false);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A full window in *window, its mark thread starved, and a cycle
 * started by the pushes that follow. */
static void start_starved_cycle(StgClosure **window)
{
    fill_window(window);
    nonmoving_starve_mark_thread(true);
    while (nonmoving_phase_now() == NONMOVING_IDLE)
        push(window);
}

/* A cycle within its plan is not helped before it is late (256
 * collections), however idle its mark thread: with the thread starved and
 * the program promoting nothing, 20 collections leave the mark to it
 * (Note [A collection helps a lagging cycle]); then the thread runs it
 * out. */
static void test_nonmoving_a_cycle_within_its_plan_is_not_helped(void **state)
{
    (void)state;
    start_msgbuf_runtime();
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 1);
    start_starved_cycle(&r[0]);
    /* The window's growth may have been helped (the thread ran then). */
    uint64_t cycles = st->cycles, helps = st->helps;
    for (int i = 0; i < 20; i++)
        strata_perform_gc(0);   /* minor: the nursery holds nothing live */
    assert_int_equal(st->helps, helps);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    nonmoving_starve_mark_thread(false);
    finish_cycle_idle();
    assert_int_equal(st->cycles, cycles + 1);
    assert_int_equal(st->helps, helps);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Collections from a cycle's start to its end when its mark thread never
 * runs and the program promotes nothing: 256 before the cycle is late
 * (HELP_LATE_COLLECTIONS in sm/NonMoving.c), then the pace's doubling
 * slices: the window's mark (about 16,400 entries, 64 stop checks)
 * within 4 collections, its sweep within 6 (265 in all, 10 helps,
 * measured).  Without the late gate the cycle never ends. */
#define LATE_CYCLE_COLLECTIONS 300

/* A cycle that lags in time but not in memory ends by the collections'
 * help: with the thread starved and the program collecting back to back
 * while it promotes nothing (the generation never past its plan), the
 * collections pace the cycle once it is late (Note [A collection helps a
 * lagging cycle]).  Counted. */
static void test_nonmoving_a_late_cycle_ends_by_the_collections_help(void **state)
{
    (void)state;
    start_msgbuf_runtime();
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 1);
    start_starved_cycle(&r[0]);
    uint64_t cycles = st->cycles, helps = st->helps, stw = st->stw_cycles;
    for (unsigned long n = 0; st->cycles == cycles; n++) {
        assert_true(n <= LATE_CYCLE_COLLECTIONS);
        assert_int_equal(policy_cycle_lag(), NONMOVING_ON_PLAN);   /* late, not behind */
        strata_perform_gc(0);   /* minor: the nursery holds nothing live */
    }
    assert_true(st->helps > helps);
    assert_int_equal(st->stw_cycles, stw);   /* paced, not finished whole */
    nonmoving_starve_mark_thread(false);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Pushes while no cycle runs or the running one is lag behind its plan. */
static void push_while_lag(StgClosure **window, NonMovingLag lag)
{
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE || policy_cycle_lag() == lag; i++) {
        assert_true(i < 100L * WINDOW);
        push(window);
    }
}

/* One minor collection after the mark thread has done a first slice's
 * work since the last (HELP_FIRST_SLICE in sm/NonMoving.c: 8 stop
 * checks): a thread that works, short of a pace that doubles. */
static void collect_after_a_slice(void)
{
    nonmoving_ration_mark_thread(8);
    for (long i = 0; nonmoving_mark_thread_has_ration(); i++) {
        assert_true(i < 120000);   /* two minutes */
        usleep(1000);
    }
    strata_perform_gc(0);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);   /* work left */
}

/* A cycle behind its plan whose mark thread works is left to the thread,
 * and helped once far behind (Note [A collection helps a lagging cycle]
 * in sm/NonMoving.c).  With the mark held, the program promotes until the
 * generation is past its plan by an eighth; then the thread does a first
 * slice's work before each of three collections and none helps (a pace
 * doubling from that slice would have helped two); then, the mark held
 * again, the program promotes past a half, and of the next two
 * collections one helps (the first finds the first slice done).
 * Counted. */
static void test_nonmoving_a_lagging_cycle_whose_thread_works_is_left_to_it(void **state)
{
    (void)state;
    start_msgbuf_runtime();
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 1);
    fill_window(&r[0]);
    nonmoving_starve_mark_thread(true);
    nonmoving_hold(NONMOVING_MARKING);
    push_while_lag(&r[0], NONMOVING_ON_PLAN);
    assert_int_equal(policy_cycle_lag(), NONMOVING_BEHIND_PLAN);
    nonmoving_hold(NONMOVING_IDLE);
    uint64_t helps = st->helps;
    for (int i = 0; i < 3; i++)
        collect_after_a_slice();
    assert_int_equal(st->helps, helps);
    nonmoving_hold(NONMOVING_MARKING);
    push_while_lag(&r[0], NONMOVING_BEHIND_PLAN);
    assert_int_equal(policy_cycle_lag(), NONMOVING_FAR_BEHIND_PLAN);
    nonmoving_hold(NONMOVING_IDLE);
    for (int i = 0; i < 2; i++)
        collect_after_a_slice();
    assert_int_equal(st->helps, helps + 1);
    nonmoving_starve_mark_thread(false);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonmoving_cycle_starts_by_what_the_mark_found_live),
        cmocka_unit_test(test_nonmoving_cycle_budget_follows_the_factor),
        cmocka_unit_test(test_nonmoving_cycle_end_sets_the_budget_first),
        cmocka_unit_test(test_nonmoving_a_starved_cycle_ends_by_the_collections_help),
        cmocka_unit_test(test_nonmoving_a_cycle_within_its_plan_is_not_helped),
        cmocka_unit_test(test_nonmoving_a_late_cycle_ends_by_the_collections_help),
        cmocka_unit_test(test_nonmoving_a_lagging_cycle_whose_thread_works_is_left_to_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
