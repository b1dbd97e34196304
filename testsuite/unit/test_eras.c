/*
 * testsuite/unit/test_eras.c -- eras in block descriptors: GHC's era API,
 * retiring allocation blocks on an era change, and the collector keeping
 * every object in a block of its birth era through minor and major GCs.
 */
#include "harness.h"

#include "EraRuns.h"
#include "Segment.h"
#include "GC.h"
#include "Storage.h"

/* The era an object lives in: its block's, or its run's in a block of
 * several eras (Note [Blocks of several eras] in sm/block/EraRuns.h). */
static uint64_t object_era(const StgClosure *c)
{
    return heap_object_era(c);
}

/* An object that remembers the era it was born in. */
STRATA_CONSTR_INFO(Born_info, "Born", 1, 1);   /* next, birth era */

static StgClosure *born(StgClosure **next_slot)
{
    StgClosure *c = strata_alloc_constr(&Born_info);
    STRATA_FIELD(c, 0) = *next_slot;
    STRATA_WORD(c, 1) = getUserEra();
    return c;
}

static StgWord objects_checked;
static StgStablePtr chains_sp;   /* a mutable array of chains, one per slot */

/* After every GC: each object's block carries the object's birth era. */
static void check_birth_eras(unsigned gen, bool major)
{
    (void)gen;
    (void)major;
    StgClosure *chains = deRefStablePtr(chains_sp);
    for (StgWord i = 0; i < STRATA_MUT_ARRAY_LEN(chains); i++) {
        for (StgClosure *c = strata_mut_array_read(chains, i); c != NULL; c = STRATA_FIELD(c, 0)) {
            if (object_era(c) != STRATA_WORD(c, 1))
                fail_msg("object %p born in era %lu lives in a block of era %lu (gen %u)",
                         (void *)c, (unsigned long)STRATA_WORD(c, 1),
                         (unsigned long)object_era(c), (unsigned)Bdescr(c)->gen_no);
            objects_checked++;
        }
    }
}

static int teardown(void **state)
{
    (void)state;
    hs_exit();
    return 0;
}

static void test_eras_api_follows_ghc(void **state)
{
    (void)state;
    harness_start(NULL);
    assert_int_equal(getUserEra(), 1);
    setUserEra(7);
    assert_int_equal(getUserEra(), 7);
    assert_int_equal(incrementUserEra(3), 10);
    assert_int_equal(getUserEra(), 10);
    setUserEra(0);
    assert_int_equal(getUserEra(), 0);
}

static void test_eras_change_retires_the_allocation_block(void **state)
{
    (void)state;
    harness_start(NULL);
    STRATA_ROOTS(r, 3);
    r[0] = born(&r[0]);
    setUserEra(2);
    r[1] = born(&r[1]);
    r[2] = strata_alloc_pinned_bytes(16);
    assert_int_equal(object_era(r[0]), 1);
    assert_int_equal(object_era(r[1]), 2);
    assert_int_equal(object_era(r[2]), 2);
    incrementUserEra(1);
    StgClosure *p = strata_alloc_pinned_bytes(16);
    assert_int_equal(object_era(p), 3);
    assert_ptr_not_equal(Bdescr(p), Bdescr(r[2]));
    STRATA_ROOTS_POP(r);
}

