/*
 * testsuite/unit/test_nonmoving_census.c -- a heap census under
 * --nonmoving-gc costs no pause of its own (Note [A census from the
 * snapshot] in sm/NonMoving.c): with -hT, -hi and -he, the census a
 * cycle's mark counts beside the program is posted when its mark ends,
 * stamped with the snapshot's moment, and equals, bucket for bucket, the
 * census a collection with the world stopped took of the same heap just
 * before the snapshot, plus the young list made since -- although the program changed the heap between
 * the snapshot and the mark's end (lists dropped and made, variables and
 * array slots written, a large array replaced) -- and no cycle ran in a
 * pause for it.  Under -DS.  And the -i ticks' census budget charges a
 * cycle its work beside the program (..._budget_counts_the_cycle).
 */
#include "harness.h"
#include "lists.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Census.h"
#include "GC.h"
#include "NonMoving.h"
#include "Policy.h"
#include "ProfHeap.h"
#include "os/Clock.h"

/* The censuses posted so far, the last one kept (labels and bytes). */
static Census last;
static uint64_t last_at_ns;
static unsigned n_posted;

static void keep_census(const Census *c, uint64_t at_ns)
{
    census_free(&last);
    last = *c;
    last.buckets = calloc(c->n_buckets + 1, sizeof *last.buckets);
    assert_non_null(last.buckets);
    for (size_t i = 0; i < c->n_buckets; i++) {
        last.buckets[i] = c->buckets[i];
        last.buckets[i].label = strdup(c->buckets[i].label);
        assert_non_null(last.buckets[i].label);
    }
    last.cap_buckets = c->n_buckets + 1;
    last_at_ns = at_ns;
    n_posted++;
}

enum { SLOTS = 64, LEN = 20 };

/* A heap of every kind the census counts: an array of the generation
 * whose even slots hold lists and odd slots variables holding lists,
 * in two eras, a large byte array and pinned byte arrays. */
static void build_heap(StgClosure **r)
{
    r[0] = strata_alloc_mut_array(SLOTS);
    for (StgWord i = 0; i < SLOTS; i++) {
        setUserEra(i < SLOTS / 2 ? 2 : 3);
        r[1] = mk_list(i * LEN, (i + 1) * LEN);
        if (i % 2 == 1) {
            r[2] = strata_alloc_mut_var();
            strata_mut_var_write(r[2], r[1]);
            r[1] = r[2];
        } else if (i % 8 == 0) {
            r[1] = strata_alloc_pinned_bytes(100 + i);
        }
        strata_mut_array_write(r[0], i, r[1]);
    }
    r[1] = strata_alloc_bytes(16384);
    r[2] = NULL;
}

/* With the mark held after the snapshot: drops half the lists, writes
 * new ones into the variables, replaces the large array, and promotes
 * what it made (marked: never counted). */
static void change_the_heap(StgClosure **r)
{
    setUserEra(4);
    for (StgWord i = 0; i < SLOTS; i++) {
        StgClosure *x = strata_mut_array_read(r[0], i);
        if (i % 4 == 0)
            strata_mut_array_write(r[0], i, NULL);
        else if (i % 2 == 1)
            strata_mut_var_write(x, mk_list(0, LEN));
    }
    r[1] = strata_alloc_bytes(20000);
    r[2] = mk_list(0, 500);   /* the young list of the snapshot dropped */
    strata_perform_gc(0);   /* a minor collection: the copies are marked */
    /* Old values swapped, after the minor collection cleaned them: the
     * mark finds the array and these variables dirty. */
    for (StgWord i = 1; i + 2 < SLOTS; i += 4) {
        StgClosure *a = strata_mut_array_read(r[0], i), *b = strata_mut_array_read(r[0], i + 2);
        StgClosure *v = STRATA_MUT_VAR_READ(a);
        strata_mut_var_write(a, STRATA_MUT_VAR_READ(b));
        strata_mut_var_write(b, v);
    }
    strata_mut_array_write(r[0], 0, strata_mut_array_read(r[0], 2));
}

