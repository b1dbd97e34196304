/*
 * testsuite/unit/test_nonmoving_pauses.c -- under --nonmoving-gc a
 * collection's reported pause (its request and GC_START, +RTS -s's timer:
 * the collector's observer, sm/GC.h) covers everything it does with the
 * world stopped (Note [Asking before the cycle's step] in sm/GCPlan.c):
 * the sync the mark thread asked for, when a minor collection runs it, is
 * posted between the collection's start and end, and counted by -s as in
 * a collection, not as a sync pause of its own; the groups a sweep beside
 * the program freed, which the collection gives back, are given back
 * after its start; the first collections copy each survivor once, into
 * memory the prefault helper has faulted in.
 * A probe of adaptive aging ages a sample of the nursery, not the whole
 * of it, so that no collection promotes two nurseries' survivors, and a
 * sample that dies young turns aging back on.
 * Counts of what happened between the observer's calls and of what a
 * collection copied or left, never times.  Under -DS.
 */
#include "harness.h"
#include "lists.h"
#include "nonmoving_phases.h"

#include <pthread.h>

#include "GC.h"
#include "GcReport.h"
#include "MBlock.h"
#include "NonMoving.h"
#include "Nursery.h"
#include "Prefault.h"
#include "Tenure.h"

/* What the collector told its observer on the test's thread (the mark
 * thread's calls are left out), each with the sweep's groups not yet
 * given back at that moment: 'S' a collection's start, 'E' its end,
 * 'b' / 'e' a sync's begin and end. */
enum { SEEN_MAX = 64 };
static char seen[SEEN_MAX + 1];
static StgWord seen_unfreed[SEEN_MAX];
static unsigned n_seen;
static pthread_t test_thread;

static void see(char what)
{
    if (!pthread_equal(pthread_self(), test_thread) || n_seen == SEEN_MAX)
        return;
    seen_unfreed[n_seen] = nonmoving_unfreed_blocks();
    seen[n_seen++] = what;
    seen[n_seen] = '\0';
}

/* The runtime's own observer is told too, so that -s counts as ever. */
static void seen_start(unsigned gc_threads)
{
    see('S');
    gc_report_observer.start(gc_threads);
}

static void seen_end(const GCDetails *d)
{
    see('E');
    gc_report_observer.end(d);
}

static void seen_nonmoving(NonMovingEvent event, uint64_t marked)
{
    if (event == NONMOVING_EVENT_SYNC_BEGIN)
        see('b');
    else if (event == NONMOVING_EVENT_SYNC_END)
        see('e');
    gc_report_observer.nonmoving(event, marked);
}

static const GCObserver recorder = {seen_start, NULL, seen_end, seen_nonmoving};

static void start_recording(void)
{
    test_thread = pthread_self();
    n_seen = 0;
    seen[0] = '\0';
    gc_set_observer(&recorder);
}

/* Grows the generation with lists hung on *ballast (a rooted slot) until
 * a collection has taken a snapshot and started a concurrent cycle. */
static void start_cycle(StgClosure **ballast)
{
    *ballast = &Nil_closure;
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE; i++) {
        assert_true(i < 10000000);
        *ballast = cons_int((StgWord)i, ballast);
    }
    *ballast = NULL;
}

/* Until the running cycle is in phase, allocating garbage. */
static void run_until_phase(NonMovingPhase phase)
{
    for (long i = 0; nonmoving_phase_now() != phase; i++) {
        assert_true(i < 100000000);
        (void)mk_int((StgWord)i);
    }
}

/* The mark ends while the program is idle and asks for the sync; a minor
 * collection comes before any slow path runs it, and runs it in its own
 * pause.  Before, the sync's events came before the collection's start
 * ("beSE"), and strata-events pauses counted two pauses where the program
 * stopped once. */
