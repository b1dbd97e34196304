/*
 * testsuite/unit/test_chart_bands.c -- which bands the report's charts
 * draw (utils/report/ChartBands.c, Note [Era bands]): every era up to the
 * limit; past it the newest alone and the older ones in ranges of whole
 * multiples of a round width, whose bounds (and so colours) stay as eras
 * come; --bands, --reverse, a label that is not a number; and the top N by
 * size of a profile that is not by era.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <strata/EventLogFormat.h>

#include "ChartBands.h"
#include "ReportJson.h"
#include "Profile.h"
#include "ReportRows.h"

#define S 1000000000ull

/* A profile of n bands "1".."n" (an era profile if era), band k holding k
 * bytes at t = 0 and 1 s, and the label extra too if not NULL. */
static void make_profile(Profile *p, int n, int era, const char *extra)
{
    profile_init(p, "synthetic", NULL);
    if (era)
        p->model.breakdown = HEAP_PROF_BREAKDOWN_ERA;
    for (uint64_t t = 0; t <= 1; t++) {
        profile_census_begin(p, t * S);
        for (int k = 1; k <= n; k++) {
            char label[16];
            int len = snprintf(label, sizeof label, "%d", k);
            profile_census_sample(p, label, (size_t)len, (uint64_t)k);
        }
        if (extra != NULL)
            profile_census_sample(p, extra, strlen(extra), 1000);
        profile_census_end(p);
    }
}

typedef struct {
    Profile p;
    Row *rows;
    Key *keys;
    size_t n_keys;
    ChartPlan plan;
} Fixture;

static void plan(Fixture *f, int n, int era, const char *extra, long bands, ReportSort sort,
                 int reverse)
{
    make_profile(&f->p, n, era, extra);
    f->rows = report_rows_make(&f->p);
    assert_non_null(f->rows);
    size_t n_rows = f->p.n_bands;
    f->keys = report_keys_make(&f->rows, &n_rows, 1, &f->n_keys);
    assert_non_null(f->keys);
    assert_int_equal(chart_plan_make(&f->plan, f->keys, f->n_keys, bands, era, sort, reverse), 0);
}

static void done(Fixture *f)
{
    chart_plan_free(&f->plan);
    free(f->keys);
    report_rows_free(f->rows, f->p.n_bands);
    profile_free(&f->p);
}

/* The plan's band names joined by ",". */
static const char *names(const Fixture *f)
{
    static char buf[4096];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < f->plan.n_bands && o < sizeof buf; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? "," : "",
                              f->plan.bands[i].name);
    return buf;
}

static void test_chart_bands_every_era_up_to_the_limit(void **state)
{
    (void)state;
    Fixture f;
    plan(&f, 21, 1, NULL, REPORT_BANDS_AUTO, REPORT_SORT_NUMBER, 0);
    assert_int_equal(f.plan.limit, REPORT_ERA_BANDS);
    assert_int_equal(f.plan.n_bands, 21);
    assert_string_equal(names(&f), "era 1,era 2,era 3,era 4,era 5,era 6,era 7,era 8,era 9,"
                                   "era 10,era 11,era 12,era 13,era 14,era 15,era 16,era 17,"
                                   "era 18,era 19,era 20,era 21");
    for (size_t i = 0; i < f.n_keys; i++)
        assert_true(f.keys[i].band >= 0);   /* nothing in OTHER */
    done(&f);
}

/* 400 eras: the newest 40 alone, eras 1-360 in ranges of 50 (20 would
 * need 18 of them, more than 10), the last cut at 360; colours are the
 * ranges' first eras. */
static void test_chart_bands_old_eras_in_ranges(void **state)
{
    (void)state;
    Fixture f;
    plan(&f, 400, 1, NULL, REPORT_BANDS_AUTO, REPORT_SORT_NUMBER, 0);
    assert_int_equal(f.plan.n_bands, 48);
    assert_string_equal(f.plan.bands[0].name, "eras 1\u201350");
    assert_string_equal(f.plan.bands[7].name, "eras 351\u2013360");
    assert_string_equal(f.plan.bands[8].name, "era 361");
    assert_string_equal(f.plan.bands[47].name, "era 400");
    assert_int_equal(f.plan.bands[1].color, 51);
    assert_int_equal(f.plan.bands[1].n, 50);
    assert_int_equal(f.plan.bands[7].n, 10);
    /* The key of era 75 is drawn in "eras 51–100", in its colour. */
    for (size_t i = 0; i < f.n_keys; i++)
        if (strcmp(f.keys[i].name, "era 75") == 0) {
            assert_string_equal(chart_plan_band_name(&f.plan, &f.keys[i]), "eras 51\u2013100");
            assert_int_equal(chart_plan_color(&f.plan, &f.keys[i]), 51);
        }
    done(&f);
}