/* Adds n objects of words words and table info, of era era, to the
 * expected census c under breakdown by. */
static void expect_more(Census *c, const char *by, const StgInfoTable *info, uint64_t era,
                        uint64_t n, uint64_t words)
{
    char label[32];
    if (strcmp(by, "-hT") == 0)
        snprintf(label, sizeof label, "%s", info->name);
    else if (strcmp(by, "-hi") == 0)
        snprintf(label, sizeof label, "0x%lx", (unsigned long)(uintptr_t)info);
    else
        snprintf(label, sizeof label, "%lu", (unsigned long)era);
    size_t i = 0;
    while (i < c->n_buckets && strcmp(c->buckets[i].label, label) != 0)
        i++;
    if (i == c->n_buckets) {
        c->buckets = realloc(c->buckets, (c->n_buckets + 1) * sizeof *c->buckets);
        assert_non_null(c->buckets);
        c->buckets[c->n_buckets++] = (CensusBucket){strdup(label), 0, info};
    }
    c->buckets[i].bytes += n * words * WORD_SIZE;
    c->total_bytes += n * words * WORD_SIZE;
    if (strcmp(by, "-he") != 0)
        c->objects += n;
}

static void expect_same_census(const Census *a, const Census *b)
{
    const char *diff = census_first_difference(a, b);
    if (diff == NULL)
        diff = census_first_difference(b, a);
    if (diff != NULL)
        print_error("the censuses differ at %s (%llu bytes of %llu objects vs %llu of %llu)\n",
                    diff, (unsigned long long)a->total_bytes, (unsigned long long)a->objects,
                    (unsigned long long)b->total_bytes, (unsigned long long)b->objects);
    assert_null(diff);
}

static void census_from_the_snapshot_is_exact(const char *by)
{
    harness_start("--nonmoving-gc", by, "-i0", "-A256k", "-DS", NULL);
    prof_heap_set_census_observer(keep_census);
    STRATA_ROOTS(r, 3);
    build_heap(r);
    strata_perform_gc(1);
    strata_perform_gc(1);   /* the old garbage swept: the heap is what lives */
    Census exact = last;    /* taken in that collection's pause */
    memset(&last, 0, sizeof last);
    assert_true(exact.total_bytes > 0);

    /* Young at the snapshot: counted as its collection promotes them. */
    enum { YOUNG = 300 };
    setUserEra(5);
    r[2] = mk_list(0, YOUNG);
    expect_more(&exact, by, &Cons_info, 5, YOUNG, 4);
    expect_more(&exact, by, &Int_info, 5, YOUNG, 2);

    const NonMovingStats *st = nonmoving_stats();
    uint64_t stw = st->stw_cycles, cycles = st->cycles;
    unsigned posted = n_posted;
    nonmoving_hold(NONMOVING_MARKING);
    gc_request_major();
    uint64_t before_snapshot = clock_elapsed_ns();
    strata_perform_gc(0);   /* the snapshot: a major collection, not an exact one */
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    assert_int_equal(n_posted, posted);   /* no census in the snapshot's pause */
    uint64_t changed_at = clock_elapsed_ns();
    change_the_heap(r);
    assert_int_equal(n_posted, posted);

    /* The mark runs with the program idle, so no collection cleans the
     * dirtied objects first: it asks for the sync, which marks (and
     * counts) the values the barrier logged. */
    nonmoving_hold(NONMOVING_IDLE);
    for (long i = 0; nonmoving_phase_now() == NONMOVING_MARKING; i++) {
        assert_true(i < 120000);   /* two minutes */
        usleep(1000);
    }
    assert_int_equal(n_posted, posted);
    for (long i = 0; n_posted == posted; i++) {
        assert_true(i < 100000000);
        (void)mk_list(0, 10);   /* garbage: the sync runs at a slow path */
    }
    assert_int_equal(n_posted, posted + 1);
    assert_int_equal(st->stw_cycles, stw);   /* no cycle in a pause */
    assert_int_equal(st->cycles, cycles);    /* this one's sweep is still to end */
    assert_true(last_at_ns >= before_snapshot && last_at_ns <= changed_at);
    expect_same_census(&last, &exact);
    census_free(&exact);
    census_free(&last);
    STRATA_ROOTS_POP(r);
    prof_heap_set_census_observer(NULL);
    hs_exit();
}

