/*
 * utils/report/Profile.c -- building one input's heap profile: the
 * censuses of the heap-profile model (utils/heapprof/HeapModel.h) folded
 * into bands and their statistics and into chart series, heap sizes and
 * markers.  The readers (ProfileEventlog.c, ProfileHp.c) call in here; memory
 * grows with the number of distinct labels, IPE entries and kept markers
 * only, never with the number of censuses.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <strata/EventLogFormat.h>

#include "GrowArray.h"
#include "Profile.h"

/* Note [Band statistics]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Every census counts, however many the log holds; a band absent from a
 * census has 0 bytes there (as hp2ps and strata-events draw it).
 *  - integrated size: the trapezoid rule over census times, in byte-seconds,
 *    the same figure as `strata-events summary` (Note [Integrated size]).
 *    Each census's value contributes half of the gap to the census before
 *    and half of the gap to the census after, so only the bands present in
 *    a census are touched when it closes and when the next one opens;
 *  - mean, population standard deviation, and the least-squares line
 *    bytes = intercept + slope * seconds with its R^2, from the sums
 *    n, sum t, sum t^2 (shared by all bands) and sum y, sum y^2, sum t*y
 *    (per band).  A band constant over time, or a profile with fewer than
 *    two census times, has no R^2 (null in the output).
 */

void profile_init(Profile *p, const char *path, const Filters *filters)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    p->filters = filters;
    heap_model_init(&p->model);
    alloc_model_init(&p->samples);
    series_init(&p->census_series);
    for (int i = 0; i < HEAP_SERIES_COUNT; i++)
        series_init(&p->heap_series[i]);
}

void profile_free(Profile *p)
{
    free(p->program);
    for (size_t i = 0; i < p->n_args; i++)
        free(p->args[i]);
    free(p->args);
    free(p->rts_id);
    free(p->date);
    free(p->touched);
    for (size_t i = 0; i < p->n_bands; i++)
        free(p->bands[i].bins);
    free(p->bands);
    heap_model_free(&p->model);
    alloc_model_free(&p->samples);
    for (size_t i = 0; i < p->n_markers; i++)
        free(p->markers[i].text);
    free(p->markers);
    free(p->warning);
}

