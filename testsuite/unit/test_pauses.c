/*
 * testsuite/unit/test_pauses.c -- the pauses of a run and their figures
 * (reader/Pauses.c): which events open and close a pause, in strata's
 * order and in GHC 9.10's -N2 order (a late GC_END, doubled sync events,
 * capabilities' events read block by block), and the worst pause,
 * percentiles and minimum mutator utilisation against hand-worked values
 * and, for MMU, against a brute-force scan of every window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "Pauses.h"

#define MS UINT64_C(1000000)

/* Feeds one event: type at time t (ns) in cap's buffer (-1: global). */
static void feed(PauseLog *pl, uint16_t type, uint64_t t, int cap)
{
    EvrEvent ev = {0};
    ev.type = type;
    ev.time_ns = t;
    ev.cap = cap;
    assert_true(pause_log_add(pl, &ev));
}

/* A strata collection: request, global sync, start at t0; end at t1. */
static void strata_gc(PauseLog *pl, uint64_t t0, uint64_t t1)
{
    feed(pl, EVENT_REQUEST_SEQ_GC, t0, 0);
    feed(pl, EVENT_GC_GLOBAL_SYNC, t0, 0);
    feed(pl, EVENT_GC_START, t0, 0);
    feed(pl, EVENT_GC_WORK, t0, 0);
    feed(pl, EVENT_GC_END, t1, 0);
    feed(pl, EVENT_HEAP_SIZE, t1, 0);
}

static void assert_pause(const PauseLog *pl, size_t i, uint64_t start, uint64_t end,
                         unsigned kinds)
{
    assert_true(i < pl->n_pauses);
    assert_int_equal(pl->pauses[i].start_ns, start);
    assert_int_equal(pl->pauses[i].end_ns, end);
    assert_int_equal(pl->pauses[i].kinds, kinds);
}

static void assert_mmu(const PauseLog *pl, uint64_t window, double want)
{
    double got = pause_log_mmu(pl, window);
    if (got < want - 1e-12 || got > want + 1e-12)
        fail_msg("MMU at %llu ns: got %.15f, want %.15f", (unsigned long long)window, got, want);
}

static void test_pauses_empty_log_has_no_figures(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 0);
    assert_int_equal(pause_log_span_ns(&pl), 0);
    assert_int_equal(pause_log_paused_ns(&pl), 0);
    assert_int_equal(pause_log_percentile(&pl, 100), 0);
    assert_int_equal(pause_log_worst(&pl), -1);
    assert_true(pause_log_mmu(&pl, MS) < 0);
    pause_log_free(&pl);
}

/* A run from 0 to 100 ms with collections at [10, 12], [50, 55] and
 * [90, 91] ms: every figure worked by hand. */
static void test_pauses_strata_collections_by_hand(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    feed(&pl, EVENT_WALL_CLOCK_TIME, 0, -1);
    strata_gc(&pl, 10 * MS, 12 * MS);
    strata_gc(&pl, 50 * MS, 55 * MS);
    strata_gc(&pl, 90 * MS, 91 * MS);
    feed(&pl, EVENT_HEAP_ALLOCATED, 100 * MS, 0);
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 3);
    assert_pause(&pl, 0, 10 * MS, 12 * MS, PAUSE_GC);
    assert_pause(&pl, 1, 50 * MS, 55 * MS, PAUSE_GC);
    assert_pause(&pl, 2, 90 * MS, 91 * MS, PAUSE_GC);
    assert_int_equal(pause_log_span_ns(&pl), 100 * MS);
    assert_int_equal(pause_log_paused_ns(&pl), 8 * MS);
    assert_int_equal(pause_log_worst(&pl), 1);
    assert_int_equal(pause_log_percentile(&pl, 100), 5 * MS);
    assert_int_equal(pause_log_percentile(&pl, 99), 5 * MS);   /* rank ceil(2.97) = 3 */
    assert_int_equal(pause_log_percentile(&pl, 50), 2 * MS);   /* rank ceil(1.5) = 2 */
    assert_int_equal(pause_log_percentile(&pl, 1), 1 * MS);
    assert_mmu(&pl, 1 * MS, 0.0);               /* inside the 5 ms pause */
    assert_mmu(&pl, 10 * MS, 0.5);              /* [45, 55]: the whole 5 ms */
    assert_mmu(&pl, 50 * MS, 1.0 - 7.0 / 50);   /* [5, 55]: 2 + 5 ms */
    assert_mmu(&pl, 100 * MS, 0.92);            /* the whole run */
    assert_true(pause_log_mmu(&pl, 101 * MS) < 0);   /* no window fits */
    assert_true(pause_log_mmu(&pl, 0) < 0);
    pause_log_free(&pl);
}