static void test_nonmoving_census_by_closure_type_is_the_snapshots(void **state)
{
    (void)state;
    census_from_the_snapshot_is_exact("-hT");
}

static void test_nonmoving_census_by_info_table_is_the_snapshots(void **state)
{
    (void)state;
    census_from_the_snapshot_is_exact("-hi");
}

static void test_nonmoving_census_by_era_is_the_snapshots(void **state)
{
    (void)state;
    census_from_the_snapshot_is_exact("-he");
}

/* Allocates garbage (the mutator serves -i ticks at its slow path) for
 * ms milliseconds. */
static void churn_for_ms(unsigned ms)
{
    uint64_t end = clock_elapsed_ns() + (uint64_t)ms * 1000000u;
    while (clock_elapsed_ns() < end)
        (void)mk_list(0, 100);
}

/* Note [When a census runs] in profiling/ProfHeap.c: the census budget
 * charges a cycle's work beside the program, not only its snapshot's
 * pause, and a tick that comes while a cycle runs forces no collection.
 * With the mark held a second, -i0.005 ticks come 200 times; each makes
 * a census due, but the budget must not ask for the major collection
 * that would start the next cycle as soon as this one ends (when it
 * counted the snapshot's short pause alone, it did: a cycle at nearly
 * every tick). */
static void test_nonmoving_census_budget_counts_the_cycle(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-hT", "-i0.005", "-A256k", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = mk_list(0, 300000);   /* work for the mark */
    strata_perform_gc(1);
    const NonMovingStats *st = nonmoving_stats();
    nonmoving_hold(NONMOVING_MARKING);
    gc_request_major();
    strata_perform_gc(0);   /* the snapshot */
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    churn_for_ms(1000);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    assert_true(prof_heap_census_gc_wait_ns() == UINT64_MAX);
    prof_heap_set_sampling(false);   /* no tick acts from here on */

    uint64_t cycles = st->cycles;
    nonmoving_hold(NONMOVING_IDLE);
    /* Until the sweep has ended (SWEPT), or a collection has ended the
     * cycle already, the program idle but for the sync's slow path: a
     * cycle that collections helped to its end (Note [A collection helps
     * a lagging cycle] in sm/NonMoving.c: one that lasts 256 of them, as
     * this one did at load 13) leaves the last cycle's cost as it was. */
    for (long i = 0; st->cycles == cycles && nonmoving_phase_now() != NONMOVING_SWEPT; i++) {
        assert_true(i < 300000);   /* five minutes */
        usleep(1000);
        (void)strata_alloc_bytes(8);   /* the sync runs at a slow path */
    }
    strata_perform_gc(0);   /* a minor collection: it ends the cycle if none did */
    assert_int_equal(st->cycles, cycles + 1);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_IDLE);   /* none asked for */

    uint64_t cycle_cpu = nonmoving_last_cycle_cpu_ns();
    assert_true(cycle_cpu > 0);
    assert_true(prof_heap_census_gc_wait_ns() >= 20 * cycle_cpu);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

int main(void)
{
    char dir[] = "/tmp/strata-nonmoving-census-XXXXXX";   /* the .hp files go here */
    if (mkdtemp(dir) == NULL || chdir(dir) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonmoving_census_by_closure_type_is_the_snapshots),
        cmocka_unit_test(test_nonmoving_census_by_info_table_is_the_snapshots),
        cmocka_unit_test(test_nonmoving_census_by_era_is_the_snapshots),
        cmocka_unit_test(test_nonmoving_census_budget_counts_the_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
