/*
 * testsuite/unit/test_alloc_sample.c -- the allocation sampler of
 * sm/alloc/AllocSample.c: exponential gaps with the right mean, samples at
 * the rate the bytes allocated call for, the hook told of the very object
 * the allocation returns, large and pinned objects sampled too, eras and
 * collections in between, and nothing at all when sampling is off.
 * Statistical checks use a fixed seed (each capability's generator is
 * seeded from its number), so each run sees the same samples; the bounds
 * are several standard deviations wide.
 */
#include "harness.h"

#include <math.h>

#include "AllocLimit.h"
#include "EraRuns.h"
#include "GC.h"
#include "Storage.h"

STRATA_CONSTR_INFO(Node_info, "Node", 1, 1);   /* next; a word */

static int teardown(void **state)
{
    (void)state;
    storage_alloc_sample_stop();
    hs_exit();
    return 0;
}

/* What the hook was told. */
static StgWord n_samples, sampled_bytes, n_large, n_pinned;
static StgPtr last_sampled;
static uint64_t last_era;
static AllocSampleKind last_kind;

static void count_sample(const AllocSampleInfo *s)
{
    n_samples++;
    sampled_bytes += s->size_bytes;
    n_large += s->kind == ALLOC_SAMPLE_LARGE;
    n_pinned += s->kind == ALLOC_SAMPLE_PINNED;
    last_sampled = s->obj;
    last_era = s->era;
    last_kind = s->kind;
}

static void reset_counts(void)
{
    n_samples = sampled_bytes = n_large = n_pinned = 0;
    last_sampled = NULL;
}

static void test_alloc_sample_gaps_are_exponential_with_the_rate_as_mean(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    enum { N = 200000 };
    const StgWord rate = 512 * 1024;
    double sum = 0, sum_sq = 0;
    StgWord below_median = 0;
    for (int i = 0; i < N; i++) {
        double g = (double)alloc_sample_gap_words(&rng, rate) * WORD_SIZE;
        sum += g;
        sum_sq += g * g;
        below_median += g < log(2.0) * (double)rate;
    }
    double mean = sum / N, sd = sqrt(sum_sq / N - mean * mean);
    /* An exponential's mean and standard deviation are both the rate
     * (less half a word of flooring); half of it lies below ln 2 times
     * the mean.  Standard errors: rate / sqrt(N), about 0.2%. */
    assert_true(fabs(mean / (double)rate - 1) < 0.01);
    assert_true(fabs(sd / (double)rate - 1) < 0.02);
    assert_true(fabs((double)below_median / N - 0.5) < 0.01);
}

/* Allocates n nodes, keeping none; checks that each sample is the object
 * its allocation returned. */
static void allocate_nodes(StgWord n)
{
    for (StgWord i = 0; i < n; i++) {
        last_sampled = NULL;
        StgClosure *c = strata_alloc_constr(&Node_info);
        STRATA_WORD(c, 1) = i;
        if (last_sampled != NULL) {
            assert_ptr_equal(last_sampled, (StgPtr)c);
            assert_int_equal(last_kind, ALLOC_SAMPLE_NURSERY);
            assert_int_equal(last_era, block_era_at(Bdescr(c), c));
        }
    }
}

static void test_alloc_sample_samples_one_object_per_rate_bytes(void **state)
{
    (void)state;
    harness_start("-A64k", NULL);
    reset_counts();
    const StgWord rate = 16 * 1024;
    storage_alloc_sample_start(rate, count_sample);
    const StgWord n = 2000000;   /* 48 MB of 24-byte nodes */
    allocate_nodes(n);
    /* Each node is sampled with probability 1 - e^(-24/rate): about
     * 2,930 samples, standard deviation 54. */
    double expect = (double)n * -expm1(-24.0 / (double)rate);
    assert_true(fabs((double)n_samples - expect) < 5 * sqrt(expect));
    assert_int_equal(sampled_bytes, n_samples * 24);
}

static void test_alloc_sample_follows_era_changes_and_collections(void **state)
{
    (void)state;
    harness_start("-A8k", NULL);
    reset_counts();
    const StgWord rate = 4096;
    storage_alloc_sample_start(rate, count_sample);
    const StgWord n = 200000;
    for (StgWord k = 0; k < n / 100; k++) {
        allocate_nodes(100);   /* checks each sample's era is its object's */
        incrementUserEra(1);
        if (k % 97 == 0)
            strata_perform_gc(k % 2);
    }
    double expect = (double)n * -expm1(-24.0 / (double)rate);
    assert_true(fabs((double)n_samples - expect) < 5 * sqrt(expect));
}

static void test_alloc_sample_samples_large_and_pinned_objects(void **state)
{
    (void)state;
    harness_start(NULL);
    reset_counts();
    const StgWord rate = 64 * 1024;
    storage_alloc_sample_start(rate, count_sample);
    enum { N = 2000 };
    for (int i = 0; i < N; i++) {
        last_sampled = NULL;
        StgClosure *big = strata_alloc_bytes(64 * 1024 - 16);   /* 64 KiB: large */
        if (last_sampled != NULL) {
            assert_ptr_equal(last_sampled, (StgPtr)big);
            assert_int_equal(last_kind, ALLOC_SAMPLE_LARGE);
        }
    }
    /* A 64 KiB object is sampled with probability 1 - 1/e. */
    assert_true(fabs((double)n_large / N - (1 - exp(-1.0))) < 0.05);
    reset_counts();
    for (int i = 0; i < 50 * N; i++) {
        last_sampled = NULL;
        StgClosure *p = strata_alloc_pinned_bytes(1008);   /* 1 KiB with its header */
        if (last_sampled != NULL) {
            assert_ptr_equal(last_sampled, (StgPtr)p);
            assert_int_equal(last_kind, ALLOC_SAMPLE_PINNED);
        }
    }
    double expect = 50.0 * N * -expm1(-1024.0 / (double)rate);
    assert_true(fabs((double)n_pinned - expect) < 5 * sqrt(expect));
}

/* Off: no sample point, so the limit is the block's own (nothing but the
 * end of the block, or a retired block's hp, sends an allocation to the
 * slow path). */
static void test_alloc_sample_off_leaves_the_limit_alone(void **state)
{
    (void)state;
    harness_start(NULL);
    Capability *cap = capability_mine();
    assert_int_equal(cap->sample_at_words, STGWORD_MAX);
    assert_int_equal(storage_alloc_sample_rate(), 0);
    for (int i = 0; i < 100000; i++) {
        (void)strata_alloc_constr(&Node_info);
        StgPtr lim = STRATA_HP_LIM();
        assert_true(lim == NULL || lim == cap->nursery.lim);
    }
    storage_alloc_sample_start(4096, count_sample);
    storage_alloc_sample_stop();
    assert_int_equal(cap->sample_at_words, STGWORD_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_sample_gaps_are_exponential_with_the_rate_as_mean),
        cmocka_unit_test_teardown(test_alloc_sample_samples_one_object_per_rate_bytes, teardown),
        cmocka_unit_test_teardown(test_alloc_sample_follows_era_changes_and_collections,
                                  teardown),
        cmocka_unit_test_teardown(test_alloc_sample_samples_large_and_pinned_objects, teardown),
        cmocka_unit_test_teardown(test_alloc_sample_off_leaves_the_limit_alone, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
