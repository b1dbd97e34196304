/*
 * utils/report/ReportJson.c -- the report's data as one JSON object: what
 * `strata-html --json` prints, what the page embeds and draws, and what
 * strata-live's page fetches.  Chooses
 * the chart bands (the top --bands by integrated size, the rest summed as
 * OTHER), orders them (--sort, --reverse) and, for --diff, matches bands
 * of the two inputs by name.  The format is documented in
 * docs/strata-html.md ("The JSON data").
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <strata/EventLogFormat.h>

#include "GrowArray.h"
#include "JsonText.h"
#include "ReportJson.h"

#define SPARK_POINTS 50   /* sparkline points per band in the detailed table */

/* A band as the report shows it. */
typedef struct Row {
    const Profile *p;
    const Band *b;
    BandStats st;
    char *name;           /* owned: the display name, unique within p */
    int have_number;
    double number;        /* the label read as a number (eras) */
    long size_rank;       /* 1 = largest integrated size in p */
} Row;

/* One name across the inputs: for a single input just its row. */
typedef struct Key {
    const char *name;
    Row *row[2];          /* per input, or NULL */
    double size;          /* integrated size summed over the inputs */
    long color;           /* colour index, shared by every view */
} Key;

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
 * Rows: display names and ordering
 * ------------------------------------------------------------------- */

static char *ipe_name(const EvrIpe *ipe)
{
    const char *t = ipe->table_name.ptr[0] ? ipe->table_name.ptr : ipe->label.ptr;
    size_t n = strlen(t) + strlen(ipe->srcloc.ptr) + 4;
    char *s = malloc(n);
    if (s == NULL)
        return NULL;
    if (ipe->srcloc.ptr[0])
        snprintf(s, n, "%s (%s)", t, ipe->srcloc.ptr);
    else
        snprintf(s, n, "%s", t);
    return s;
}

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

static int parse_number(const char *s, double *v)
{
    char *end;
    if (*s == '\0')
        return 0;
    *v = strtod(s, &end);
    return *end == '\0';
}

static int by_size_desc(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->st.integrated_byte_s != y->st.integrated_byte_s)
        return x->st.integrated_byte_s < y->st.integrated_byte_s ? 1 : -1;
    return strcmp(x->b->label, y->b->label);
}

static int by_name_ptr(const void *a, const void *b)
{
    const Row *x = *(Row *const *)a, *y = *(Row *const *)b;
    return strcmp(x->name, y->name);
}

static void free_rows(Row *rows, size_t n);

/* The rows of p, largest integrated size first, with unique names; NULL
 * when out of memory. */
static Row *make_rows(const Profile *p)
{
    Row *rows = calloc(p->n_bands ? p->n_bands : 1, sizeof *rows);
    Row **byname = calloc(p->n_bands ? p->n_bands : 1, sizeof *byname);
    if (rows == NULL || byname == NULL)
        goto oom;
    for (size_t i = 0; i < p->n_bands; i++) {
        Row *r = &rows[i];
        r->p = p;
        r->b = &p->bands[i];
        profile_band_stats(p, r->b, &r->st);
        r->have_number = parse_number(r->b->label, &r->number);
        const EvrIpe *ipe = profile_band_ipe(p, r->b);
        if (ipe != NULL) {
            r->name = ipe_name(ipe);
        } else if (!p->from_hp && p->model.breakdown == HEAP_PROF_BREAKDOWN_COST_CENTRE) {
            r->name = hp_stack_name(&p->model.ccs, r->b->label, strlen(r->b->label));
        } else if (!p->from_hp && p->model.breakdown == HEAP_PROF_BREAKDOWN_ERA) {
            r->name = malloc(strlen(r->b->label) + 5);
            if (r->name != NULL)
                sprintf(r->name, "era %s", r->b->label);
        } else {
            r->name = strdup(r->b->label);
        }
        if (r->name == NULL)
            goto oom;
    }
    qsort(rows, p->n_bands, sizeof *rows, by_size_desc);
    for (size_t i = 0; i < p->n_bands; i++) {
        rows[i].size_rank = (long)i + 1;
        byname[i] = &rows[i];
    }
    /* Two info tables with one description: tell them apart by address. */
    qsort(byname, p->n_bands, sizeof *byname, by_name_ptr);
    for (size_t i = 0; i < p->n_bands; i++) {
        int dup = (i > 0 && strcmp(byname[i - 1]->name, byname[i]->name) == 0) ||
                  (i + 1 < p->n_bands && strcmp(byname[i + 1]->name, byname[i]->name) == 0);
        if (dup && strcmp(byname[i]->name, byname[i]->b->label) != 0) {
            size_t n = strlen(byname[i]->name) + strlen(byname[i]->b->label) + 2;
            char *s = malloc(n);
            if (s == NULL)
                goto oom;
            snprintf(s, n, "%s %s", byname[i]->name, byname[i]->b->label);
            free(byname[i]->name);
            byname[i]->name = s;
        }
    }
    free(byname);
    return rows;
oom:
    free(byname);
    if (rows != NULL)
        free_rows(rows, p->n_bands);
    return NULL;
}

