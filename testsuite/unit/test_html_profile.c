/*
 * testsuite/unit/test_html_profile.c -- the report's profile builder
 * (utils/report/Profile.c, Series.c) on synthetic censuses whose
 * statistics are known exactly: integrated size by trapezoids, standard
 * deviation, the least-squares line and R^2, absent bands counting 0,
 * folding of chart bins (sums and counts kept, at most SERIES_BINS), heap
 * maxima, and the marker filters (an include match wins).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "Profile.h"
#include "Series.h"

#define S 1000000000ull   /* one second in ns */

static Band *find(Profile *p, const char *label)
{
    for (size_t i = 0; i < p->n_bands; i++)
        if (strcmp(p->bands[i].label, label) == 0)
            return &p->bands[i];
    return NULL;
}

static void census(Profile *p, uint64_t t, const char *label, uint64_t bytes)
{
    profile_census_begin(p, t);
    if (label != NULL)
        profile_census_sample(p, label, strlen(label), bytes);
    profile_census_end(p);
}

/* y = 100 + 50 t at t = 0..4 s: a perfect line. */
static void test_line_statistics(void **state)
{
    (void)state;
    Profile p;
    profile_init(&p, "synthetic", NULL);
    for (uint64_t t = 0; t <= 4; t++)
        census(&p, t * S, "A", 100 + 50 * t);
    BandStats st;
    profile_band_stats(&p, find(&p, "A"), &st);
    /* Trapezoids: mean of 100 and 300 over 4 s. */
    assert_true(fabs(st.integrated_byte_s - 800.0) < 1e-9);
    assert_true(fabs(st.slope - 50.0) < 1e-6);
    assert_true(fabs(st.intercept - 100.0) < 1e-6);
    assert_int_equal(st.have_fit, 1);
    assert_true(fabs(st.r2 - 1.0) < 1e-9);
    /* Values 100..300 step 50: population variance 5000. */
    assert_true(fabs(st.stddev - sqrt(5000.0)) < 1e-6);
    assert_int_equal(st.last_bytes, 300);
    assert_int_equal(find(&p, "A")->peak_bytes, 300);
    profile_free(&p);
}

/* A band present in one census of three counts 0 in the others. */
static void test_absent_band_counts_zero(void **state)
{
    (void)state;
    Profile p;
    profile_init(&p, "synthetic", NULL);
    census(&p, 0, "A", 10);
    census(&p, 2 * S, "B", 40);
    census(&p, 4 * S, "A", 10);
    BandStats a, b;
    profile_band_stats(&p, find(&p, "A"), &a);
    profile_band_stats(&p, find(&p, "B"), &b);
    /* B: a triangle of height 40 over 4 s. */
    assert_true(fabs(b.integrated_byte_s - 80.0) < 1e-9);
    assert_int_equal(b.last_bytes, 0);
    /* A: 10, 0, 10: two triangles of height 10 over 2 s each. */
    assert_true(fabs(a.integrated_byte_s - 20.0) < 1e-9);
    assert_int_equal(a.last_bytes, 10);
    assert_true(fabs(a.slope) < 1e-9);
    /* mean 20/3 */
    assert_true(fabs(a.mean - 20.0 / 3.0) < 1e-9);
    profile_free(&p);
}

/* Two samples of one label in one census add up; an empty census counts. */
static void test_census_sums_and_constant_band(void **state)
{
    (void)state;
    Profile p;
    profile_init(&p, "synthetic", NULL);
    for (uint64_t t = 1; t <= 3; t++) {
        profile_census_begin(&p, t * S);
        profile_census_sample(&p, "C", 1, 5);
        profile_census_sample(&p, "C", 1, 7);
        profile_census_end(&p);
    }
    BandStats st;
    profile_band_stats(&p, find(&p, "C"), &st);
    assert_int_equal(find(&p, "C")->peak_bytes, 12);
    assert_true(fabs(st.integrated_byte_s - 24.0) < 1e-9);
    assert_true(st.stddev < 1e-6);
    assert_int_equal(st.have_fit, 0);      /* constant: no R^2 */
    census(&p, 4 * S, NULL, 0);
    assert_int_equal(p.n_censuses, 4);
    profile_band_stats(&p, find(&p, "C"), &st);
    assert_int_equal(st.last_bytes, 0);
    profile_free(&p);
}

/* 100000 censuses fold into at most SERIES_BINS bins; the counts survive
 * the folding and each bin keeps the largest and least value of its
 * censuses (1..7 and 1 here, never a mean). */
static void test_html_profile_series_folds(void **state)
{
    (void)state;
    Profile p;
    profile_init(&p, "synthetic", NULL);
    const uint64_t n = 100000;
    for (uint64_t i = 0; i < n; i++)
        census(&p, i * 10000000ull, "A", 1 + i % 7);
    uint64_t count = 0, used = 0;
    const Band *a = find(&p, "A");
    for (size_t i = 0; i < SERIES_BINS; i++) {
        count += p.census_series.count[i];
        if (p.census_series.count[i] == 0)
            continue;
        used++;
        assert_true(a->bins->max[i] == 7.0);
        assert_true(profile_band_bin_min(&p, a, i) == 1.0);
        assert_true(p.census_total_max[i] == 7.0);
    }
    assert_int_equal(count, n);
    assert_true(used >= SERIES_BINS / 2 && used <= SERIES_BINS);
    profile_free(&p);
}

