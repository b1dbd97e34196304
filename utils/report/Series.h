/*
 * utils/report/Series.h -- a time series folded into a fixed number of
 * bins, so that a chart gets at most SERIES_BINS points per band however
 * long the run (Note [Bounded series] in Series.c).  The whole API of
 * Series.c.
 */
#ifndef STRATA_REPORT_SERIES_H
#define STRATA_REPORT_SERIES_H

#include <stddef.h>
#include <stdint.h>

/* Chart points per band: a census series is folded into at most this many
 * time bins.  Must be even. */
#define SERIES_BINS 400

/* A time series folded into SERIES_BINS bins of equal width, the width
 * doubling (and pairs of bins merging) whenever a time falls past the
 * last bin.  The values live with the owner, one array per column. */
typedef struct Series {
    double width_ns;                 /* bin width; 0 before the first time */
    double t_sum_ns[SERIES_BINS];    /* sum of the times that fell in each bin */
    uint32_t count[SERIES_BINS];     /* how many times fell in each bin */
} Series;

void series_init(Series *s);
/* The bin for time t, after folding as needed; fold(ctx) is called to
 * merge the owner's value arrays whenever the width doubles. */
size_t series_bin(Series *s, uint64_t t_ns, void (*fold)(void *ctx), void *ctx);
/* Merges pairs of bins of values[] (in place) the way the series did,
 * keeping the larger value of each pair. */
void series_fold_max(double *values);
void series_fold_self(Series *s);

#endif /* STRATA_REPORT_SERIES_H */