char *profile_strdup(Profile *p, const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (c == NULL) {
        p->out_of_memory = 1;
        return NULL;
    }
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

void profile_set_warning(Profile *p, const char *fmt, ...)
{
    if (p->warning != NULL)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    p->warning = profile_strdup(p, buf, strlen(buf));
}

void profile_time(Profile *p, uint64_t time_ns)
{
    p->n_events++;
    if (time_ns > p->end_time_ns)
        p->end_time_ns = time_ns;
}

/* ----------------------------------------------------------------------
 * Bands
 * ------------------------------------------------------------------- */

/* Makes the profile's bands up to the model's (a census brings its new
 * bands); 0 when out of memory. */
static int bands_make(Profile *p)
{
    const EvrLabelIndex *labels = &p->model.labels;
    if (GROW_ARRAY_RESERVE_MIN(p->bands, p->bands_cap, labels->n, 32) != 0)
        return 0;
    while (p->n_bands < labels->n) {
        BandBins *bins = calloc(1, sizeof *bins);
        if (bins == NULL)
            return 0;
        p->bands[p->n_bands] = (Band){ .label = evr_label(labels, p->n_bands).ptr,
                                       .bins = bins };
        p->n_bands++;
    }
    return 1;
}

/* Note [Peaks survive folding]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A chart bin may hold many censuses (Note [Bounded series] in Series.c).
 * Averaging them diluted a one-census spike and halved the last point of a
 * .hp file (its last census and the empty sample written at exit share a
 * time).  So a bin keeps, per band, the largest and the smallest bytes of
 * its censuses, and folding two bins takes the larger maximum and the
 * smaller minimum: the chart's maximum of a band is exactly the table's
 * peak.  The minimum counts a census without the band as 0; as absent bands
 * are never visited (Note [Band statistics]), each bin counts the censuses
 * holding the band, and one with fewer than the bin's censuses has minimum
 * 0 (profile_band_bin_min).  The stacked views draw the maxima, so within
 * one bin the stack's top is the sum of each band's own largest value and
 * may stand above every single census of the bin; the profile's own largest
 * census total per bin (census_total_max) is kept for the "profiled total"
 * line.  Rejected: keeping the census with the largest total per bin (a
 * band's peak in a smaller census of the bin would vanish again).
 */
static void fold_bands(void *ctx)
{
    Profile *p = ctx;
    series_fold_max(p->census_total_max);
    for (size_t k = 0; k < p->n_bands; k++) {
        BandBins *b = p->bands[k].bins;
        for (size_t i = 0; i < SERIES_BINS / 2; i++) {
            size_t x = 2 * i, y = 2 * i + 1;
            double lo = b->present[x] == 0 ? b->min[y]
                        : b->present[y] == 0 ? b->min[x]
                        : (b->min[x] < b->min[y] ? b->min[x] : b->min[y]);
            b->max[i] = b->max[x] > b->max[y] ? b->max[x] : b->max[y];
            b->min[i] = lo;
            b->present[i] = b->present[x] + b->present[y];
        }
        for (size_t i = SERIES_BINS / 2; i < SERIES_BINS; i++) {
            b->max[i] = b->min[i] = 0;
            b->present[i] = 0;
        }
    }
}

double profile_band_bin_min(const Profile *p, const Band *b, size_t i)
{
    if (b->bins->present[i] < p->census_series.count[i])
        return 0;
    return b->bins->min[i];
}

/* ----------------------------------------------------------------------
 * Censuses: see Note [Band statistics]
 * ------------------------------------------------------------------- */

/* A census begins at time_ns: the second half of the last census's
 * trapezoids, and its bin. */
static void fold_begin(Profile *p, uint64_t time_ns)
{
    if (p->n_censuses > 0 && time_ns > p->prev_census_time_ns) {
        double half_dt = ((double)time_ns - (double)p->prev_census_time_ns) / 2.0;
        for (size_t i = 0; i < p->n_touched; i++) {
            Band *b = &p->bands[p->touched[i]];
            b->area_byte_ns += half_dt * (double)b->cur_bytes;
        }
    }
    p->n_touched = 0;
    p->n_censuses++;
    p->census_time_ns = time_ns;
    p->census_bin = series_bin(&p->census_series, time_ns, fold_bands, p);
}

/* The census's statistics, bins and the first half of its trapezoids,
 * over the bands it holds (touched). */
static void fold_end(Profile *p)
{
    double t_s = (double)p->census_time_ns / 1e9;
    double half_dt = p->n_censuses > 1 && p->census_time_ns > p->prev_census_time_ns
                         ? ((double)p->census_time_ns - (double)p->prev_census_time_ns) / 2.0
                         : 0.0;
    double total = 0;
    for (size_t i = 0; i < p->n_touched; i++) {
        Band *b = &p->bands[p->touched[i]];
        double y = (double)b->cur_bytes;
        b->area_byte_ns += half_dt * y;
        b->sum_y += y;
        b->sum_y2 += y * y;
        b->sum_ty += t_s * y;
        BandBins *bb = b->bins;
        size_t k = p->census_bin;
        if (y > bb->max[k])
            bb->max[k] = y;
        if (bb->present[k] == 0 || y < bb->min[k])
            bb->min[k] = y;
        bb->present[k]++;
        total += y;
        if (b->cur_bytes > b->peak_bytes)
            b->peak_bytes = b->cur_bytes;
    }
    if (total > p->census_total_max[p->census_bin])
        p->census_total_max[p->census_bin] = total;
    p->sum_t += t_s;
    p->sum_t2 += t_s * t_s;
    p->prev_census_time_ns = p->census_time_ns;
}

/* Folds in census c, the model's latest. */
static void fold_census(Profile *p, const HmCensus *c)
{
    fold_begin(p, c->time_ns);
    if (!bands_make(p) ||
        GROW_ARRAY_RESERVE_MIN(p->touched, p->touched_cap, c->n, 64) != 0) {
        p->out_of_memory = 1;
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        Band *b = &p->bands[c->e[i].band];
        p->touched[p->n_touched++] = c->e[i].band;
        b->cur_census = p->n_censuses;
        b->cur_bytes = c->e[i].bytes;
    }
    fold_end(p);
}

void profile_census_begin(Profile *p, uint64_t time_ns)
{
    if (heap_model_census_begin(&p->model, 0, time_ns))
        fold_census(p, &p->model.last);
}

void profile_census_sample(Profile *p, const char *label, size_t len, uint64_t bytes)
{
    heap_model_census_sample(&p->model, label, len, bytes);
    if (p->model.out_of_memory)
        p->out_of_memory = 1;
}

int profile_census_end(Profile *p)
{
    if (!heap_model_census_end(&p->model))
        return 0;
    fold_census(p, &p->model.last);
    return 1;
}

void profile_take_census(Profile *p)
{
    fold_census(p, &p->model.last);
}

void profile_band_stats(const Profile *p, const Band *b, BandStats *out)
{
    memset(out, 0, sizeof *out);
    out->integrated_byte_s = b->area_byte_ns / 1e9;
    if (b->cur_census == p->n_censuses && p->n_censuses > 0)
        out->last_bytes = b->cur_bytes;
    double n = (double)p->n_censuses;
    if (n == 0)
        return;
    double mean_y = b->sum_y / n, mean_t = p->sum_t / n;
    double var_y = b->sum_y2 / n - mean_y * mean_y;
    double var_t = p->sum_t2 / n - mean_t * mean_t;
    double cov = b->sum_ty / n - mean_t * mean_y;
    if (var_y < 0)
        var_y = 0;
    out->mean = mean_y;
    out->stddev = sqrt(var_y);
    /* Relative thresholds: sums of squares leave rounding noise. */
    if (var_t > 1e-12 * (mean_t * mean_t + 1e-18)) {
        out->slope = cov / var_t;
        out->intercept = mean_y - out->slope * mean_t;
        if (var_y > 1e-12 * mean_y * mean_y && var_y > 0) {
            double r2 = cov * cov / (var_t * var_y);
            out->r2 = r2 > 1 ? 1 : r2;
            out->have_fit = 1;
        }
    } else {
        out->intercept = mean_y;
    }
}

/* ----------------------------------------------------------------------
 * Heap sizes and markers
 * ------------------------------------------------------------------- */

typedef struct HeapFold {
    double *values;
} HeapFold;

static void fold_heap(void *ctx)
{
    series_fold_max(((HeapFold *)ctx)->values);
}

void profile_heap(Profile *p, int which, uint64_t time_ns, uint64_t bytes)
{
    HeapFold f = { p->heap_max[which] };
    size_t i = series_bin(&p->heap_series[which], time_ns, fold_heap, &f);
    if ((double)bytes > p->heap_max[which][i])
        p->heap_max[which][i] = (double)bytes;
    if (!p->have_heap[which] || bytes > p->heap_peak[which])
        p->heap_peak[which] = bytes;
    p->have_heap[which] = 1;
}

static int contains(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(hay + i, needle, n) == 0)
            return 1;
    return 0;
}