/* Issue 17: one spike among 5000 censuses, and a last census followed by
 * an empty one at the same time (how a .hp file ends), keep their values
 * in the folded bins: the chart's maximum is the table's peak. */
static void test_html_profile_peaks_survive_folding(void **state)
{
    (void)state;
    Profile p;
    profile_init(&p, "synthetic", NULL);
    const uint64_t n = 5000;
    for (uint64_t i = 0; i < n; i++) {
        profile_census_begin(&p, i * 1000000ull);
        profile_census_sample(&p, "Base", 4, 1000);
        if (i == 2501)
            profile_census_sample(&p, "Spike", 5, 500000);
        profile_census_end(&p);
    }
    census(&p, (n - 1) * 1000000ull, NULL, 0);   /* the empty sample at exit */
    const Band *spike = find(&p, "Spike"), *base = find(&p, "Base");
    double spike_max = 0, spike_min_max = 0;
    size_t last = 0;
    for (size_t i = 0; i < SERIES_BINS; i++) {
        if (p.census_series.count[i] == 0)
            continue;
        last = i;
        if (spike->bins->max[i] > spike_max)
            spike_max = spike->bins->max[i];
        double lo = profile_band_bin_min(&p, spike, i);
        if (lo > spike_min_max)
            spike_min_max = lo;
    }
    assert_true(spike_max == (double)spike->peak_bytes);
    assert_true(spike_max == 500000.0);
    assert_true(spike_min_max == 0.0);         /* absent from the spike's neighbours */
    assert_true(base->bins->max[last] == 1000.0);
    assert_true(profile_band_bin_min(&p, base, last) == 0.0);   /* the empty census */
    profile_free(&p);
}

static void test_heap_keeps_maxima(void **state)
{
    (void)state;
    Profile p;
    profile_init(&p, "synthetic", NULL);
    for (uint64_t i = 0; i < 10000; i++)
        profile_heap(&p, HEAP_SERIES_SIZE, i * 1000000ull, i == 5000 ? 999999 : 100);
    double max = 0;
    for (size_t i = 0; i < SERIES_BINS; i++)
        if (p.heap_max[HEAP_SERIES_SIZE][i] > max)
            max = p.heap_max[HEAP_SERIES_SIZE][i];
    assert_true(max == 999999.0);
    assert_int_equal(p.heap_peak[HEAP_SERIES_SIZE], 999999);
    profile_free(&p);
}

static void test_marker_filters(void **state)
{
    (void)state;
    const char *inc[] = { "phase 3" }, *exc[] = { "phase" };
    Filters f = { .include = inc, .n_include = 1, .exclude = exc, .n_exclude = 1,
                  .messages = 1 };
    Profile p;
    profile_init(&p, "synthetic", &f);
    profile_marker(&p, 1, "phase 1", 7, 1);
    profile_marker(&p, 2, "phase 3", 7, 1);
    profile_marker(&p, 3, "other", 5, 0);
    assert_int_equal(p.n_markers, 2);
    assert_string_equal(p.markers[0].text, "phase 3");
    assert_string_equal(p.markers[1].text, "other");
    profile_free(&p);
    Filters none = { .no_traces = 1 };
    profile_init(&p, "synthetic", &none);
    profile_marker(&p, 1, "phase 1", 7, 1);
    assert_int_equal(p.n_markers, 0);
    profile_free(&p);
}

/* Issue 17: traceEvent messages are drawn only with --include-trace-events
 * (as in eventlog2html); traceMarker markers always. */
static void test_html_profile_messages_need_flag(void **state)
{
    (void)state;
    Filters plain = { 0 }, with = { .messages = 1 };
    Profile p;
    profile_init(&p, "synthetic", &plain);
    profile_marker(&p, 1, "a marker", 8, 1);
    profile_marker(&p, 2, "a message", 9, 0);
    assert_int_equal(p.n_markers, 1);
    assert_string_equal(p.markers[0].text, "a marker");
    profile_free(&p);
    profile_init(&p, "synthetic", &with);
    profile_marker(&p, 1, "a marker", 8, 1);
    profile_marker(&p, 2, "a message", 9, 0);
    assert_int_equal(p.n_markers, 2);
    assert_int_equal(p.markers[1].is_marker, 0);
    profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_statistics),
        cmocka_unit_test(test_absent_band_counts_zero),
        cmocka_unit_test(test_census_sums_and_constant_band),
        cmocka_unit_test(test_html_profile_series_folds),
        cmocka_unit_test(test_html_profile_peaks_survive_folding),
        cmocka_unit_test(test_heap_keeps_maxima),
        cmocka_unit_test(test_marker_filters),
        cmocka_unit_test(test_html_profile_messages_need_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