static void test_a_sync_a_minor_collection_runs_is_inside_its_pause(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = mk_list(0, 20000);
    strata_perform_gc(1);
    nonmoving_hold(NONMOVING_MARKING);
    start_cycle(&r[1]);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    nonmoving_hold(NONMOVING_IDLE);
    idle_while_phase(NONMOVING_MARKING);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_SYNC_WANTED);
    const NonMovingStats *st = nonmoving_stats();
    uint64_t own = st->syncs, in_gcs = st->syncs_in_gcs;
    start_recording();
    strata_perform_gc(0);
    assert_string_equal(seen, "SbeE");
    assert_int_equal(st->syncs, own);
    assert_int_equal(st->syncs_in_gcs, in_gcs + 1);
    check_list(r[0], 0, 20000);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A sweep beside the program frees 200 dead large byte arrays
 * while the program waits; the next minor collection gives a budget of
 * their groups back after its start.  Before, it gave them back before
 * (the same count of groups listed at its start as at its end). */
static void test_a_minor_collection_gives_the_sweeps_groups_back_inside_its_pause(void **state)
{
    (void)state;
    enum { N = 200 };
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    assert_true(sweep_dead_large_groups(r, N, start_cycle, run_until_phase) >= 2 * N);
    start_recording();
    strata_perform_gc(0);
    assert_string_equal(seen, "SE");
    assert_true(seen_unfreed[0] >= 2 * N);
    assert_true(seen_unfreed[1] < seen_unfreed[0]);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* The first minor collections promote their survivors straight into the
 * generation (Note [Adaptive aging] in sm/Tenure.h), so the second copies
 * only its own survivors.  Before, the first aged its survivors in
 * generation 0 and the second copied them into the generation beside its
 * own: twice the copying, msgbuf's longest pause. */
static void test_the_first_collections_copy_each_survivor_once(void **state)
{
    (void)state;
    enum { N = 2000 };
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = mk_list(0, N);
    strata_perform_gc(0);
    assert_int_equal(Bdescr(r[0])->gen_no, storage_n_gens - 1);
    StgWord list_bytes = gc_last_details()->copied_bytes;
    assert_true(list_bytes >= N * 3 * sizeof(StgWord));
    r[1] = mk_list(0, N);
    strata_perform_gc(0);
    assert_int_equal(Bdescr(r[1])->gen_no, storage_n_gens - 1);
    assert_true(gc_last_details()->copied_bytes < list_bytes + list_bytes / 2);
    check_list(r[0], 0, N);
    check_list(r[1], 0, N);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* The window is asked for two -A1m nurseries above the bump index.  How
 * much of it is committed at a given moment depends on the helper: a
 * populate call in flight holds back all but half of the window
 * (Note [The helper never holds up the program] in sm/block/Prefault.c),
 * so only that half is certain; asking for the committed whole failed
 * now and then in the debug build. */
static void assert_window_leads_by_two_nurseries(void)
{
    StgWord wanted = mblock_prefault_wanted();
    assert_true(wanted >= 2);
    assert_true(mblock_prefault_ahead() >= wanted / 2);
}

/* The prefault helper faults in what the first minor collections
 * promote before they run (Note [Sizing the prefault window] in
 * sm/Policy.c): two nurseries' worth ahead from the start, where the
 * copying collector's lead is nothing below a 16 MiB heap.  Before, the
 * first collections took a page fault for each page they promoted into. */
static void test_the_generation_is_faulted_in_ahead_from_the_start(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "--prefault=always", "-A1m", "-DS", NULL);
    if (!prefault_running()) {
        hs_exit();
        skip();   /* a kernel without MADV_POPULATE_WRITE */
    }
    assert_window_leads_by_two_nurseries();
    STRATA_ROOTS(r, 1);
    r[0] = mk_list(0, 10000);   /* 480 KB to promote */
    strata_perform_gc(0);
    assert_window_leads_by_two_nurseries();
    check_list(r[0], 0, 10000);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Note [A probe that ages a sample] (sm/Tenure.c): a list that grows
 * through 60 collections, all of whose nursery survives, is promoted
 * directly, and a probe of adaptive aging (every 16th collection) ages
 * the survivors of a quarter of the nursery only: after no collection do
 * generation 0's aging blocks hold more than that.  The collection after
 * a probe measures the sample surviving, so aging stays off.  Before, a
 * probe aged the whole nursery, and the collection after the next
 * promoted a nursery's survivors twice over. */
static void test_a_probe_of_aging_ages_a_sample_of_the_nursery(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    const StgWord sample_words = storage_nursery_largest_blocks() / 4 * BLOCK_SIZE_W;
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    StgWord gcs = storage_gens[0].collections, seen_gcs = 0, probes = 0, most_aged = 0;
    for (StgWord i = 0; seen_gcs < 60; i++) {
        r[0] = cons_int(i, &r[0]);
        if (storage_gens[0].collections == gcs)
            continue;
        gcs = storage_gens[0].collections;
        seen_gcs++;
        StgWord aged = storage_gens[0].n_words;
        probes += aged > 0;
        if (aged > most_aged)
            most_aged = aged;
    }
    assert_true(probes >= 2);
    assert_true(most_aged <= sample_words);
    assert_false(tenure_aging_enabled());
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Note [A probe that ages a sample] (sm/Tenure.c): a program whose
 * objects die young (lists of 100 dropped as soon as built) leaves a
 * sample too small to measure, which turns aging back on, so that the
 * 40 collections after the first probe promote less than one list into
 * the generation.  Before, such a sample kept direct promotion for good:
 * every collection promoted the list being built. */
static void test_a_probe_of_aging_turns_aging_on_where_the_young_die(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    StgWord gcs = storage_gens[0].collections, seen_gcs = 0, words_at_probe = 0;
    while (seen_gcs < 60) {
        (void)mk_list(0, 100);
        if (storage_gens[0].collections == gcs)
            continue;
        gcs = storage_gens[0].collections;
        seen_gcs++;
        if (seen_gcs == 20)   /* the first probe (16) measured */
            words_at_probe = nonmoving_generation_words();
    }
    StgWord promoted = nonmoving_generation_words() - words_at_probe;
    assert_true(tenure_aging_enabled());
    assert_true(promoted < 100 * 6);   /* one list's words (13,648 before) */
    hs_exit();
}

/* Note [A probe that ages a sample] (sm/Tenure.c): the collection right
 * after a probe measures its sample.  When a snapshot's collection comes
 * between (it promotes the sample and measures nothing), the next minor
 * collection must not take the empty aging blocks for a sample that died
 * and turn aging on.  Before, it did: a cycle starting just after a probe
 * (which the mark thread's speed decides) made the next collection age a
 * whole nursery. */
static void test_a_snapshot_after_a_probe_ends_its_sample(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    for (long i = 0; storage_gens[0].n_words == 0; i++) {   /* until a probe */
        assert_true(i < 64);
        for (StgWord j = 0; j < 200; j++)
            r[0] = cons_int(j, &r[0]);
        strata_perform_gc(0);
    }
    assert_false(tenure_aging_enabled());
    assert_int_equal(nonmoving_phase_now(), NONMOVING_IDLE);   /* too little for a cycle */
    const NonMovingStats *st = nonmoving_stats();
    uint64_t cycles = st->cycles;
    strata_perform_gc(1);   /* the snapshot */
    assert_true(st->cycles > cycles || nonmoving_phase_now() != NONMOVING_IDLE);
    assert_int_equal(storage_gens[0].n_words, 0);
    strata_perform_gc(0);
    assert_false(tenure_aging_enabled());
    STRATA_ROOTS_POP(r);
    hs_exit();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_generation_is_faulted_in_ahead_from_the_start),
        cmocka_unit_test(test_the_first_collections_copy_each_survivor_once),
        cmocka_unit_test(test_a_sync_a_minor_collection_runs_is_inside_its_pause),
        cmocka_unit_test(test_a_minor_collection_gives_the_sweeps_groups_back_inside_its_pause),
        cmocka_unit_test(test_a_probe_of_aging_ages_a_sample_of_the_nursery),
        cmocka_unit_test(test_a_probe_of_aging_turns_aging_on_where_the_young_die),
        cmocka_unit_test(test_a_snapshot_after_a_probe_ends_its_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
