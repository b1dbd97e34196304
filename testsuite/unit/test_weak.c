/*
 * testsuite/unit/test_weak.c -- weak pointers and finalizers (strata/Weak.h,
 * sm/Weak.c, rts/Finalizers.c): a value lives exactly as long as its key;
 * a key reachable only through weak values is dead; keys die in the
 * nursery and in the old generation, and young under an older weak; weak
 * chains; finalizers run once, after the GC and never inside it, may
 * allocate and make weaks, and run
 * at hs_exit for the weaks still alive.  Every test runs under -A8k -DS
 * (a GC every few allocations, the sanity checker before and after each),
 * then again with every minor GC promoting the nursery in place
 * (in_place_rerun.h), where a key dropped young dies at the next major GC.
 */
#include "harness.h"
#include "in_place_rerun.h"

#include "GC.h"
#include "Sanity.h"
#include "Storage.h"
#include "Weak.h"

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
STRATA_CONSTR_INFO(Box_info, "Box", 1, 0);

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* Box(x) with x from a rooted slot. */
static StgClosure *mk_box(StgClosure **x)
{
    StgClosure *b = strata_alloc_constr(&Box_info);
    STRATA_FIELD(b, 0) = *x;
    return b;
}

/* Allocates about n words of garbage, enough for several -A8k GCs. */
static void churn(StgWord n)
{
    for (StgWord i = 0; i < n; i += 2)
        (void)mk_int(i);
}

/* Finalizer bookkeeping: how often each finalizer ran, and after how
 * many collections.  Each run also checks the whole heap: inside a GC
 * (from-space still in use, forwarding pointers in it) the check fails. */
static int runs[16];
static StgWord gcs_at_run[16];

static void count_finalizer(void *env)
{
    int i = (int)(intptr_t)env;
    runs[i]++;
    gcs_at_run[i] = storage_gens[0].collections;
    sanity_check_heap("in a finalizer");
}

static void reset_counts(void)
{
    memset(runs, 0, sizeof runs);
}

/* The number of finalizer runs counted in runs[]. */
static int runs_total(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        n += runs[i];
    return n;
}

/* The GC that finds a key that died young: a minor GC.  In the second run
 * (in_place_rerun.h) a minor GC promotes the nursery whole, so nothing
 * young dies there and no finalizer runs; the key dies at the major GC
 * after it, which this adds. */
static void collect_young_garbage(void)
{
    int before = runs_total();
    strata_perform_gc(0);
    if (!gc_last_details()->in_place)
        return;
    assert_int_equal(runs_total(), before);
    strata_perform_gc(1);
}

/* ----------------------------------------------------------------------
 * Liveness
 * ---------------------------------------------------------------------- */

static void test_weak_value_lives_while_key_lives(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 3);
    r[0] = mk_int(1);                 /* key */
    r[1] = mk_int(2);                 /* value, reachable only by the weak */
    r[2] = strata_mk_weak(r[0], r[1], count_finalizer, (void *)0);
    r[1] = NULL;
    for (int i = 0; i < 5; i++) {
        churn(4096);
        strata_perform_gc(i == 4);
        StgClosure *v = strata_deref_weak(r[2]);
        assert_non_null(v);
        assert_int_equal(STRATA_WORD(v, 0), 2);
    }
    assert_int_equal(runs[0], 0);
    STRATA_ROOTS_POP(r);
}

/* The key dies young: in the nursery, at the first GC after it is dropped. */
static void test_weak_key_dies_in_nursery(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(7);
    r[1] = strata_mk_weak(r[0], r[0], count_finalizer, (void *)1);
    assert_ptr_equal(strata_deref_weak(r[1]), r[0]);
    r[0] = NULL;
    collect_young_garbage();
    assert_null(strata_deref_weak(r[1]));
    assert_int_equal(runs[1], 1);
    assert_ptr_equal(r[1]->info, &stg_DEAD_WEAK_info);
    strata_perform_gc(1);
    assert_int_equal(runs[1], 1);   /* exactly once */
    STRATA_ROOTS_POP(r);
}

/* The key is promoted first, so only a major GC can find it dead; the
 * minor GCs before it must keep the value. */
