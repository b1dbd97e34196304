/*
 * testsuite/unit/test_minor_gc.c -- a minor GC costs what is young and
 * what the remembered sets hold, never what the old generation holds
 * (Note [A minor GC costs what is young] in sm/GC.c).  The collector
 * counts the entries of the lists its bookkeeping walks outside the scan
 * (GCDetails.bookkeeping_steps); the same young work costs the same
 * count over an old generation ten times larger, of pinned groups (as
 * bench/workloads/msgbuf keeps its messages), large objects, ordinary
 * blocks and weak pointers, and the count does grow with the remembered
 * set, so it is not blind; with one GC thread and with two (-N2 -qg0).
 * No time is measured.  Sanity checker on (-DS); a 1 MB nursery, so
 * that building the old generation takes tens of collections, not
 * thousands of checked ones.
 */
#include "harness.h"

#include "BlockAlloc.h"
#include "Capability.h"
#include "GC.h"
#include "GCThread.h"
#include "GcReport.h"
#include "NonMoving.h"
#include "Storage.h"
#include "Tenure.h"

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
STRATA_CONSTR_INFO(Pair_info, "Pair", 2, 0);

#define MESSAGE_BYTES 1024
#define LARGE_BYTES 5000     /* over the large-object threshold */
#define YOUNG_LIVE 2000      /* boxes kept before each measured GC, as many dropped */

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}


/* n_old objects kept in one array, each a pinned 1 KiB message, a large
 * byte array, a pair of boxes or a pair of a box and a weak pointer keyed
 * on it by turn, collected until all are in the oldest generation; r[0]
 * is the array. */
static void build_old_generation(StgClosure **r, StgWord n_old)
{
    r[0] = strata_alloc_mut_array(n_old);
    for (StgWord i = 0; i < n_old; i++) {
        StgClosure *obj;
        switch (i % 4) {
        case 0:
            obj = strata_alloc_pinned_bytes(MESSAGE_BYTES);
            break;
        case 1:
            obj = strata_alloc_bytes(LARGE_BYTES);
            break;
        case 2:
            r[1] = mk_int(i);
            obj = strata_alloc_constr(&Pair_info);
            STRATA_FIELD(obj, 0) = r[1];
            STRATA_FIELD(obj, 1) = r[1];
            break;
        default:
            r[1] = mk_int(i);
            r[3] = strata_mk_weak(r[1], r[1], NULL, NULL);
            obj = strata_alloc_constr(&Pair_info);
            STRATA_FIELD(obj, 0) = r[1];
            STRATA_FIELD(obj, 1) = r[3];
            break;
        }
        strata_mut_array_write(r[0], i, obj);
    }
    r[1] = r[3] = NULL;
    strata_perform_gc(1);
    strata_perform_gc(1);
    assert_int_equal(Bdescr(r[0])->gen_no, storage_n_gens - 1);
}

/* The bookkeeping of a copying minor GC after the young work (a list of
 * YOUNG_LIVE boxes in r[3], as many boxes dropped), with n_dirty old
 * mutable variables made to point at young boxes first. */
static StgWord measured_minor_gc(StgClosure **r, StgWord n_dirty)
{
    for (StgWord i = 0; i < n_dirty; i++) {
        StgClosure *mv = strata_mut_array_read(r[2], i);
        strata_mut_var_write(mv, mk_int(i));
    }
    r[3] = NULL;
    for (StgWord i = 0; i < YOUNG_LIVE; i++) {
        r[1] = mk_int(i);
        StgClosure *cell = strata_alloc_constr(&Pair_info);
        STRATA_FIELD(cell, 0) = r[1];
        STRATA_FIELD(cell, 1) = r[3];
        r[3] = cell;
        (void)mk_int(i);   /* garbage */
    }
    strata_perform_gc(0);
    const GCDetails *d = gc_last_details();
    assert_int_equal(d->gen, 0);
    assert_false(d->in_place);
    assert_true(d->copied_bytes >= YOUNG_LIVE * 5 * sizeof(StgWord));
    return d->bookkeeping_steps;
}

/* The count of a minor GC over an old generation of n_old objects, with
 * n_vars old mutable variables of which n_dirty point at young boxes;
 * with par, two GC threads collect generation 0 (-N2 -qg0). */
static StgWord minor_gc_steps(StgWord n_old, StgWord n_vars, StgWord n_dirty, bool par)
{
    if (par)
        harness_start("-A1m", "-DS", "-N2", "-qg0", NULL);
    else
        harness_start("-A1m", "-DS", NULL);
    STRATA_ROOTS(r, 4);
    build_old_generation(r, n_old);
    r[2] = strata_alloc_mut_array(n_vars > 0 ? n_vars : 1);
    for (StgWord i = 0; i < n_vars; i++)
        strata_mut_array_write(r[2], i, strata_alloc_mut_var());
    strata_perform_gc(1);
    /* Adaptive aging afresh (Note [Adaptive aging] in sm/Tenure.h): whether
     * the GC before the measured one aged its survivors, whose blocks the
     * measured GC frees (young work), must not depend on how many GCs
     * building the old generation took (a probe comes every few GCs). */
    tenure_reset();
    (void)measured_minor_gc(r, 0);   /* the first after a major GC */
    StgWord steps = measured_minor_gc(r, n_dirty);
    if (par)
        assert_int_equal(gc_last_details()->gc_threads, 2);
    StgWord old_large = storage_gens[storage_n_gens - 1].n_large_blocks;
    print_message("old objects %lu (large and pinned blocks %lu), dirty %lu: %lu steps\n",
                  (unsigned long)n_old, (unsigned long)old_large, (unsigned long)n_dirty,
                  (unsigned long)steps);
    STRATA_ROOTS_POP(r);
    hs_exit();
    return steps;
}