/* GHC 9.10.3 at -N2, as in a real log (times in us, read block by block:
 * all of cap 0's events, then cap 1's).  Cap 0 asks at 264624 and waits
 * for cap 1 until 306581; cap 0 ends the collection at 307138 and runs;
 * it asks again at 309551, and only then does cap 1's GC_END of the first
 * collection come, at 309561: that end belongs to the first collection
 * and must neither close the second nor extend the first. */
static void test_pauses_ghc_late_worker_end_is_not_a_restart(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    const uint64_t us = 1000;
    feed(&pl, EVENT_REQUEST_PAR_GC, 264624 * us, 0);
    feed(&pl, EVENT_GC_START, 306599 * us, 0);
    feed(&pl, EVENT_GC_END, 307138 * us, 0);
    feed(&pl, EVENT_REQUEST_PAR_GC, 309551 * us, 0);
    feed(&pl, EVENT_GC_START, 310547 * us, 0);
    feed(&pl, EVENT_GC_END, 380368 * us, 0);
    feed(&pl, EVENT_GC_START, 306581 * us, 1);
    feed(&pl, EVENT_GC_END, 309561 * us, 1);
    feed(&pl, EVENT_GC_START, 309563 * us, 1);
    feed(&pl, EVENT_GC_END, 380383 * us, 1);
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 2);
    assert_pause(&pl, 0, 264624 * us, 307138 * us, PAUSE_GC);
    assert_pause(&pl, 1, 309551 * us, 380368 * us, PAUSE_GC);
    assert_int_equal(pause_log_percentile(&pl, 100), 70817 * us);
    pause_log_free(&pl);
}

/* A capability that joins a collection without asking for it (GHC's idle
 * GC, a worker) opens the pause at its GC_START. */
static void test_pauses_start_without_request_opens(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    feed(&pl, EVENT_GC_START, 741 * MS, 1);
    feed(&pl, EVENT_GC_START, 743 * MS, 0);
    feed(&pl, EVENT_GC_END, 744 * MS, 0);
    feed(&pl, EVENT_GC_END, 745 * MS, 1);
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 1);
    assert_pause(&pl, 0, 741 * MS, 744 * MS, PAUSE_GC);
    pause_log_free(&pl);
}

/* GHC's non-moving sync: each event posted twice, in the global buffer;
 * a collection inside it makes one pause of both kinds, and a sync alone
 * one of its own.  The concurrent mark and sweep are not pauses. */
static void test_pauses_nonmoving_sync_counts_and_merges(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    feed(&pl, EVENT_CONC_MARK_BEGIN, 1 * MS, -1);
    feed(&pl, EVENT_CONC_MARK_END, 30 * MS, -1);
    feed(&pl, EVENT_CONC_SYNC_BEGIN, 40 * MS, -1);
    feed(&pl, EVENT_CONC_SYNC_BEGIN, 40 * MS + 300, -1);
    feed(&pl, EVENT_CONC_SYNC_END, 57 * MS, -1);
    feed(&pl, EVENT_CONC_SYNC_END, 57 * MS + 200, -1);
    feed(&pl, EVENT_CONC_SWEEP_BEGIN, 58 * MS, -1);
    feed(&pl, EVENT_CONC_SYNC_BEGIN, 100 * MS, -1);
    feed(&pl, EVENT_CONC_SYNC_BEGIN, 100 * MS + 100, -1);
    feed(&pl, EVENT_CONC_SYNC_END, 104 * MS, -1);
    feed(&pl, EVENT_CONC_SYNC_END, 104 * MS + 100, -1);
    feed(&pl, EVENT_CONC_SWEEP_END, 150 * MS, -1);
    feed(&pl, EVENT_REQUEST_PAR_GC, 102 * MS, 0);
    feed(&pl, EVENT_GC_START, 103 * MS, 0);
    feed(&pl, EVENT_GC_END, 106 * MS, 0);
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 2);
    assert_pause(&pl, 0, 40 * MS, 57 * MS, PAUSE_SYNC);
    assert_pause(&pl, 1, 100 * MS, 106 * MS, PAUSE_GC | PAUSE_SYNC);
    assert_int_equal(pause_log_span_ns(&pl), 149 * MS);
    pause_log_free(&pl);
}

