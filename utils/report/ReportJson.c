/*
 * utils/report/ReportJson.c -- the report's data as one JSON object: what
 * `strata-html --json` prints, what the page embeds and draws, and what
 * strata-live's page fetches.  The bands are ReportRows.c's, the chart's
 * choice of them ChartBands.c's (the largest, or every era with the old
 * ones in ranges; the rest summed as OTHER).  The format is documented in
 * docs/strata-html.md ("The JSON data").
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <strata/EventLogFormat.h>

#include "AllocJson.h"
#include "ChartBands.h"
#include "JsonText.h"
#include "ReportJson.h"
#include "ReportRows.h"

#define SPARK_POINTS 50   /* sparkline points per band in the detailed table */

static const char *const sort_names[] = { "size", "stddev", "name", "number", "gradient" };

int report_sort_parse(const char *s, ReportSort *sort)
{
    for (size_t i = 0; i < sizeof sort_names / sizeof sort_names[0]; i++)
        if (strcmp(s, sort_names[i]) == 0) {
            *sort = (ReportSort)i;
            return 1;
        }
    return 0;
}

/* ----------------------------------------------------------------------
 * Cost-centre stacks
 * ------------------------------------------------------------------- */

/* A cost centre as hp2ps names it: its label, but "Module.CAF" for the
 * CAF cost centres (every module has one called "CAF"). */
static const char *cc_display(const HpCostCentre *cc, char *buf, size_t size)
{
    if (hp_cost_centre_is_caf(cc)) {
        snprintf(buf, size, "%s.CAF", cc->module);
        return buf;
    }
    return cc->label;
}

/* The stack of a -hc band, outermost first, as [{"label","module"}]:
 * from the ids of an eventlog band, or from a .hp label
 * "(ccsID)inner/.../outer" (cut by the RTS's -L, then ending "..."). */
static void write_ccs(FILE *out, const Profile *p, const char *key)
{
    fputc('[', out);
    if (p->from_hp) {
        const char *s = key;
        if (*s == '(') {
            const char *close = strchr(s, ')');
            if (close != NULL)
                s = close + 1;
        }
        /* Split at '/', then write the pieces last to first. */
        size_t n = strlen(s);
        int first = 1;
        size_t end = n;
        for (size_t i = n + 1; i-- > 0;) {
            if (i == 0 || s[i - 1] == '/') {
                char *piece = strndup(s + i, end - i);
                if (piece != NULL) {
                    fputs(first ? "{\"label\":" : ",{\"label\":", out);
                    json_string(out, piece);
                    fputs(",\"module\":null}", out);
                    free(piece);
                }
                first = 0;
                end = i ? i - 1 : 0;
            }
        }
    } else if (strcmp(key, "MAIN") != 0) {
        /* ids innermost first: collect, then write outermost first */
        unsigned long ids[256];
        size_t n = 0;
        for (const char *k = key; *k && n < 256;) {
            char *end;
            ids[n++] = strtoul(k, &end, 10);
            if (end == k)
                break;
            k = *end == ',' ? end + 1 : end;
        }
        for (size_t i = n; i-- > 0;) {
            const HpCostCentre *cc = hp_cost_centre(&p->model.ccs, ids[i]);
            char buf[512];
            snprintf(buf, sizeof buf, "cc%lu", ids[i]);
            fputs(i + 1 == n ? "{\"label\":" : ",{\"label\":", out);
            json_string(out, cc && cc->label ? cc_display(cc, buf, sizeof buf) : buf);
            fputs(",\"module\":", out);
            json_string(out, cc && cc->label ? cc->module : NULL);
            fputc('}', out);
        }
    }
    fputc(']', out);
}

/* ----------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------- */

/* One number per used bin of s (Note [Peaks survive folding] in
 * Profile.c): values[i], or 0 everywhere if values is NULL; with that
 * many decimals, or as json_number writes it if decimals is negative. */
static void write_used_bins(FILE *out, const Series *s, const double *values, int decimals)
{
    fputc('[', out);
    const char *sep = "";
    for (size_t i = 0; i < SERIES_BINS; i++) {
        if (s->count[i] == 0)
            continue;
        fputs(sep, out);
        sep = ",";
        double v = values ? values[i] : 0.0;
        if (decimals >= 0)
            fprintf(out, "%.*f", decimals, v);
        else
            json_number(out, v);
    }
    fputc(']', out);
}

