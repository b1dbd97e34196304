/*
 * utils/report/ChartBands.c -- which bands the charts draw, in what order
 * (ChartBands.h).
 */
#include "ChartBands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note [Era bands]
 * ~~~~~~~~~~~~~~~~
 * A profile by closure type or info table charts its largest bands and
 * folds the rest into OTHER: the small ones do not matter.  An era
 * profile is different: its bands are moments, and in a leak hunt the
 * newest eras are the question, small or not.  Charting the 15 largest
 * folded the newest eras of examples/leak into OTHER while the header
 * listed them in colours the chart never used.  So an era profile charts
 * every era up to REPORT_ERA_BANDS (or --bands), and past that keeps the
 * newest four fifths of the limit as eras of their own and groups the
 * older eras into at most a fifth of it, as ranges "eras 1–50": the whole
 * history stays in the chart, coarse where it is old.  A range is a run
 * of whole multiples of a round width (1, 2, 5, 10, 20, 50, ...: the
 * least that needs no more ranges than allowed), so that as a live
 * program makes eras the ranges keep their bounds and colours (a range is
 * drawn in its first era's colour) until the width must grow; the last
 * range ends at the oldest era drawn alone.  Eras are ordered by number,
 * never by size.  Bands whose label is not a number go to OTHER. */

static int plan_alloc(ChartPlan *plan, size_t n_keys)
{
    plan->bands = calloc(n_keys ? n_keys : 1, sizeof *plan->bands);
    plan->members = calloc(n_keys ? n_keys : 1, sizeof *plan->members);
    return plan->bands != NULL && plan->members != NULL ? 0 : -1;
}

/* Appends a band of keys idx[0..n); name NULL: the first key's name. */
static int add_band(ChartPlan *plan, Key *keys, const size_t *idx, size_t n, const char *name,
                    long color, double lo, double hi)
{
    ChartBand *b = &plan->bands[plan->n_bands];
    size_t first = plan->n_bands ? plan->bands[plan->n_bands - 1].first +
                                       plan->bands[plan->n_bands - 1].n : 0;
    b->name = strdup(name != NULL ? name : keys[idx[0]].name);
    if (b->name == NULL)
        return -1;
    b->color = color;
    b->first = first;
    b->n = n;
    b->lo = lo;
    b->hi = hi;
    for (size_t i = 0; i < n; i++) {
        plan->members[first + i] = idx[i];
        keys[idx[i]].band = (long)plan->n_bands;
    }
    plan->n_bands++;
    return 0;
}

static const Key *era_keys;

static double era_of(size_t i)
{
    return report_key_row(&era_keys[i])->number;
}

static int by_era(const void *a, const void *b)
{
    double x = era_of(*(const size_t *)a), y = era_of(*(const size_t *)b);
    return x < y ? -1 : x > y;
}

/* The least round width (1, 2, 5 times a power of ten) at which the eras
 * of idx[0..n) (ascending) fall in at most max_ranges runs of whole
 * multiples of it. */
static double range_width(const size_t *idx, size_t n, size_t max_ranges)
{
    static const double steps[] = { 1, 2, 5 };
    for (double scale = 1;; scale *= 10)
        for (int s = 0; s < 3; s++) {
            double w = steps[s] * scale, last = NAN;
            size_t runs = 0;
            for (size_t i = 0; i < n && runs <= max_ranges; i++) {
                double g = floor((era_of(idx[i]) - 1) / w);
                if (g != last)
                    runs++;
                last = g;
            }
            if (runs <= max_ranges || !isfinite(w))
                return w;
        }
}

/* Note [Era bands]: the eras of idx[0..n) (ascending), old ones grouped. */
static int plan_eras(ChartPlan *plan, Key *keys, const size_t *idx, size_t n)
{
    size_t alone = n, ranges = 0;
    if (plan->limit != 0 && n > (size_t)plan->limit) {
        ranges = ((size_t)plan->limit + 4) / 5;
        alone = (size_t)plan->limit - ranges;
    }
    size_t old = n - alone;
    double w = old ? range_width(idx, old, ranges) : 1;
    for (size_t i = 0; i < old;) {
        double g = floor((era_of(idx[i]) - 1) / w);
        size_t j = i;
        while (j < old && floor((era_of(idx[j]) - 1) / w) == g)
            j++;
        double lo = g * w + 1, hi = fmin((g + 1) * w, era_of(idx[j - 1]));
        char name[96];
        if (lo == hi)
            snprintf(name, sizeof name, "era %.15g", lo);
        else
            snprintf(name, sizeof name, "eras %.15g\u2013%.15g", lo, hi);
        if (add_band(plan, keys, idx + i, j - i, name, (long)lo, lo, hi) != 0)
            return -1;
        i = j;
    }
    for (size_t i = old; i < n; i++)
        if (add_band(plan, keys, idx + i, 1, NULL, keys[idx[i]].color, era_of(idx[i]),
                     era_of(idx[i])) != 0)
            return -1;
    return 0;
}

static const ChartPlan *sort_plan;
static const Key *sort_keys;
static ReportSort band_sort;
static int band_reverse;

static double band_value(const ChartBand *b)
{
    double v = 0;
    for (size_t i = 0; i < b->n; i++)
        v += report_key_value(&sort_keys[sort_plan->members[b->first + i]], band_sort);
    return v;
}

/* An era profile's bands by --sort: number is the eras' order. */
static int band_cmp(const void *a, const void *b)
{
    const ChartBand *x = a, *y = b;
    int c;
    if (band_sort == REPORT_SORT_NAME) {
        c = strcmp(x->name, y->name);
    } else if (band_sort == REPORT_SORT_NUMBER) {
        c = x->lo < y->lo ? -1 : x->lo > y->lo;
    } else {
        double vx = band_value(x), vy = band_value(y);
        c = vx != vy ? (vx < vy ? 1 : -1) : (x->lo < y->lo ? -1 : x->lo > y->lo);
    }
    return band_reverse ? -c : c;
}

int chart_plan_make(ChartPlan *plan, Key *keys, size_t n_keys, long bands, int era,
                    ReportSort sort, int reverse)
{
    memset(plan, 0, sizeof *plan);
    plan->era = era;
    plan->limit = bands >= 0 ? bands : era ? REPORT_ERA_BANDS : REPORT_CHART_BANDS;
    for (size_t i = 0; i < n_keys; i++)
        keys[i].band = -1;
    if (plan_alloc(plan, n_keys) != 0)
        return -1;
    size_t *idx = malloc((n_keys ? n_keys : 1) * sizeof *idx);
    if (idx == NULL)
        return -1;
    size_t n = 0;
    int status = 0;
    if (era) {
        for (size_t i = 0; i < n_keys; i++)
            if (report_key_row(&keys[i])->have_number)
                idx[n++] = i;
        era_keys = keys;
        qsort(idx, n, sizeof *idx, by_era);
        status = plan_eras(plan, keys, idx, n);
        sort_plan = plan;
        sort_keys = keys;
        band_sort = sort;
        band_reverse = reverse;
        /* The members stay where add_band put them: bands move whole. */
        qsort(plan->bands, plan->n_bands, sizeof *plan->bands, band_cmp);
        for (size_t b = 0; b < plan->n_bands; b++)
            for (size_t i = 0; i < plan->bands[b].n; i++)
                keys[plan->members[plan->bands[b].first + i]].band = (long)b;
    } else {
        /* The largest, then ordered by --sort (the keys' own order). */
        n = plan->limit == 0 || (size_t)plan->limit > n_keys ? n_keys : (size_t)plan->limit;
        Key *chosen = malloc((n ? n : 1) * sizeof *chosen);
        if (chosen == NULL) {
            free(idx);
            return -1;
        }
        memcpy(chosen, keys, n * sizeof *keys);
        for (size_t i = 0; i < n; i++)
            chosen[i].band = (long)i;   /* where it came from, through the sort */
        report_keys_sort(chosen, n, sort, reverse);
        for (size_t i = 0; i < n && status == 0; i++) {
            idx[0] = (size_t)chosen[i].band;
            status = add_band(plan, keys, idx, 1, NULL, keys[idx[0]].color, 0, 0);
        }
        free(chosen);
    }
    free(idx);
    return status;
}

void chart_plan_free(ChartPlan *plan)
{
    for (size_t i = 0; i < plan->n_bands; i++)
        free(plan->bands[i].name);
    free(plan->bands);
    free(plan->members);
    memset(plan, 0, sizeof *plan);
}

long chart_plan_color(const ChartPlan *plan, const Key *k)
{
    return k->band >= 0 ? plan->bands[k->band].color : k->color;
}

const char *chart_plan_band_name(const ChartPlan *plan, const Key *k)
{
    return k->band >= 0 ? plan->bands[k->band].name : "OTHER";
}