static void test_weak_key_dies_in_old_generation(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", "-G2", NULL);
    reset_counts();
    STRATA_ROOTS(r, 3);
    r[0] = mk_int(10);
    r[1] = mk_int(11);
    r[2] = strata_mk_weak(r[0], r[1], count_finalizer, (void *)2);
    r[1] = NULL;
    strata_perform_gc(1);
    strata_perform_gc(1);
    assert_true(Bdescr(r[0])->gen_no == 1 && Bdescr(r[2])->gen_no == 1);
    r[0] = NULL;
    for (int i = 0; i < 3; i++) {
        churn(2048);
        strata_perform_gc(0);
        assert_non_null(strata_deref_weak(r[2]));   /* minor GCs: the old key lives */
    }
    assert_int_equal(runs[2], 0);
    strata_perform_gc(1);
    assert_null(strata_deref_weak(r[2]));
    assert_int_equal(runs[2], 1);
    STRATA_ROOTS_POP(r);
}

/* A weak reached first from an old object is promoted at once, while its
 * key (a root) and its value age in generation 0: the weak is older than
 * both (Note [Old weaks that point young] in sm/Weak.c).  r[0] is the old
 * mutable variable that holds the weak, r[1] the key; the value holds 51.
 * Under --promote-in-place=always the three are promoted together. */
/* Whether the minor GC that promotes such a weak promotes its key too:
 * promotion in place, or --nonmoving-gc, whose first GCs promote
 * directly (Note [Adaptive aging] in sm/Tenure.h). */
static bool key_promoted_with_weak(void)
{
    return in_place_always() || storage_config.nonmoving;
}

static StgClosure *make_weak_older_than_its_key(StgClosure **r, int fin)
{
    r[0] = strata_alloc_mut_var();
    strata_perform_gc(1);
    strata_perform_gc(1);
    r[1] = mk_int(50);
    r[2] = mk_int(51);
    strata_mut_var_write(r[0], strata_mk_weak(r[1], r[2], count_finalizer, (void *)(intptr_t)fin));
    r[2] = NULL;
    strata_perform_gc(0);
    StgClosure *w = STRATA_MUT_VAR_READ(r[0]);
    if (!key_promoted_with_weak()) {
        assert_int_equal(Bdescr(w)->gen_no, 1);
        assert_int_equal(Bdescr(r[1])->gen_no, 0);
        assert_int_equal(Bdescr(strata_deref_weak(w))->gen_no, 0);
    }
    return w;
}

/* While the young key lives, the minor GCs keep the old weak's value and
 * follow its key as they move; a major GC then finds the key dead. */
static void test_weak_older_than_its_key_keeps_its_young_value(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 3);
    (void)make_weak_older_than_its_key(r, 4);
    for (int i = 0; i < 3; i++) {
        churn(2048);
        strata_perform_gc(0);
        StgClosure *w = STRATA_MUT_VAR_READ(r[0]);
        StgClosure *v = strata_deref_weak(w);
        assert_non_null(v);
        assert_int_equal(STRATA_WORD(v, 0), 51);
        assert_ptr_equal(((StgWeak *)w)->key, r[1]);
    }
    assert_int_equal(runs[4], 0);
    r[1] = NULL;
    strata_perform_gc(1);
    assert_null(strata_deref_weak(STRATA_MUT_VAR_READ(r[0])));
    assert_int_equal(runs[4], 1);
    STRATA_ROOTS_POP(r);
}

/* The young key of an old weak dies at the first minor GC after it is
 * dropped; the weak stays, dead, in its generation. */
static void test_weak_older_than_its_key_dies_young(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 3);
    (void)make_weak_older_than_its_key(r, 3);
    r[1] = NULL;
    collect_young_garbage();
    if (storage_config.nonmoving)
        strata_perform_gc(1);   /* the key was promoted with its weak */
    StgClosure *w = STRATA_MUT_VAR_READ(r[0]);
    assert_int_equal(runs[3], 1);
    assert_ptr_equal(w->info, &stg_DEAD_WEAK_info);
    assert_null(strata_deref_weak(w));
    strata_perform_gc(1);
    assert_int_equal(runs[3], 1);   /* exactly once */
    STRATA_ROOTS_POP(r);
}