/* A new era moves the oldest lone era into the last range; the ranges
 * before keep their bounds and colours until the width must grow. */
static void test_chart_bands_ranges_keep_their_bounds(void **state)
{
    (void)state;
    Fixture a, b;
    plan(&a, 100, 1, NULL, REPORT_BANDS_AUTO, REPORT_SORT_NUMBER, 0);
    plan(&b, 101, 1, NULL, REPORT_BANDS_AUTO, REPORT_SORT_NUMBER, 0);
    static const char ranges[] = "eras 1\u201310,eras 11\u201320,eras 21\u201330,eras 31\u201340,"
                                 "eras 41\u201350,eras 51\u201360,era 61,era 62,";
    assert_memory_equal(names(&a), ranges, sizeof ranges - 1);
    assert_memory_equal(names(&b), ranges, sizeof ranges - 1);
    assert_int_equal(a.plan.bands[6].n, 1);   /* era 61 alone in a ... */
    assert_int_equal(b.plan.bands[6].n, 1);   /* ... and a range of one in b */
    assert_true(b.plan.bands[6].lo == 61 && b.plan.bands[6].hi == 61 && b.plan.n_bands == 47);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(a.plan.bands[i].color, b.plan.bands[i].color);
    done(&a);
    done(&b);
}

/* --bands: N bands (a fifth of them ranges); 0 every era alone; 1 one
 * range of all; --reverse the newest first. */
static void test_chart_bands_limit_and_order(void **state)
{
    (void)state;
    Fixture f;
    plan(&f, 21, 1, NULL, 10, REPORT_SORT_NUMBER, 0);
    assert_string_equal(names(&f), "eras 1\u201310,eras 11\u201313,era 14,era 15,era 16,era 17,"
                                   "era 18,era 19,era 20,era 21");
    done(&f);
    plan(&f, 400, 1, NULL, 0, REPORT_SORT_NUMBER, 0);
    assert_int_equal(f.plan.n_bands, 400);
    done(&f);
    plan(&f, 21, 1, NULL, 1, REPORT_SORT_NUMBER, 0);
    assert_string_equal(names(&f), "eras 1\u201321");
    done(&f);
    plan(&f, 3, 1, NULL, REPORT_BANDS_AUTO, REPORT_SORT_NUMBER, 1);
    assert_string_equal(names(&f), "era 3,era 2,era 1");
    done(&f);
}

/* A label that is not a number is no era: OTHER. */
static void test_chart_bands_non_era_label_is_other(void **state)
{
    (void)state;
    Fixture f;
    plan(&f, 3, 1, "junk", REPORT_BANDS_AUTO, REPORT_SORT_NUMBER, 0);
    assert_string_equal(names(&f), "era 1,era 2,era 3");
    for (size_t i = 0; i < f.n_keys; i++)
        if (strcmp(f.keys[i].name, "era junk") == 0)
            assert_int_equal(f.keys[i].band, -1);
    done(&f);
}

/* Not by era: the largest N, then --sort orders them. */
static void test_chart_bands_top_n_by_size(void **state)
{
    (void)state;
    Fixture f;
    plan(&f, 30, 0, NULL, REPORT_BANDS_AUTO, REPORT_SORT_NAME, 0);
    assert_int_equal(f.plan.limit, REPORT_CHART_BANDS);
    assert_string_equal(names(&f), "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30");
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chart_bands_every_era_up_to_the_limit),
        cmocka_unit_test(test_chart_bands_old_eras_in_ranges),
        cmocka_unit_test(test_chart_bands_ranges_keep_their_bounds),
        cmocka_unit_test(test_chart_bands_limit_and_order),
        cmocka_unit_test(test_chart_bands_non_era_label_is_other),
        cmocka_unit_test(test_chart_bands_top_n_by_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