static void free_rows(Row *rows, size_t n)
{
    if (rows == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(rows[i].name);
    free(rows);
}

static ReportSort sort_key;
static int sort_reverse;

static double key_value(const Key *k, ReportSort s)
{
    double v = 0;
    for (int i = 0; i < 2; i++) {
        if (k->row[i] == NULL)
            continue;
        if (s == REPORT_SORT_STDDEV)
            v += k->row[i]->st.stddev;
        else if (s == REPORT_SORT_GRADIENT)
            v += k->row[i]->st.slope;
        else
            v += k->row[i]->st.integrated_byte_s;
    }
    return v;
}

static const Row *key_row(const Key *k)
{
    return k->row[0] ? k->row[0] : k->row[1];
}

static int key_cmp(const void *a, const void *b)
{
    const Key *x = a, *y = b;
    int c = 0;
    switch (sort_key) {
    case REPORT_SORT_NAME:
        c = strcmp(x->name, y->name);
        break;
    case REPORT_SORT_NUMBER: {
        const Row *rx = key_row(x), *ry = key_row(y);
        if (rx->have_number != ry->have_number)
            c = rx->have_number ? -1 : 1;
        else if (rx->have_number && rx->number != ry->number)
            c = rx->number < ry->number ? -1 : 1;
        else
            c = strcmp(x->name, y->name);
        break;
    }
    default: {
        double vx = key_value(x, sort_key), vy = key_value(y, sort_key);
        c = vx != vy ? (vx < vy ? 1 : -1) : strcmp(x->name, y->name);
        break;
    }
    }
    return sort_reverse ? -c : c;
}

static int key_by_size(const void *a, const void *b)
{
    const Key *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int key_by_name(const void *a, const void *b)
{
    return strcmp(((const Key *)a)->name, ((const Key *)b)->name);
}

/* One key per distinct name over the inputs, largest summed size first;
 * NULL when out of memory.  Colour indices follow that order, or the era
 * number for -he. */
static Key *make_keys(Row **rows, const size_t *n_rows, size_t n_inputs, size_t *n_keys)
{
    size_t total = 0;
    for (size_t i = 0; i < n_inputs; i++)
        total += n_rows[i];
    Key *keys = calloc(total ? total : 1, sizeof *keys);
    if (keys == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < n_inputs; i++)
        for (size_t j = 0; j < n_rows[i]; j++) {
            keys[n].name = rows[i][j].name;
            keys[n].row[i] = &rows[i][j];
            keys[n].size = rows[i][j].st.integrated_byte_s;
            n++;
        }
    qsort(keys, n, sizeof *keys, key_by_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && strcmp(keys[m - 1].name, keys[i].name) == 0) {
            for (int k = 0; k < 2; k++)
                if (keys[i].row[k] != NULL)
                    keys[m - 1].row[k] = keys[i].row[k];
            keys[m - 1].size += keys[i].size;
        } else {
            keys[m++] = keys[i];
        }
    }
    qsort(keys, m, sizeof *keys, key_by_size);
    for (size_t i = 0; i < m; i++) {
        const Row *r = key_row(&keys[i]);
        int era = !r->p->from_hp && r->p->model.breakdown == HEAP_PROF_BREAKDOWN_ERA &&
                  r->have_number;
        keys[i].color = era ? (long)r->number : (long)i;
    }
    *n_keys = m;
    return keys;
}

/* ----------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------- */

static void write_times(FILE *out, const Series *s)
{
    fputc('[', out);
    int first = 1;
    for (size_t i = 0; i < SERIES_BINS; i++) {
        if (s->count[i] == 0)
            continue;
        if (!first)
            fputc(',', out);
        first = 0;
        fprintf(out, "%.6f", s->t_sum_ns[i] / s->count[i] / 1e9);
    }
    fputc(']', out);
}

/* One value per used bin of s (Note [Peaks survive folding] in
 * Profile.c): values[i], or 0 everywhere if values is NULL. */
static void write_values(FILE *out, const Series *s, const double *values)
{
    fputc('[', out);
    int first = 1;
    for (size_t i = 0; i < SERIES_BINS; i++) {
        if (s->count[i] == 0)
            continue;
        if (!first)
            fputc(',', out);
        first = 0;
        json_number(out, values ? values[i] : 0.0);
    }
    fputc(']', out);
}

/* The per-bin minima of band b (NULL: zeros) into mins[SERIES_BINS]. */
static void band_mins(const Profile *p, const Band *b, double *mins)
{
    for (size_t i = 0; i < SERIES_BINS; i++)
        mins[i] = b ? profile_band_bin_min(p, b, i) : 0;
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

static void write_ipe(FILE *out, const EvrIpe *ipe)
{
    if (ipe == NULL) {
        fputs("null", out);
        return;
    }
    fputs("{\"table_name\":", out);
    json_string(out, ipe->table_name.ptr);
    fputs(",\"closure_desc\":", out);
    json_string(out, ipe->closure_desc.ptr);
    fputs(",\"ty_desc\":", out);
    json_string(out, ipe->ty_desc.ptr);
    fputs(",\"label\":", out);
    json_string(out, ipe->label.ptr);
    fputs(",\"module\":", out);
    json_string(out, ipe->module.ptr);
    fputs(",\"srcloc\":", out);
    json_string(out, ipe->srcloc.ptr);
    fputc('}', out);
}

static void write_row(FILE *out, const Row *r, long color)
{
    const Profile *p = r->p;
    fputs("{\"label\":", out);
    json_string(out, r->b->label);
    fputs(",\"name\":", out);
    json_string(out, r->name);
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
    if (!p->from_hp && p->model.breakdown == HEAP_PROF_BREAKDOWN_ERA && r->have_number)
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
    fputs(",\"bytes\":[", out);
    int first = 1;
    for (size_t i = 0; i < SERIES_BINS; i++) {
        if (p->heap_series[which].count[i] == 0)
            continue;
        if (!first)
            fputc(',', out);
        first = 0;
        json_number(out, p->heap_max[which][i]);   /* the largest size in the bin */
    }
    fputc(']', out);
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
    fputs(",\"source\":", out);
    json_string(out, p->from_hp ? "hp" : "eventlog");
    fputs(",\"program\":", out);
    json_string(out, p->program);
    fputs(",\"args\":[", out);
    for (size_t i = 0; i < p->n_args; i++) {
        if (i)
            fputc(',', out);
        json_string(out, p->args[i]);
    }
    fputs("],\"rts_identifier\":", out);
    json_string(out, p->rts_id);
    fputs(",\"mode\":", out);
    json_string(out, mode_flag(p));
    fputs(",\"mode_name\":", out);
    json_string(out, mode_name(p));
    fputs(",\"interval_ns\":", out);
    if (p->from_hp)
        fputs("null", out);
    else
        fprintf(out, "%" PRIu64, p->model.interval_ns);
    fputs(",\"date\":", out);
    json_string(out, p->date);
    fprintf(out, ",\"censuses\":%" PRIu64 ",\"events\":%" PRIu64 ",\"end_time_s\":%.6f",
            p->n_censuses, p->n_events, (double)p->end_time_ns / 1e9);
    fputs(",\"warning\":", out);
    json_string(out, p->warning);
}

/* The chart: the chosen keys' largest and least values per point in this
 * input (zeros where it lacks one), then OTHER, the sums of the rest's,
 * then the largest census total per point; -1 when out of memory. */
static int write_chart(FILE *out, const Profile *p, int input, Key *keys, size_t n_keys,
                        size_t n_chart)
{
    double mins[SERIES_BINS];
    fputs("\"chart\":{\"times_s\":", out);
    write_times(out, &p->census_series);
    fputs(",\"bands\":[", out);
    for (size_t i = 0; i < n_chart; i++) {
        const Row *r = keys[i].row[input];
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        json_string(out, keys[i].name);
        fprintf(out, ",\"color\":%ld,\"present\":%s,\"values\":", keys[i].color,
                r ? "true" : "false");
        write_values(out, &p->census_series, r ? r->b->bins->max : NULL);
        fputs(",\"min_values\":", out);
        band_mins(p, r ? r->b : NULL, mins);
        write_values(out, &p->census_series, mins);
        fputc('}', out);
    }
    fputs("],\"other\":", out);
    if (n_chart >= n_keys) {
        fputs("null", out);
    } else {
        double *sum = calloc(2 * SERIES_BINS, sizeof *sum);
        if (sum == NULL)
            return -1;
        double *sum_min = sum + SERIES_BINS;
        size_t n_other = 0;
        for (size_t i = n_chart; i < n_keys; i++) {
            const Row *r = keys[i].row[input];
            if (r == NULL)
                continue;
            n_other++;
            for (size_t k = 0; k < SERIES_BINS; k++) {
                sum[k] += r->b->bins->max[k];
                sum_min[k] += profile_band_bin_min(p, r->b, k);
            }
        }
        fprintf(out, "{\"name\":\"OTHER\",\"bands\":%zu,\"values\":", n_other);
        write_values(out, &p->census_series, sum);
        fputs(",\"min_values\":", out);
        write_values(out, &p->census_series, sum_min);
        fputc('}', out);
        free(sum);
    }
    fputs(",\"total_max\":", out);
    write_values(out, &p->census_series, p->census_total_max);
    fputc('}', out);
    return 0;
}

static int write_profile(FILE *out, const Profile *p, int input, Key *keys, size_t n_keys,
                         size_t n_chart, Key *table_keys)
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
    if (write_chart(out, p, input, keys, n_keys, n_chart) != 0)
        return -1;
    /* The detailed table: every band of this input, in the chosen order. */
    fprintf(out, ",\"band_count\":%zu,\"table\":[", p->n_bands);
    int first = 1;
    for (size_t i = 0; i < n_keys; i++) {
        const Row *r = table_keys[i].row[input];
        if (r == NULL)
            continue;
        if (!first)
            fputs(",\n", out);
        first = 0;
        write_row(out, r, table_keys[i].color);
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
    /* -he: the eras holding bytes in the last census, oldest first. */
    fputs(",\"eras_live_at_end\":", out);
    if (p->from_hp || p->model.breakdown != HEAP_PROF_BREAKDOWN_ERA) {
        fputs("null", out);
    } else {
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
            fprintf(out, ",\"bytes\":%" PRIu64 ",\"color\":%ld}", r->st.last_bytes,
                    table_keys[i].color);
        }
        fputc(']', out);
    }
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

static void write_diff(FILE *out, Key *keys, size_t n_keys)
{
    fputs(",\"diff\":[", out);
    for (size_t i = 0; i < n_keys; i++) {
        const Row *a = keys[i].row[0], *b = keys[i].row[1];
        double sa = a ? a->st.integrated_byte_s : 0, sb = b ? b->st.integrated_byte_s : 0;
        fputs(i ? ",\n{\"name\":" : "{\"name\":", out);
        json_string(out, keys[i].name);
        fprintf(out, ",\"color\":%ld,\"a_byte_s\":", keys[i].color);
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
    int status = -1;
    for (size_t i = 0; i < n; i++) {
        rows[i] = make_rows(profiles[i]);
        n_rows[i] = profiles[i]->n_bands;
        if (rows[i] == NULL)
            goto done;
    }
    size_t n_keys;
    keys = make_keys(rows, n_rows, n, &n_keys);
    if (keys == NULL)
        goto done;
    size_t n_chart = o->bands == 0 || (size_t)o->bands > n_keys ? n_keys : (size_t)o->bands;
    int era = !profiles[0]->from_hp && profiles[0]->model.breakdown == HEAP_PROF_BREAKDOWN_ERA;
    sort_key = o->sort_given ? o->sort : (era ? REPORT_SORT_NUMBER : REPORT_SORT_SIZE);
    sort_reverse = o->reverse;
    /* keys[0..n_chart) are the largest; order them, then the table's copy. */
    qsort(keys, n_chart, sizeof *keys, key_cmp);
    table_keys = malloc((n_keys ? n_keys : 1) * sizeof *table_keys);
    if (table_keys == NULL)
        goto done;
    memcpy(table_keys, keys, n_keys * sizeof *keys);
    qsort(table_keys, n_keys, sizeof *table_keys, key_cmp);

    fprintf(out, "{\"tool\":\"strata-html\",\"format\":1,\"options\":{\"bands\":%ld,"
                 "\"sort\":\"%s\",\"reverse\":%s,\"y_axis_bytes\":",
            o->bands, sort_names[sort_key], o->reverse ? "true" : "false");
    if (o->y_axis > 0)
        json_number(out, o->y_axis);
    else
        fputs("null", out);
    fprintf(out, ",\"normalised_time\":%s},\"profiles\":[", o->normalise_time ? "true" : "false");
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(",\n", out);
        if (write_profile(out, profiles[i], (int)i, keys, n_keys, n_chart, table_keys) != 0)
            goto done;
    }
    fputc(']', out);
    if (n == 2) {
        qsort(table_keys, n_keys, sizeof *table_keys, by_abs_change);
        write_diff(out, table_keys, n_keys);
    }
    fputs("}\n", out);
    status = 0;
done:
    free(table_keys);
    free(keys);
    for (size_t i = 0; i < n; i++)
        free_rows(rows[i], n_rows[i]);
    return status;
}