/* A key reachable only through its own weak's value is dead (GHC's
 * semantics): the value points back at the key. */
static void test_weak_key_reachable_only_from_own_value_is_dead(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 3);
    r[0] = mk_int(30);
    r[1] = mk_box(&r[0]);             /* value -> key */
    r[2] = strata_mk_weak(r[0], r[1], count_finalizer, (void *)5);
    r[0] = r[1] = NULL;
    collect_young_garbage();
    assert_null(strata_deref_weak(r[2]));
    assert_int_equal(runs[5], 1);
    STRATA_ROOTS_POP(r);
}

/* w1: k -> v1, w2: v1 -> v2 (a value that is the key of another weak).
 * While k lives both values live: v1 through w1, which makes w2's key
 * reachable.  When k dies both die, in the same GC. */
static void test_weak_chain(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 4);
    r[0] = mk_int(43);                /* k */
    r[1] = mk_int(44);                /* v1 */
    r[2] = strata_mk_weak(r[0], r[1], count_finalizer, (void *)8);
    r[3] = mk_int(45);                /* v2 */
    r[3] = strata_mk_weak(r[1], r[3], count_finalizer, (void *)9);
    r[1] = NULL;
    for (int i = 0; i < 3; i++) {
        churn(2048);
        strata_perform_gc(i == 2);
        StgClosure *v1 = strata_deref_weak(r[2]);
        assert_non_null(v1);
        assert_int_equal(STRATA_WORD(v1, 0), 44);
        StgClosure *v2 = strata_deref_weak(r[3]);
        assert_non_null(v2);
        assert_int_equal(STRATA_WORD(v2, 0), 45);
    }
    r[0] = NULL;
    strata_perform_gc(1);   /* k was promoted by the major GC above */
    assert_null(strata_deref_weak(r[2]));
    assert_null(strata_deref_weak(r[3]));
    assert_int_equal(runs[8], 1);
    assert_int_equal(runs[9], 1);
    STRATA_ROOTS_POP(r);
}

/* ----------------------------------------------------------------------
 * Finalizers
 * ---------------------------------------------------------------------- */

/* A finalizer that allocates (enough to collect) and makes a new weak,
 * whose key dies in turn: each runs once, never inside a GC. */
static StgStablePtr made_in_finalizer;

static void allocating_finalizer(void *env)
{
    count_finalizer(env);
    STRATA_ROOTS(r, 1);
    r[0] = mk_int(50);
    churn(4096);                                     /* GCs inside the finalizer */
    StgClosure *w = strata_mk_weak(r[0], r[0], count_finalizer, (void *)11);
    made_in_finalizer = getStablePtr(w);
    STRATA_ROOTS_POP(r);
}

static void test_weak_finalizer_allocates_and_makes_weaks(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    made_in_finalizer = NULL;
    STRATA_ROOTS(r, 1);
    r[0] = strata_mk_weak(mk_int(1), NULL, allocating_finalizer, (void *)10);
    churn(4096);   /* the key dies; the finalizer runs at an allocation */
    if (in_place_always()) {
        /* The minor GCs promoted it: it dies at a major GC. */
        assert_int_equal(runs[10], 0);
        strata_perform_gc(1);
    }
    assert_int_equal(runs[10], 1);
    assert_non_null(made_in_finalizer);
    strata_perform_gc(1);   /* its key, promoted by the GCs inside it, is dead */
    assert_int_equal(runs[11], 1);
    assert_null(strata_deref_weak(deRefStablePtr(made_in_finalizer)));
    freeStablePtr(made_in_finalizer);
    STRATA_ROOTS_POP(r);
}

/* A finalizer that allocates pinned bytes runs from the pinned allocator's
 * slow path (which serves attention requests before it opens a block): the
 * block the finalizer opened must be used or kept, never dropped. */
static StgStablePtr pinned_from_finalizer;
static void pinned_finalizer(void *env)
{
    count_finalizer(env);
    StgClosure *b = strata_alloc_pinned_bytes(100);
    memset(STRATA_BYTES_PTR(b), 0x5a, 100);
    pinned_from_finalizer = getStablePtr(b);
}