/* An end with nothing open is ignored; a collection open at the end of the
 * log (the program was killed in it) ends at the last event. */
static void test_pauses_unmatched_ends_and_open_starts(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    feed(&pl, EVENT_GC_END, 5 * MS, 0);
    feed(&pl, EVENT_CONC_SYNC_END, 6 * MS, -1);
    feed(&pl, EVENT_GC_START, 20 * MS, 0);
    feed(&pl, EVENT_HEAP_SIZE, 25 * MS, 0);
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 1);
    assert_pause(&pl, 0, 20 * MS, 25 * MS, PAUSE_GC);
    pause_log_free(&pl);
}

/* Lengths 1..100 ms (fed out of order): p99 is 99, the median 50. */
static void test_pauses_percentiles_by_nearest_rank(void **state)
{
    (void)state;
    PauseLog pl;
    pause_log_init(&pl);
    for (uint64_t k = 0; k < 100; k++) {
        uint64_t len = (k * 37) % 100 + 1;   /* a permutation of 1..100 */
        strata_gc(&pl, k * 1000 * MS, k * 1000 * MS + len * MS);
    }
    assert_true(pause_log_finish(&pl));
    assert_int_equal(pl.n_pauses, 100);
    assert_int_equal(pause_log_percentile(&pl, 100), 100 * MS);
    assert_int_equal(pause_log_percentile(&pl, 99), 99 * MS);
    assert_int_equal(pause_log_percentile(&pl, 50), 50 * MS);
    assert_int_equal(pause_log_paused_ns(&pl), 5050 * MS);
    pause_log_free(&pl);
}

/* MMU against every window of a small run (integer times, so that every
 * breakpoint is an integer and the scan is exact), for random pauses. */
static uint64_t brute_force_paused(const PauseLog *pl, uint64_t a, uint64_t b)
{
    uint64_t total = 0;
    for (size_t i = 0; i < pl->n_pauses; i++) {
        uint64_t s = pl->pauses[i].start_ns > a ? pl->pauses[i].start_ns : a;
        uint64_t e = pl->pauses[i].end_ns < b ? pl->pauses[i].end_ns : b;
        if (e > s)
            total += e - s;
    }
    return total;
}

static void test_pauses_mmu_matches_brute_force(void **state)
{
    (void)state;
    const char *env = getenv("STRATA_TEST_SEED");
    unsigned seed = env != NULL ? (unsigned)strtoul(env, NULL, 0) : 20250501u;
    printf("test_pauses_mmu_matches_brute_force: seed=%u (set STRATA_TEST_SEED to repeat)\n",
           seed);
    srand(seed);
    for (int round = 0; round < 200; round++) {
        PauseLog pl;
        pause_log_init(&pl);
        uint64_t t = (uint64_t)(rand() % 20);
        feed(&pl, EVENT_WALL_CLOCK_TIME, t, -1);
        int n = rand() % 12;
        for (int k = 0; k < n; k++) {
            t += (uint64_t)(rand() % 40);   /* 0: a pause that touches the last */
            uint64_t len = (uint64_t)(rand() % 30);
            int cap = rand() % 2;
            feed(&pl, EVENT_GC_START, t, cap);
            feed(&pl, EVENT_GC_END, t + len, cap);
            t += len;
        }
        uint64_t last = t + (uint64_t)(rand() % 40);
        feed(&pl, EVENT_HEAP_SIZE, last, 0);
        assert_true(pause_log_finish(&pl));
        uint64_t first = pl.first_ns;
        for (uint64_t w = 1; w <= last - first; w++) {
            uint64_t worst = 0;
            for (uint64_t a = first; a + w <= last; a++) {
                uint64_t p = brute_force_paused(&pl, a, a + w);
                worst = p > worst ? p : worst;
            }
            assert_mmu(&pl, w, 1.0 - (double)worst / (double)w);
        }
        pause_log_free(&pl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pauses_empty_log_has_no_figures),
        cmocka_unit_test(test_pauses_strata_collections_by_hand),
        cmocka_unit_test(test_pauses_ghc_late_worker_end_is_not_a_restart),
        cmocka_unit_test(test_pauses_start_without_request_opens),
        cmocka_unit_test(test_pauses_nonmoving_sync_counts_and_merges),
        cmocka_unit_test(test_pauses_unmatched_ends_and_open_starts),
        cmocka_unit_test(test_pauses_percentiles_by_nearest_rank),
        cmocka_unit_test(test_pauses_mmu_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