static void test_minor_gc_steps_stay_flat_as_the_old_generation_grows(void **state)
{
    (void)state;
    StgWord small = minor_gc_steps(1500, 0, 0, false);
    StgWord big = minor_gc_steps(15000, 0, 0, false);
    assert_int_equal(big, small);
}

/* The same with the parallel collector's bookkeeping (its threads' lists
 * merged, its remembered-set items shared out). */
static void test_parallel_minor_gc_steps_stay_flat_as_the_old_generation_grows(void **state)
{
    (void)state;
    StgWord small = minor_gc_steps(1500, 0, 0, true);
    StgWord big = minor_gc_steps(15000, 0, 0, true);
    assert_int_equal(big, small);
}

/* The count is not blind: remembered old objects are walked, and counted. */
static void test_minor_gc_steps_grow_with_the_remembered_set(void **state)
{
    (void)state;
    StgWord clean = minor_gc_steps(300, 5000, 0, false);
    StgWord dirty = minor_gc_steps(300, 5000, 5000, false);
    assert_true(dirty > clean);
}

/* Note [The young-group map] in sm/block/BlockAlloc.h: a block of
 * pointers is not counted as young, so that an old object's megablock
 * reads as old to a minor GC while such a block lies in it.  n is how
 * many blocks of a chain were looked at; each must be of no generation. */
static StgWord blocks_of_pointers(const BlockDesc *chain)
{
    StgWord n = 0;
    for (const BlockDesc *bd = chain; bd != NULL; bd = bd->link, n++)
        assert_int_equal(bd->gen_no, BLOCK_GEN_NO_POINTERS);
    return n;
}

/* The write barrier's and the collector's remembered sets. */
static void test_remembered_sets_are_not_young(void **state)
{
    (void)state;
    harness_start("-A1m", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(2000);
    for (StgWord i = 0; i < 2000; i++)
        strata_mut_array_write(r[0], i, strata_alloc_mut_var());
    strata_perform_gc(1);
    StgWord seen = 0;
    for (int round = 0; round < 3; round++) {
        for (StgWord i = 0; i < 2000; i++)
            strata_mut_var_write(strata_mut_array_read(r[0], i), mk_int(i));
        for (unsigned g = 1; g < storage_n_gens; g++)
            seen += blocks_of_pointers(capabilities[0].mut_lists[g]);
        strata_perform_gc(0);
        for (unsigned g = 0; g < storage_n_gens; g++)
            seen += blocks_of_pointers(storage_gens[g].mut_list);
    }
    assert_true(seen > 0);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Under --nonmoving-gc, each GC thread's lists of the copies it made into
 * the generation, looked at as its scan ends (they are freed after). */
static StgWord nm_lists_seen;

static void look_at_copy_lists(unsigned cap, GCPhase phase)
{
    gc_report_observer.thread_phase(cap, phase);
    if (phase != GC_PHASE_DONE)
        return;
    for (unsigned i = 0; i < gc_threads_max; i++) {
        const NonMovingThread *nm = gc_threads[i]->nm;
        if (nm != NULL)
            nm_lists_seen += blocks_of_pointers(nm->todo) + blocks_of_pointers(nm->todo_full) +
                             blocks_of_pointers(nm->spent);
    }
}

static const GCObserver copy_list_observer = {
    .start = NULL, .thread_phase = look_at_copy_lists, .end = NULL, .nonmoving = NULL,
};

static void test_nonmoving_copy_lists_are_not_young(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    nm_lists_seen = 0;
    gc_set_observer(&copy_list_observer);
    r[0] = NULL;
    for (StgWord i = 0; i < 20000; i++) {
        r[1] = mk_int(i);
        StgClosure *cell = strata_alloc_constr(&Pair_info);
        STRATA_FIELD(cell, 0) = r[1];
        STRATA_FIELD(cell, 1) = r[0];
        r[0] = cell;
    }
    strata_perform_gc(0);
    strata_perform_gc(0);
    gc_set_observer(&gc_report_observer);
    assert_true(nm_lists_seen > 0);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minor_gc_steps_stay_flat_as_the_old_generation_grows),
        cmocka_unit_test(test_parallel_minor_gc_steps_stay_flat_as_the_old_generation_grows),
        cmocka_unit_test(test_minor_gc_steps_grow_with_the_remembered_set),
        cmocka_unit_test(test_remembered_sets_are_not_young),
        cmocka_unit_test(test_nonmoving_copy_lists_are_not_young),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
