/*
 * utils/report/ReportRows.c -- the report's bands as rows (one per band of
 * an input, with its statistics and display name) and keys (one per
 * display name across the inputs of a diff), and their orders
 * (ReportRows.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <strata/EventLogFormat.h>

#include "ReportRows.h"

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

/* The rows of p, largest integrated size first, with unique names; NULL
 * when out of memory. */
Row *report_rows_make(const Profile *p)
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
        } else if (report_profile_is_era(p)) {
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
        report_rows_free(rows, p->n_bands);
    return NULL;
}

void report_rows_free(Row *rows, size_t n)
{
    if (rows == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(rows[i].name);
    free(rows);
}

/* qsort has no context argument: report_keys_sort sets these. */
static ReportSort sort_key;
static int sort_reverse;

double report_key_value(const Key *k, ReportSort s)
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

const Row *report_key_row(const Key *k)
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
        const Row *rx = report_key_row(x), *ry = report_key_row(y);
        if (rx->have_number != ry->have_number)
            c = rx->have_number ? -1 : 1;
        else if (rx->have_number && rx->number != ry->number)
            c = rx->number < ry->number ? -1 : 1;
        else
            c = strcmp(x->name, y->name);
        break;
    }
    default: {
        double vx = report_key_value(x, sort_key), vy = report_key_value(y, sort_key);
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
Key *report_keys_make(Row **rows, const size_t *n_rows, size_t n_inputs, size_t *n_keys)
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
        const Row *r = report_key_row(&keys[i]);
        int era = report_profile_is_era(r->p) && r->have_number;
        keys[i].color = era ? (long)r->number : (long)i;
    }
    *n_keys = m;
    return keys;
}

void report_keys_sort(Key *keys, size_t n, ReportSort sort, int reverse)
{
    sort_key = sort;
    sort_reverse = reverse;
    qsort(keys, n, sizeof *keys, key_cmp);
}

int report_profile_is_era(const Profile *p)
{
    return !p->from_hp && p->model.breakdown == HEAP_PROF_BREAKDOWN_ERA;
}