/* Many eras, interleaved with minor and major GCs; checked after each GC. */
static void test_eras_objects_keep_their_birth_era(void **state)
{
    (void)state;
    harness_start("-A16k", "-G3", "-DS", NULL);
    objects_checked = 0;
    const StgWord n_chains = 64;
    chains_sp = getStablePtr(strata_alloc_mut_array(n_chains));
    gc_add_post_hook(check_birth_eras);
    srand(12345);
    STRATA_ROOTS(r, 1);
    for (int step = 0; step < 20000; step++) {
        StgWord slot = (StgWord)rand() % n_chains;
        r[0] = strata_mut_array_read(deRefStablePtr(chains_sp), slot);
        StgClosure *c = born(&r[0]);
        strata_mut_array_write(deRefStablePtr(chains_sp), slot, c);
        if (rand() % 50 == 0)
            incrementUserEra(1);
        if (rand() % 400 == 0)
            setUserEra((StgWord)(rand() % 40));   /* back to an old era, or 0 */
        if (rand() % 3000 == 0)
            strata_perform_gc(1);
        if (rand() % 20 == 0)   /* drop a chain: garbage of mixed eras */
            strata_mut_array_write(deRefStablePtr(chains_sp), (StgWord)rand() % n_chains, NULL);
    }
    STRATA_ROOTS_POP(r);
    strata_perform_gc(1);
    assert_true(objects_checked > 10000);
    assert_true(storage_gens[0].collections > 10);
    freeStablePtr(chains_sp);
}

/* Thousands of live eras with a few objects each: most of them live in
 * blocks shared by several eras (Note [Blocks of several eras]).  Objects
 * allocated with the era changing at almost every allocation, some of
 * them large, kept through minor and major GCs and promotion (-G3), under
 * -DS; every object is checked against its birth era after every GC, and
 * the run records must have been used. */
static StgWord blocks_with_runs(void)
{
    StgWord n = 0;
    for (unsigned g = 0; g < storage_n_gens; g++) {
        for (BlockDesc *bd = storage_gens[g].blocks; bd != NULL; bd = bd->link)
            n += bd->n_era_runs > 0;
        for (BlockDesc *bd = storage_gens[g].segments; bd != NULL; bd = bd->link)
            n += ((Segment *)bd->start)->runs != NULL;   /* --nonmoving-gc */
    }
    return n;
}

static void test_eras_thousands_share_blocks_and_keep_their_eras(void **state)
{
    (void)state;
    harness_start("-A16k", "-G3", "-DS", NULL);
    objects_checked = 0;
    const StgWord n_chains = 64, n_eras = 5000;
    chains_sp = getStablePtr(strata_alloc_mut_array(n_chains));
    gc_add_post_hook(check_birth_eras);
    srand(4242);
    StgWord most_runs = 0;
    STRATA_ROOTS(r, 1);
    for (int step = 0; step < 30000; step++) {
        setUserEra(2 + (StgWord)rand() % n_eras);
        StgWord slot = (StgWord)rand() % n_chains;
        r[0] = strata_mut_array_read(deRefStablePtr(chains_sp), slot);
        StgClosure *c = born(&r[0]);
        strata_mut_array_write(deRefStablePtr(chains_sp), slot, c);
        if (step % 1000 == 0) {   /* a large object of this era, checked at once */
            StgClosure *big = strata_alloc_bytes(LARGE_OBJECT_THRESHOLD);
            assert_int_equal(object_era(big), getUserEra());
        }
        if (step % 5000 == 4999) {
            strata_perform_gc(1);
            StgWord n = blocks_with_runs();
            most_runs = n > most_runs ? n : most_runs;
        }
    }
    STRATA_ROOTS_POP(r);
    strata_perform_gc(1);
    assert_true(objects_checked > 100000);
    assert_true(most_runs > 0);   /* shared blocks were made and checked */
    freeStablePtr(chains_sp);
}

/* Eras far from 1 -- a clock's nanoseconds are above 2^60 -- share blocks
 * as small ones do (Note [A run's era is relative to its block's] in
 * sm/block/EraRuns.h).  N live one-object eras in a row from `first`,
 * after a major GC: the blocks they take, every object checked against its
 * era on the way (and by -DS); then dropped and collected. */
