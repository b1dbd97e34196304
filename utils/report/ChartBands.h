/*
 * utils/report/ChartBands.h -- which bands the report's charts draw, and
 * in what order: the largest --bands by integrated size, or for an era
 * profile every era up to a limit and past it the newest eras each and
 * the older ones in ranges (Note [Era bands] in ChartBands.c).  The rest
 * is OTHER.  The whole API of ChartBands.c.
 */
#ifndef STRATA_REPORT_CHART_BANDS_H
#define STRATA_REPORT_CHART_BANDS_H

#include <stddef.h>

#include "ReportRows.h"

/* The chart's bands when --bands is not given: 15 by size, or up to 50
 * eras. */
#define REPORT_CHART_BANDS 15
#define REPORT_ERA_BANDS 50

/* A band of the chart: one key, or (an era profile) a range of old eras
 * summed. */
typedef struct ChartBand {
    char *name;           /* owned: the key's name, or "eras 1–50" */
    long color;           /* the key's colour; a range's is its first era's */
    size_t first, n;      /* its keys: ChartPlan.members[first .. first + n) */
    double lo, hi;        /* an era profile: the eras it stands for */
} ChartBand;

typedef struct ChartPlan {
    ChartBand *bands;     /* in the chart's order (--sort, --reverse) */
    size_t n_bands;
    size_t *members;      /* indices into the keys, band by band */
    int era;              /* an era profile */
    long limit;           /* the band limit in force (0 = all) */
} ChartPlan;

/* Plans the chart of keys[0..n_keys) (largest first, as
 * report_keys_make gives them), setting each key's band; bands is
 * --bands (ReportOptions.bands, REPORT_BANDS_AUTO for the default).  0,
 * or -1 when out of memory. */
int chart_plan_make(ChartPlan *plan, Key *keys, size_t n_keys, long bands, int era,
                    ReportSort sort, int reverse);
void chart_plan_free(ChartPlan *plan);

/* The colour key k is drawn in: its band's (a range's, for an old era). */
long chart_plan_color(const ChartPlan *plan, const Key *k);

/* The name of the band key k is drawn in ("OTHER" for none). */
const char *chart_plan_band_name(const ChartPlan *plan, const Key *k);

#endif /* STRATA_REPORT_CHART_BANDS_H */