static void test_weak_finalizer_allocating_pinned_bytes_keeps_its_block(void **state)
{
    (void)state;
    /* -A1m: no collection right after the finalizer (one would have
     * retired its block and hidden the loss). */
    harness_start("-A1m", "-DS", NULL);
    reset_counts();
    pinned_from_finalizer = NULL;
    STRATA_ROOTS(r, 1);
    r[0] = strata_mk_weak(mk_int(1), NULL, pinned_finalizer, (void *)12);
    for (int i = 0; i < 20000 && runs[12] == 0; i++)
        (void)strata_alloc_pinned_bytes(2000);   /* each fills most of a block */
    assert_int_equal(runs[12], 1);
    strata_perform_gc(1);   /* -DS: every pinned block accounted for */
    StgClosure *b = deRefStablePtr(pinned_from_finalizer);
    for (int i = 0; i < 100; i++)
        assert_int_equal(((uint8_t *)STRATA_BYTES_PTR(b))[i], 0x5a);
    freeStablePtr(pinned_from_finalizer);
    STRATA_ROOTS_POP(r);
}

/* A finalizer that makes its key reachable again is too late: the weak is
 * dead, deref gives NULL, and the finalizer does not run again. */
static StgStablePtr resurrected;
static void resurrecting_finalizer(void *env)
{
    count_finalizer(env);
    resurrected = getStablePtr(mk_int(60));   /* the key's value, anew */
}

static void test_weak_finalizer_resurrecting_key_is_too_late(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(60);
    r[1] = strata_mk_weak(r[0], r[0], resurrecting_finalizer, (void *)12);
    /* The key is kept by a stable pointer the finalizer cannot reach;
     * dropping it and collecting runs the finalizer, which stores a new
     * reachable object where the key was. */
    StgStablePtr key = getStablePtr(r[0]);
    r[0] = NULL;
    freeStablePtr(key);
    collect_young_garbage();
    assert_int_equal(runs[12], 1);
    r[0] = deRefStablePtr(resurrected);
    strata_perform_gc(1);
    assert_null(strata_deref_weak(r[1]));
    assert_int_equal(runs[12], 1);
    freeStablePtr(resurrected);
    STRATA_ROOTS_POP(r);
}

/* The finalizer runs after the collection that found the key dead has
 * returned: not during it, and not later than the next allocation. */
static void test_weak_finalizer_runs_after_the_gc(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 1);
    r[0] = strata_mk_weak(mk_int(1), NULL, count_finalizer, (void *)13);
    StgWord before = storage_gens[0].collections;
    while (runs[13] == 0)
        (void)mk_int(0);
    assert_true(gcs_at_run[13] > before);
    assert_int_equal(weak_n_finalizers_due(), 0);
    STRATA_ROOTS_POP(r);
}

static void test_weak_finalize_by_hand_runs_once(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    reset_counts();
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(70);
    r[1] = strata_mk_weak(r[0], r[0], count_finalizer, (void *)14);
    strata_finalize_weak(r[1]);
    assert_int_equal(runs[14], 1);
    assert_null(strata_deref_weak(r[1]));
    strata_finalize_weak(r[1]);
    r[0] = NULL;
    strata_perform_gc(1);
    assert_int_equal(runs[14], 1);
    STRATA_ROOTS_POP(r);
}

/* Weaks alive at hs_exit have their finalizers run there, once. */
static void exit_finalizer(void *env)
{
    (void)env;
    fprintf(stderr, "finalized at exit\n");
}

static void finalizers_at_exit(void)
{
    harness_start("-A8k", "-DS", NULL);
    StgStablePtr key = getStablePtr(mk_int(80));
    (void)strata_mk_weak(deRefStablePtr(key), NULL, exit_finalizer, NULL);
    hs_exit();
    _exit(0);
}

static void test_weak_finalizers_run_at_exit(void **state)
{
    (void)state;
    harness_expect_failure(finalizers_at_exit, 0, 0, "finalized at exit\n");
}

static void deref_not_a_weak(void)
{
    harness_start(NULL);
    (void)strata_deref_weak(mk_int(1));
}