static StgWord blocks_for_eras(uint64_t first, StgWord n)
{
    STRATA_ROOTS(r, 1);
    r[0] = NULL;
    for (StgWord i = 0; i < n; i++) {
        setUserEra(first + i);
        r[0] = born(&r[0]);
    }
    strata_perform_gc(1);
    StgWord blocks = 0;
    for (unsigned g = 0; g < storage_n_gens; g++)
        blocks += storage_gens[g].n_blocks + storage_gens[g].n_large_blocks;
    StgWord left = n;
    for (StgClosure *c = r[0]; c != NULL; c = STRATA_FIELD(c, 0)) {
        assert_true(left > 0);
        left--;
        if (object_era(c) != first + left || STRATA_WORD(c, 1) != first + left)
            fail_msg("object %lu of eras from %llu has era %llu", (unsigned long)left,
                     (unsigned long long)first, (unsigned long long)object_era(c));
    }
    assert_int_equal(left, 0);
    r[0] = NULL;
    STRATA_ROOTS_POP(r);
    strata_perform_gc(1);
    return blocks;
}

static void test_eras_large_numbers_share_blocks(void **state)
{
    (void)state;
    harness_start("-DS", NULL);
    const StgWord n = 20000;
    StgWord from_one = blocks_for_eras(1, n);
    const uint64_t firsts[] = { (uint64_t)1 << 48, 1000000000000000000ull, UINT64_MAX - n };
    for (size_t k = 0; k < sizeof firsts / sizeof firsts[0]; k++) {
        StgWord blocks = blocks_for_eras(firsts[k], n);
        print_message("%lu eras from %llu: %lu blocks (from 1: %lu)\n", (unsigned long)n,
                      (unsigned long long)firsts[k], (unsigned long)blocks,
                      (unsigned long)from_one);
        if (blocks > 2 * from_one)
            fail_msg("%lu eras from %llu take %lu blocks, from 1 %lu", (unsigned long)n,
                     (unsigned long long)firsts[k], (unsigned long)blocks,
                     (unsigned long)from_one);
    }
    /* Eras far apart in one block (1 and 2^60 in turn): the far ones get
     * blocks of their own, and every object keeps its era. */
    STRATA_ROOTS(r, 1);
    r[0] = NULL;
    for (StgWord i = 0; i < 2000; i++) {
        setUserEra(i % 2 == 0 ? 1 + i : ((uint64_t)1 << 60) + i);
        r[0] = born(&r[0]);
    }
    strata_perform_gc(1);
    for (StgClosure *c = r[0]; c != NULL; c = STRATA_FIELD(c, 0))
        assert_int_equal(object_era(c), STRATA_WORD(c, 1));
    STRATA_ROOTS_POP(r);
}

static void test_eras_automatic_increment_per_major_gc(void **state)
{
    (void)state;
    harness_start("--automatic-era-increment", NULL);
    assert_int_equal(getUserEra(), 1);
    strata_perform_gc(0);
    assert_int_equal(getUserEra(), 1);   /* minor GCs do not count */
    strata_perform_gc(1);
    assert_int_equal(getUserEra(), 2);
    strata_perform_gc(1);
    assert_int_equal(getUserEra(), 3);
    setUserEra(0);                       /* 0 turns it off (GHC's rule) */
    strata_perform_gc(1);
    assert_int_equal(getUserEra(), 0);
}

/* .inv.block-era on every allocation path, checked at the allocation
 * itself: the era current when strata_alloc_* returns is the era of the
 * block the object lands in, including when that allocation ran the GC
 * whose automatic increment changed the era, and when the ticker asked
 * for a census.  Each major GC here (-G1: every GC is major) advances the
 * era while the nursery is fresh. */
static void check_alloc_era(StgClosure *c, const char *path, int step)
{
    if (object_era(c) != getUserEra())
        fail_msg("%s allocation %d landed in a block of era %lu while era %lu was current",
                 path, step, (unsigned long)object_era(c), (unsigned long)getUserEra());
}

