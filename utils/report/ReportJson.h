/*
 * utils/report/ReportJson.h -- the report's data as one JSON object:
 * what `strata-html --json` prints, what the report page embeds, and what
 * strata-live's page fetches.  The format is docs/strata-html.md's ("The
 * JSON data").  The whole API of ReportJson.c.
 */
#ifndef STRATA_REPORT_REPORT_JSON_H
#define STRATA_REPORT_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "Profile.h"
#include "ReportSort.h"


/* The options that shape the report. */
typedef struct ReportOptions {
    long bands;             /* chart bands, the rest summed as OTHER; 0 = all;
                             * REPORT_BANDS_AUTO: 15, or 50 eras (ChartBands.h) */
    ReportSort sort;        /* with sort_given; else by size (by number for -he) */
    int sort_given;
    int reverse;            /* reverse that order */
    double y_axis;          /* top of the byte axes; 0 = automatic */
    int json;               /* strata-html: write the JSON, not the page */
    int normalise_time;     /* --diff on a 0-100 % time axis per run */
} ReportOptions;

/* strata-html's defaults: 15 chart bands by size, or up to 50 eras by
 * number (Note [Era bands] in ChartBands.c). */
#define REPORT_BANDS_AUTO (-1L)
#define REPORT_OPTIONS_DEFAULT { .bands = REPORT_BANDS_AUTO, .sort = REPORT_SORT_SIZE }

/* The sort key named s ("size", "stddev", "name", "number", "gradient")
 * into *sort; 0 if s names none. */
int report_sort_parse(const char *s, ReportSort *sort);

/* Writes the report of profiles[0..n) (n is 1, or 2 for a diff of
 * profiles[0], before, and profiles[1], after) to out; 0, or -1 when out
 * of memory (the output is then cut short). */
int report_json_write(FILE *out, const ReportOptions *o, Profile *const *profiles, size_t n);

#endif /* STRATA_REPORT_REPORT_JSON_H */