/* The mean time of each used bin of s, in seconds. */
static void write_times(FILE *out, const Series *s)
{
    double t[SERIES_BINS];
    for (size_t i = 0; i < SERIES_BINS; i++)
        t[i] = s->count[i] ? s->t_sum_ns[i] / s->count[i] / 1e9 : 0.0;
    write_used_bins(out, s, t, 6);
}

static void write_values(FILE *out, const Series *s, const double *values)
{
    write_used_bins(out, s, values, -1);
}

/* Coarser points for a sparkline: the largest value of each group of
 * SERIES_BINS/SPARK_POINTS bins. */
static void write_spark(FILE *out, const Series *s, const double *max)
{
    const size_t group = SERIES_BINS / SPARK_POINTS;
    fputc('[', out);
    int first = 1;
    for (size_t g = 0; g < SERIES_BINS; g += group) {
        double top = 0;
        uint64_t count = 0;
        for (size_t i = g; i < g + group; i++) {
            if (max[i] > top)
                top = max[i];
            count += s->count[i];
        }
        if (count == 0)
            continue;
        if (!first)
            fputc(',', out);
        first = 0;
        json_number(out, top);
    }
    fputc(']', out);
}

/* ,"key":"s", a string member of an object after its first (key plain
 * ASCII, written as it is). */
static void write_string_member(FILE *out, const char *key, const char *s)
{
    fprintf(out, ",\"%s\":", key);
    json_string(out, s);
}

static void write_ipe(FILE *out, const EvrIpe *ipe)
{
    if (ipe == NULL) {
        fputs("null", out);
        return;
    }
    fputs("{\"table_name\":", out);
    json_string(out, ipe->table_name.ptr);
    write_string_member(out, "closure_desc", ipe->closure_desc.ptr);
    write_string_member(out, "ty_desc", ipe->ty_desc.ptr);
    write_string_member(out, "label", ipe->label.ptr);
    write_string_member(out, "module", ipe->module.ptr);
    write_string_member(out, "srcloc", ipe->srcloc.ptr);
    fputc('}', out);
}

static void write_row(FILE *out, const Row *r, long color)
{
    const Profile *p = r->p;
    fputs("{\"label\":", out);
    json_string(out, r->b->label);
    write_string_member(out, "name", r->name);
    fprintf(out, ",\"rank\":%ld,\"color\":%ld,\"integrated_byte_s\":", r->size_rank, color);
    json_number(out, r->st.integrated_byte_s);
    fprintf(out, ",\"peak_bytes\":%" PRIu64 ",\"last_bytes\":%" PRIu64 ",\"mean_bytes\":",
            r->b->peak_bytes, r->st.last_bytes);
    json_number(out, round(r->st.mean));
    fputs(",\"stddev_bytes\":", out);
    json_number(out, r->st.stddev);
    fputs(",\"intercept_bytes\":", out);
    json_number(out, r->st.intercept);
    fputs(",\"slope_bytes_per_s\":", out);
    json_number(out, r->st.slope);
    fputs(",\"r2\":", out);
    if (r->st.have_fit)
        json_number(out, r->st.r2);
    else
        fputs("null", out);
    fputs(",\"era\":", out);
    if (report_profile_is_era(p) && r->have_number)
        json_number(out, r->number);
    else
        fputs("null", out);
    fputs(",\"ipe\":", out);
    write_ipe(out, profile_band_ipe(p, r->b));
    if (profile_is_cost_centre(p)) {
        fputs(",\"ccs\":", out);
        write_ccs(out, p, r->b->label);
    }
    fputs(",\"spark\":", out);
    write_spark(out, &p->census_series, r->b->bins->max);
    fputc('}', out);
}

static void write_heap(FILE *out, const Profile *p, int which, const char *key)
{
    fprintf(out, "\"%s\":", key);
    if (!p->have_heap[which]) {
        fputs("null", out);
        return;
    }
    fputs("{\"times_s\":", out);
    write_times(out, &p->heap_series[which]);
    fputs(",\"bytes\":", out);
    write_values(out, &p->heap_series[which], p->heap_max[which]);   /* each bin's largest */
    fprintf(out, ",\"peak_bytes\":%" PRIu64 "}", p->heap_peak[which]);
}

