/*
 * utils/report/ReportRows.h -- the report's bands as rows and keys, and
 * their orders: what ReportJson.c writes and ChartBands.c groups.  The
 * whole API of ReportRows.c.
 */
#ifndef STRATA_REPORT_REPORT_ROWS_H
#define STRATA_REPORT_REPORT_ROWS_H

#include <stddef.h>

#include "Profile.h"
#include "ReportSort.h"

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
    long band;            /* its chart band (ChartBands.h), or -1: OTHER */
} Key;

/* Whether p is an era profile (-he from an eventlog): its bands are eras,
 * coloured and charted by number. */
int report_profile_is_era(const Profile *p);

/* The rows of p, largest integrated size first, with unique names; NULL
 * when out of memory. */
Row *report_rows_make(const Profile *p);
void report_rows_free(Row *rows, size_t n);

/* One key per distinct name over the inputs, largest summed size first;
 * NULL when out of memory.  Colour indices follow that order, or the era
 * number for -he. */
Key *report_keys_make(Row **rows, const size_t *n_rows, size_t n_inputs, size_t *n_keys);

/* The row of k in the first input that has it. */
const Row *report_key_row(const Key *k);

/* k's value for a numeric sort (size, stddev, gradient), summed over the
 * inputs. */
double report_key_value(const Key *k, ReportSort s);

/* Orders keys[0..n) by sort (--sort), reversed if reverse. */
void report_keys_sort(Key *keys, size_t n, ReportSort sort, int reverse);

#endif /* STRATA_REPORT_REPORT_ROWS_H */