/* -i and -x, as eventlog2html reads them: a trace matching an exclude is
 * dropped unless it also matches an include (an include match wins); so
 * `-x '' -i TEXT` keeps only the traces containing TEXT. */
static int marker_wanted(const Filters *f, const char *text, size_t len)
{
    if (f == NULL)
        return 1;
    if (f->no_traces)
        return 0;
    for (size_t i = 0; i < f->n_include; i++)
        if (contains(text, len, f->include[i]))
            return 1;
    for (size_t i = 0; i < f->n_exclude; i++)
        if (contains(text, len, f->exclude[i]))
            return 0;
    return 1;
}

void profile_marker(Profile *p, uint64_t time_ns, const char *text, size_t len, int is_marker)
{
    /* As in eventlog2html: traceEvent messages only with
     * --include-trace-events (they are often thousands of debug lines). */
    if (!is_marker && (p->filters == NULL || !p->filters->messages))
        return;
    if (!marker_wanted(p->filters, text, len))
        return;
    if (p->n_markers == PROFILE_MAX_MARKERS) {
        p->markers_dropped++;
        return;
    }
    if (GROW_ARRAY_RESERVE_MIN(p->markers, p->markers_cap, p->n_markers + 1, 16) != 0) {
        p->out_of_memory = 1;
        return;
    }
    char *c = profile_strdup(p, text, len);
    if (c == NULL)
        return;
    p->markers[p->n_markers++] = (Marker){ .time_ns = time_ns, .text = c, .is_marker = is_marker };
}

/* ----------------------------------------------------------------------
 * IPE descriptions (-hi)
 * ------------------------------------------------------------------- */

/* A -hi label names the IPE at the address it spells (reader/IpeTable.h,
 * shared with strata-events). */
const EvrIpe *profile_band_ipe(const Profile *p, const Band *b)
{
    if (p->from_hp || p->model.breakdown != HEAP_PROF_BREAKDOWN_INFO_TABLE)
        return NULL;
    return evr_ipe_table_find_label(&p->model.ipes, b->label, strlen(b->label));
}

/* ----------------------------------------------------------------------
 * Cost centres (-hc)
 * ------------------------------------------------------------------- */

int profile_is_cost_centre(const Profile *p)
{
    if (p->from_hp)
        return p->hp_cost_centres;
    return p->model.breakdown == HEAP_PROF_BREAKDOWN_COST_CENTRE;
}