static const char *mode_flag(const Profile *p)
{
    static const char *flags[] = { NULL, "-hc", "-hm", "-hd", "-hy", "-hr", "-hb", "-hT", "-hi", "-he" };
    if (p->from_hp)
        return p->hp_cost_centres ? "-hc" : NULL;
    uint32_t k = p->model.breakdown;
    return k < sizeof flags / sizeof flags[0] ? flags[k] : NULL;
}

static const char *mode_name(const Profile *p)
{
    static const char *names[] = { "unknown", "cost centre stack", "module", "closure description",
                                   "type description", "retainer set", "biography",
                                   "closure type", "info table", "era" };
    if (p->from_hp)
        return p->hp_cost_centres ? "cost centre stack, .hp file" : ".hp file";
    uint32_t k = p->model.breakdown;
    return k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static void write_meta(FILE *out, const Profile *p)
{
    fputs("\"file\":", out);
    json_string(out, p->path);
    write_string_member(out, "source", p->from_hp ? "hp" : "eventlog");
    write_string_member(out, "program", p->program);
    fputs(",\"args\":[", out);
    for (size_t i = 0; i < p->n_args; i++) {
        if (i)
            fputc(',', out);
        json_string(out, p->args[i]);
    }
    fputs("],\"rts_identifier\":", out);
    json_string(out, p->rts_id);
    write_string_member(out, "mode", mode_flag(p));
    write_string_member(out, "mode_name", mode_name(p));
    fputs(",\"interval_ns\":", out);
    if (p->from_hp)
        fputs("null", out);
    else
        fprintf(out, "%" PRIu64, p->model.interval_ns);
    write_string_member(out, "date", p->date);
    fprintf(out, ",\"censuses\":%" PRIu64 ",\"events\":%" PRIu64 ",\"end_time_s\":%.6f",
            p->n_censuses, p->n_events, (double)p->end_time_ns / 1e9);
    write_string_member(out, "warning", p->warning);
}

/* Adds the largest and least values per point of keys members[0..n) in
 * input to sum and sum_min; how many that input has. */
static size_t add_bands(const Profile *p, int input, const Key *keys, const size_t *members,
                        size_t n, double *sum, double *sum_min)
{
    size_t present = 0;
    for (size_t i = 0; i < n; i++) {
        const Row *r = keys[members[i]].row[input];
        if (r == NULL)
            continue;
        present++;
        for (size_t k = 0; k < SERIES_BINS; k++) {
            sum[k] += r->b->bins->max[k];
            sum_min[k] += profile_band_bin_min(p, r->b, k);
        }
    }
    return present;
}

/* The chart: per band of the plan, the largest and least values per point
 * in this input (zeros where it lacks the band; a range of eras, the sums
 * of its eras'), then OTHER, the sums of the rest's, then the largest
 * census total per point; -1 when out of memory. */
static int write_chart(FILE *out, const Profile *p, int input, const Key *keys, size_t n_keys,
                       const ChartPlan *plan)
{
    double *sum = malloc(2 * SERIES_BINS * sizeof *sum);
    size_t *other = malloc((n_keys ? n_keys : 1) * sizeof *other);
    if (sum == NULL || other == NULL) {
        free(sum);
        free(other);
        return -1;
    }
    double *sum_min = sum + SERIES_BINS;
    fputs("\"chart\":{\"times_s\":", out);
    write_times(out, &p->census_series);
    fputs(",\"bands\":[", out);
    for (size_t i = 0; i < plan->n_bands; i++) {
        const ChartBand *b = &plan->bands[i];
        memset(sum, 0, 2 * SERIES_BINS * sizeof *sum);
        size_t present = add_bands(p, input, keys, plan->members + b->first, b->n, sum, sum_min);
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        json_string(out, b->name);
        fprintf(out, ",\"color\":%ld,\"present\":%s,\"bands\":%zu,\"eras\":", b->color,
                present ? "true" : "false", b->n);
        if (plan->era)
            fprintf(out, "[%.15g,%.15g]", b->lo, b->hi);
        else
            fputs("null", out);
        fputs(",\"values\":", out);
        write_values(out, &p->census_series, sum);
        fputs(",\"min_values\":", out);
        write_values(out, &p->census_series, sum_min);
        fputc('}', out);
    }
    fputs("],\"other\":", out);
    size_t n_other = 0;
    for (size_t i = 0; i < n_keys; i++)
        if (keys[i].band < 0)
            other[n_other++] = i;
    if (n_other == 0) {
        fputs("null", out);
    } else {
        memset(sum, 0, 2 * SERIES_BINS * sizeof *sum);
        size_t present = add_bands(p, input, keys, other, n_other, sum, sum_min);
        fprintf(out, "{\"name\":\"OTHER\",\"bands\":%zu,\"values\":", present);
        write_values(out, &p->census_series, sum);
        fputs(",\"min_values\":", out);
        write_values(out, &p->census_series, sum_min);
        fputc('}', out);
    }
    free(sum);
    free(other);
    fputs(",\"total_max\":", out);
    write_values(out, &p->census_series, p->census_total_max);
    fputc('}', out);
    return 0;
}

/* -he: the eras holding bytes in the last census, in the table's order,
 * each with the chart band it is drawn in and that band's colour. */
static void write_eras_live(FILE *out, const Profile *p, int input, const Key *table_keys,
                            size_t n_keys, const ChartPlan *plan)
{
    fputs(",\"eras_live_at_end\":", out);
    if (!report_profile_is_era(p)) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    int f = 1;
    for (size_t i = 0; i < n_keys; i++) {
        const Row *r = table_keys[i].row[input];
        if (r == NULL || r->st.last_bytes == 0)
            continue;
        fprintf(out, "%s{\"era\":", f ? "" : ",");
        f = 0;
        if (r->have_number)
            json_number(out, r->number);   /* a number, as in the table */
        else
            json_string(out, r->b->label);
        fprintf(out, ",\"bytes\":%" PRIu64 ",\"color\":%ld,\"band\":", r->st.last_bytes,
                chart_plan_color(plan, &table_keys[i]));
        json_string(out, chart_plan_band_name(plan, &table_keys[i]));
        fputc('}', out);
    }
    fputc(']', out);
}

static int write_profile(FILE *out, const Profile *p, int input, const Key *keys, size_t n_keys,
                         const ChartPlan *plan, const Key *table_keys)
{
    fputc('{', out);
    write_meta(out, p);
    fputs(",\"heap\":{", out);
    write_heap(out, p, HEAP_SERIES_SIZE, "size");
    fputc(',', out);
    write_heap(out, p, HEAP_SERIES_BLOCKS, "blocks");
    fputc(',', out);
    write_heap(out, p, HEAP_SERIES_LIVE, "live");
    fputs("},", out);
    if (write_chart(out, p, input, keys, n_keys, plan) != 0)
        return -1;
    /* The detailed table: every band of this input, in the chosen order,
     * each in the colour it is drawn in. */
    fprintf(out, ",\"band_count\":%zu,\"table\":[", p->n_bands);
    int first = 1;
    for (size_t i = 0; i < n_keys; i++) {
        const Row *r = table_keys[i].row[input];
        if (r == NULL)
            continue;
        if (!first)
            fputs(",\n", out);
        first = 0;
        write_row(out, r, chart_plan_color(plan, &table_keys[i]));
    }
    fputs("],\"markers\":[", out);
    for (size_t i = 0; i < p->n_markers; i++) {
        fprintf(out, "%s{\"time_s\":%.6f,\"kind\":\"%s\",\"text\":", i ? "," : "",
                (double)p->markers[i].time_ns / 1e9,
                p->markers[i].is_marker ? "marker" : "message");
        json_string(out, p->markers[i].text);
        fputc('}', out);
    }
    fprintf(out, "],\"markers_dropped\":%" PRIu64, p->markers_dropped);
    alloc_json_write(out, &p->samples);
    write_eras_live(out, p, input, table_keys, n_keys, plan);
    fputc('}', out);
    return 0;
}

static double key_change(const Key *k)
{
    double sa = k->row[0] ? k->row[0]->st.integrated_byte_s : 0;
    double sb = k->row[1] ? k->row[1]->st.integrated_byte_s : 0;
    return sb - sa;
}

/* The diff's order: the largest change first, growth or shrinkage alike,
 * so that when everything shrank the biggest losses still lead. */
static int by_abs_change(const void *a, const void *b)
{
    const Key *x = a, *y = b;
    double cx = fabs(key_change(x)), cy = fabs(key_change(y));
    if (cx != cy)
        return cx < cy ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void write_diff(FILE *out, const Key *keys, size_t n_keys, const ChartPlan *plan)
{
    fputs(",\"diff\":[", out);
    for (size_t i = 0; i < n_keys; i++) {
        const Row *a = keys[i].row[0], *b = keys[i].row[1];
        double sa = a ? a->st.integrated_byte_s : 0, sb = b ? b->st.integrated_byte_s : 0;
        fputs(i ? ",\n{\"name\":" : "{\"name\":", out);
        json_string(out, keys[i].name);
        fprintf(out, ",\"color\":%ld,\"a_byte_s\":", chart_plan_color(plan, &keys[i]));
        json_number(out, sa);
        fputs(",\"b_byte_s\":", out);
        json_number(out, sb);
        fprintf(out, ",\"a_peak_bytes\":%" PRIu64 ",\"b_peak_bytes\":%" PRIu64
                     ",\"a_last_bytes\":%" PRIu64 ",\"b_last_bytes\":%" PRIu64 ",\"change_byte_s\":",
                a ? a->b->peak_bytes : 0, b ? b->b->peak_bytes : 0, a ? a->st.last_bytes : 0,
                b ? b->st.last_bytes : 0);
        json_number(out, sb - sa);
        fputs(",\"change_percent\":", out);
        if (sa > 0)
            json_number(out, round(1000.0 * (sb - sa) / sa) / 10.0);
        else
            fputs("null", out);
        fputc('}', out);
    }
    fputc(']', out);
}

int report_json_write(FILE *out, const ReportOptions *o, Profile *const *profiles, size_t n)
{
    Row *rows[2] = { NULL, NULL };
    size_t n_rows[2] = { 0, 0 };
    Key *keys = NULL, *table_keys = NULL;
    ChartPlan plan = { 0 };
    int status = -1;
    for (size_t i = 0; i < n; i++) {
        rows[i] = report_rows_make(profiles[i]);
        n_rows[i] = profiles[i]->n_bands;
        if (rows[i] == NULL)
            goto done;
    }
    size_t n_keys;
    keys = report_keys_make(rows, n_rows, n, &n_keys);
    if (keys == NULL)
        goto done;
    int era = report_profile_is_era(profiles[0]);
    ReportSort sort = o->sort_given ? o->sort : (era ? REPORT_SORT_NUMBER : REPORT_SORT_SIZE);
    if (chart_plan_make(&plan, keys, n_keys, o->bands, era, sort, o->reverse) != 0)
        goto done;
    table_keys = malloc((n_keys ? n_keys : 1) * sizeof *table_keys);
    if (table_keys == NULL)
        goto done;
    memcpy(table_keys, keys, n_keys * sizeof *keys);
    report_keys_sort(table_keys, n_keys, sort, o->reverse);

    fprintf(out, "{\"tool\":\"strata-html\",\"format\":1,\"options\":{\"bands\":%ld,"
                 "\"sort\":\"%s\",\"reverse\":%s,\"y_axis_bytes\":",
            plan.limit, sort_names[sort], o->reverse ? "true" : "false");
    if (o->y_axis > 0)
        json_number(out, o->y_axis);
    else
        fputs("null", out);
    fprintf(out, ",\"normalised_time\":%s},\"profiles\":[", o->normalise_time ? "true" : "false");
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(",\n", out);
        if (write_profile(out, profiles[i], (int)i, keys, n_keys, &plan, table_keys) != 0)
            goto done;
    }
    fputc(']', out);
    if (n == 2) {
        qsort(table_keys, n_keys, sizeof *table_keys, by_abs_change);
        write_diff(out, table_keys, n_keys, &plan);
    }
    fputs("}\n", out);
    status = 0;
done:
    chart_plan_free(&plan);
    free(table_keys);
    free(keys);
    for (size_t i = 0; i < n; i++)
        report_rows_free(rows[i], n_rows[i]);
    return status;
}