static void test_eras_every_allocation_path_takes_the_current_era(void **state)
{
    (void)state;
    /* Every collection is major at -G1; the non-moving generation needs a
     * young one, so at -G2 a major collection is asked for every 1,000
     * steps. */
    bool nonmoving = harness_nonmoving_rerun();
    harness_start("-A8k", nonmoving ? "-G2" : "-G1", "--automatic-era-increment", "-hT",
                  "-i0.001", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    for (int step = 0; step < 40000; step++) {
        if (nonmoving && step % 1000 == 999)
            strata_perform_gc(1);
        StgClosure *c = born(&r[0]);
        check_alloc_era(c, "small", step);
        r[0] = c;
        if (step % 997 == 0)
            check_alloc_era(strata_alloc_bytes(LARGE_OBJECT_THRESHOLD), "large", step);
        if (step % 1009 == 0)
            check_alloc_era(strata_alloc_pinned_bytes(64), "pinned", step);
        if (step % 500 == 0)
            r[0] = NULL;
    }
    STRATA_ROOTS_POP(r);
    assert_true(getUserEra() > 20);   /* many major GCs advanced it */
}

static void test_eras_no_increment_without_flag(void **state)
{
    (void)state;
    harness_start(NULL);
    strata_perform_gc(1);
    assert_int_equal(getUserEra(), 1);
}

/* Incrementing past the largest era would wrap to 0 ("not counted"): it
 * is refused, said once, and the era stays. */
static void increment_past_the_last_era(void *arg)
{
    (void)arg;
    setUserEra(UINT64_MAX - 1);
    assert_int_equal(incrementUserEra(1), UINT64_MAX);
    assert_int_equal(incrementUserEra(1), UINT64_MAX);
    assert_int_equal(incrementUserEra(5), UINT64_MAX);
    strata_perform_gc(1);   /* the automatic increment stays quiet too */
    assert_int_equal(getUserEra(), UINT64_MAX);
}

static void test_eras_increment_never_wraps(void **state)
{
    (void)state;
    harness_start("--automatic-era-increment", NULL);
    char *err = harness_capture_stderr(increment_past_the_last_era, NULL);
    const char *want = "incrementUserEra: the era cannot pass 18446744073709551615 "
                       "(era=18446744073709551615, by=1); it stays 18446744073709551615\n";
    assert_non_null(strstr(err, want));
    assert_null(strstr(strstr(err, want) + strlen(want), "cannot pass"));   /* said once */
    free(err);
}

/* The automatic increment is the storage manager's own policy
 * (storage_era_after_gc, run by the collector with its world stopped):
 * when it is the first to reach the last era it says so once, in its own
 * name, and the era stays. */
static void gc_at_the_last_era(void *arg)
{
    (void)arg;
    setUserEra(UINT64_MAX - 1);
    strata_perform_gc(1);
    assert_int_equal(getUserEra(), UINT64_MAX);
    strata_perform_gc(1);
    strata_perform_gc(1);
    assert_int_equal(getUserEra(), UINT64_MAX);
}

static void test_eras_automatic_increment_never_wraps(void **state)
{
    (void)state;
    harness_start("--automatic-era-increment", NULL);
    char *err = harness_capture_stderr(gc_at_the_last_era, NULL);
    const char *want = "--automatic-era-increment: the era cannot pass 18446744073709551615 "
                       "(era=18446744073709551615, by=1); it stays 18446744073709551615\n";
    assert_non_null(strstr(err, want));
    assert_null(strstr(strstr(err, want) + strlen(want), "cannot pass"));   /* said once */
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_eras_api_follows_ghc, teardown),
        cmocka_unit_test_teardown(test_eras_increment_never_wraps, teardown),
        cmocka_unit_test_teardown(test_eras_automatic_increment_never_wraps, teardown),
        cmocka_unit_test_teardown(test_eras_change_retires_the_allocation_block, teardown),
        cmocka_unit_test_teardown(test_eras_objects_keep_their_birth_era, teardown),
        cmocka_unit_test_teardown(test_eras_thousands_share_blocks_and_keep_their_eras, teardown),
        cmocka_unit_test_teardown(test_eras_large_numbers_share_blocks, teardown),
        cmocka_unit_test_teardown(test_eras_automatic_increment_per_major_gc, teardown),
        cmocka_unit_test_teardown(test_eras_no_increment_without_flag, teardown),
        cmocka_unit_test_teardown(test_eras_every_allocation_path_takes_the_current_era,
                                  teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
