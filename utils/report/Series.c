/*
 * utils/report/Series.c -- folding a time series into a fixed number
 * of bins, so that a chart gets at most SERIES_BINS points per band however
 * long the run.  See Note [Bounded series].
 */
#include <string.h>

#include "Series.h"

/* Note [Bounded series]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The length of a run is not known until its log ends, and the log is read
 * once (it may be a pipe), so the bin width cannot be chosen up front.  A
 * series starts with 1 us bins (SERIES_INITIAL_WIDTH_NS) anchored at time
 * 0; when a time falls past the last bin the width doubles and each pair of
 * bins (2i, 2i+1) merges into bin i, which is exactly the bin the wider
 * width would have given.  Each bin keeps the sum of its times and how many
 * fell in it, so a point is drawn at the mean time of its censuses.  After
 * the first fold a series uses between SERIES_BINS/2 and SERIES_BINS bins.
 * The owner keeps its values (maxima and minima, never sums or means: see
 * Note [Peaks survive folding] in Profile.c) in arrays parallel to the
 * bins and folds them in the callback.
 */

#define SERIES_INITIAL_WIDTH_NS 1e3

void series_init(Series *s)
{
    memset(s, 0, sizeof *s);
    s->width_ns = SERIES_INITIAL_WIDTH_NS;
}

void series_fold_max(double *values)
{
    for (size_t i = 0; i < SERIES_BINS / 2; i++) {
        double a = values[2 * i], b = values[2 * i + 1];
        values[i] = a > b ? a : b;
    }
    for (size_t i = SERIES_BINS / 2; i < SERIES_BINS; i++)
        values[i] = 0;
}

void series_fold_self(Series *s)
{
    for (size_t i = 0; i < SERIES_BINS / 2; i++) {
        s->t_sum_ns[i] = s->t_sum_ns[2 * i] + s->t_sum_ns[2 * i + 1];
        s->count[i] = s->count[2 * i] + s->count[2 * i + 1];
    }
    for (size_t i = SERIES_BINS / 2; i < SERIES_BINS; i++) {
        s->t_sum_ns[i] = 0;
        s->count[i] = 0;
    }
    s->width_ns *= 2;
}

size_t series_bin(Series *s, uint64_t t_ns, void (*fold)(void *ctx), void *ctx)
{
    double t = (double)t_ns;
    while (t / s->width_ns >= (double)SERIES_BINS) {
        if (fold != NULL)
            fold(ctx);
        series_fold_self(s);
    }
    size_t i = (size_t)(t / s->width_ns);
    s->t_sum_ns[i] += t;
    s->count[i]++;
    return i;
}