static void test_weak_deref_checks_the_closure_type(void **state)
{
    (void)state;
    harness_expect_failure(deref_not_a_weak, 0, SIGABRT,
                           "strata_deref_weak: not a weak pointer");
}

enum { N = 200 };
static int fin[N];
static void count_fin(void *env)
{
    fin[(intptr_t)env]++;
}

/* Many weaks over many GCs, keys dying at random (fixed seed): every
 * finalizer runs exactly once, and the live ones keep their values. */
static void test_weak_many_keys_random_deaths(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", "-G3", NULL);
    memset(fin, 0, sizeof fin);
    unsigned seed = 12345;
    printf("seed = %u\n", seed);
    STRATA_ROOTS(keys, N);
    STRATA_ROOTS(weaks, N);
    for (int i = 0; i < N; i++) {
        keys[i] = mk_int((StgWord)i);
        weaks[i] = strata_mk_weak(keys[i], keys[i], count_fin, (void *)(intptr_t)i);
    }
    for (int round = 0; round < 20; round++) {
        for (int k = 0; k < 10; k++) {
            seed = seed * 1103515245u + 12345u;
            keys[(seed >> 16) % N] = NULL;
        }
        churn(1024);
        strata_perform_gc(1);
        for (int i = 0; i < N; i++) {
            StgClosure *v = strata_deref_weak(weaks[i]);
            if (keys[i] != NULL) {
                assert_ptr_equal(v, keys[i]);
                assert_int_equal(STRATA_WORD(v, 0), (StgWord)i);
                assert_int_equal(fin[i], 0);
            } else {
                assert_null(v);
                assert_int_equal(fin[i], 1);
            }
        }
    }
    STRATA_ROOTS_POP(weaks);
    STRATA_ROOTS_POP(keys);
}

/* Weak pointers and stable names hold objects by identity: while one
 * exists, a parallel GC claims every copy (Note [Immutable copies without
 * a claim] in sm/Evac.c), and once none is left it need not. */
static void test_weak_and_stable_names_make_copies_unique(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    assert_false(gc_copies_unique(false));
    assert_true(gc_copies_unique(true));   /* a census GC */
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(1);
    r[1] = strata_mk_weak(r[0], NULL, NULL, NULL);
    assert_true(gc_copies_unique(false));
    r[0] = r[1] = NULL;
    strata_perform_gc(true);
    strata_perform_gc(true);
    assert_false(gc_copies_unique(false));
    r[0] = mk_int(2);
    (void)strata_make_stable_name(r[0]);
    assert_true(gc_copies_unique(false));
    strata_perform_gc(true);
    assert_true(gc_copies_unique(false));   /* its object lives */
    r[0] = NULL;
    strata_perform_gc(true);
    assert_false(gc_copies_unique(false));
    STRATA_ROOTS_POP(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_weak_value_lives_while_key_lives, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_key_dies_in_nursery, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_key_dies_in_old_generation, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_key_reachable_only_from_own_value_is_dead,
                                  in_place_teardown),
        cmocka_unit_test_teardown(test_weak_older_than_its_key_keeps_its_young_value,
                                  in_place_teardown),
        cmocka_unit_test_teardown(test_weak_older_than_its_key_dies_young, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_chain, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_finalizer_allocates_and_makes_weaks, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_finalizer_allocating_pinned_bytes_keeps_its_block,
                                  in_place_teardown),
        cmocka_unit_test_teardown(test_weak_finalizer_resurrecting_key_is_too_late,
                                  in_place_teardown),
        cmocka_unit_test_teardown(test_weak_finalizer_runs_after_the_gc, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_finalize_by_hand_runs_once, in_place_teardown),
        cmocka_unit_test(test_weak_finalizers_run_at_exit),
        cmocka_unit_test(test_weak_deref_checks_the_closure_type),
        cmocka_unit_test_teardown(test_weak_many_keys_random_deaths, in_place_teardown),
        cmocka_unit_test_teardown(test_weak_and_stable_names_make_copies_unique, in_place_teardown),
    };
    return IN_PLACE_RERUN(tests);
}
